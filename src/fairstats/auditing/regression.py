"""``fairstats audit --task regression``: a continuous prediction audited by group, into regression_tests.csv.

Never guessed from the data: a numeric ``--y-pred`` with more than two values and no ``--task`` is refused
with a hint naming this option (:mod:`fairstats.auditing.prepare`). Per grouping (each ``--group`` and, with
several, their intersection), :func:`fairstats.regression_tests` (mean residual, MAE, RMSE: studentized
permutation tests and bootstrap intervals; KS of the residuals); Holm and the three-way verdicts over the
whole file. Written all or nothing, as every audit (:func:`fairstats.auditing.result.write_folder`).
"""

from __future__ import annotations

import argparse
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from fairstats.auditing.errors import AuditError
from fairstats.multiplicity import three_way_verdicts
from fairstats.regression import regression_tests
from fairstats.reporting import atomic_write_text

__all__ = ["REGRESSION_COLUMNS", "run_regression"]

#: Columns of ``regression_tests.csv``, in order.
REGRESSION_COLUMNS = (
    "grouping", "group", "reference", "metric", "value", "value_reference", "estimate", "ci_low", "ci_high",
    "statistic", "pvalue", "pvalue_adj", "verdict", "verdict_note", "equivalence_pvalue", "margin", "mde",
    "n", "n_reference", "method", "reason",
)

_NOT_WITH = (("--y-score", "y_score"), ("--fold", "fold"), ("--decision-levels", "decision_levels"),
             ("--search", "search"), ("--counts", "counts"), ("--favorable", "favorable"))


def run_regression(args: argparse.Namespace) -> tuple[str, tuple[str, ...]]:
    """Check, compute and write the regression audit of ``args``; the summary and the warnings to print."""
    from fairstats.auditing.inputs import read_predictions_file
    from fairstats.auditing.result import checked_out, write_folder, write_tables

    for option, name in _NOT_WITH:
        if getattr(args, name, None) is not None:
            raise AuditError(f"--task regression: {option} belongs to the audit of decisions; leave it out")
    if args.predictions is None:
        raise AuditError("--task regression needs PREDICTIONS (one row per person)")
    path, out = Path(args.predictions), Path(args.out)
    target = checked_out(out, (path,))
    groups = list(dict.fromkeys(args.group))
    data = read_predictions_file(path, text_columns=groups)
    groupings = [[g] for g in groups] + ([groups] if len(groups) > 1 else [])
    seeds = np.random.SeedSequence(args.seed).spawn(len(groupings))
    parts = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for columns, seed in zip(groupings, seeds, strict=True):
            try:
                res = regression_tests(
                    data, group=columns if len(columns) > 1 else columns[0], y_true=args.y_true,
                    y_pred=args.y_pred, margin=args.regression_margin, alpha=args.alpha,
                    n_resamples=args.n_resamples, rng=np.random.default_rng(seed),
                )
            except (ValueError, TypeError) as err:
                raise AuditError(f"{str(path)!r}: {err}") from None
            parts.append(res.comparisons)
    table = pd.concat(parts, ignore_index=True).drop(
        columns=["pvalue_adj", "pvalue_holm_equivalence", "verdict", "verdict_note"])
    table = three_way_verdicts(table, alpha=args.alpha, reason="reason")
    table = table.rename(columns={"pvalue_holm_difference": "pvalue_adj"})[list(REGRESSION_COLUMNS)]
    warned = tuple(dict.fromkeys(str(w.message) for w in caught))
    counts = table["verdict"].value_counts()
    verdicts = ("disparity", "equivalent", "inconclusive", "undefined")
    tally = ", ".join(f"{counts.get(v, 0)} {v}" for v in verdicts)
    margin = "no margin (--regression-margin): no equivalence tests" if args.regression_margin is None else (
        f"margin {args.regression_margin:g} in the unit of {args.y_true!r}")
    lines = [
        f"fairstats audit --task regression: {len(data):,} people, residual = {args.y_pred!r} - "
        f"{args.y_true!r}, alpha = {args.alpha:g}, {margin}",
        f"  {len(table)} comparisons (mean residual, MAE, RMSE, residual distribution per group against the "
        f"largest), Holm over the file: {tally}",
    ]
    for row in table[table["verdict"] == "disparity"].itertuples():
        interval = f" [{row.ci_low:.4g}, {row.ci_high:.4g}]" if np.isfinite(row.ci_low) else ""
        lines.append(f"    disparity: {row.grouping} {row.group!r} vs {row.reference!r}, {row.metric} "
                     f"{row.estimate:+.4g}{interval}")
    summary = "\n".join(lines)

    def write(folder: Path) -> tuple[str, ...]:
        write_tables(folder, [("regression_tests", table)])
        atomic_write_text(folder / "report.md", "# fairstats audit --task regression\n\n```\n" + summary +
                          "\n```\n\nThe table: `regression_tests.md`.\n")
        return warned

    write_folder(out, (path,), write, target=target)
    return summary + f"\n  tables: {out / 'regression_tests.csv'}", warned
