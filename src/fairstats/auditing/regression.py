"""The audit of a continuous prediction by group (``--task regression``): :class:`RegressionAudit`, its
``regression_tests.csv``, report and figures.

Never guessed from the data: a numeric ``--y-pred`` with more than two values and no ``--task`` is refused
with a hint naming this option (:mod:`fairstats.auditing.prepare`). Per grouping (each ``--group`` and, with
several, their intersection), :func:`fairstats.regression_tests` (mean residual, MAE, RMSE: studentized
permutation tests and bootstrap intervals; KS of the residuals); Holm and the three-way verdicts over the
whole file. :func:`regression_audit` computes it in memory (``fairstats.audit(..., task="regression")``);
:meth:`RegressionAudit.save` writes the folder all or nothing, as every audit
(:func:`fairstats.auditing.result.write_folder`): the table, one residual-distribution figure per grouping,
``report.md`` / ``report.html`` (and ``report.pdf``) from the package's templates.
"""

from __future__ import annotations

import argparse
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path

import numpy as np
import pandas as pd

from fairstats.auditing.errors import AuditError
from fairstats.auditing.inputs import Source
from fairstats.groups import group_labels
from fairstats.multiplicity import three_way_verdicts
from fairstats.regression import regression_tests

__all__ = ["REGRESSION_COLUMNS", "RegressionAudit", "regression_audit", "run_regression"]

#: Columns of ``regression_tests.csv``, in order.
REGRESSION_COLUMNS = (
    "grouping", "group", "reference", "metric", "value", "value_reference", "estimate", "ci_low", "ci_high",
    "statistic", "pvalue", "pvalue_adj", "verdict", "verdict_note", "equivalence_pvalue", "margin", "mde",
    "n", "n_reference", "method", "reason",
)

_NOT_WITH = (("--y-score", "y_score"), ("--fold", "fold"), ("--decision-levels", "decision_levels"),
             ("--search", "search"), ("--counts", "counts"), ("--favorable", "favorable"),
             ("--impact-ratios", "impact_ratios"))

#: The residual-distribution figures draw at most this many groups of a grouping (the reference and the
#: largest others); regression_tests.csv holds every group.
MAX_FIGURE_GROUPS = 8

#: The quantiles of each group's residuals the figure draws (its ECDF and quantile bars).
_QUANTILES = np.round(np.linspace(0, 1, 201), 6)

_METRIC_WORDS = {
    "mean_residual": "mean residual (prediction minus outcome): the group's bias; positive: over-predicted",
    "mae": "mean absolute error",
    "rmse": "root mean squared error",
    "residual_distribution": "Kolmogorov–Smirnov distance between the group's and the reference's residual "
    "distributions (estimate: the distance D; no equivalence test)",
}

_METHODS = (
    ("studentized permutation test", "each metric's difference from the reference group divided by its "
     "standard error, compared with its permutation distribution (group labels shuffled) and with its "
     "bootstrap-t distribution (each group resampled on its own); the larger p-value is reported",
     "people independent; exact under equal distributions, asymptotically valid for unequal variances "
     "(studentized); the bootstrap-t holds the size in small skewed groups; under 20 people a group's rows "
     "are undefined",
     "DiCiccio, DiCiccio & Su (2020), KDD; Hall & Wilson (1991); scipy.stats.permutation_test, bootstrap"),
    ("bootstrap interval", "percentile interval of each difference, people resampled within their group",
     "people independent", "Efron & Tibshirani (1993)"),
    ("two-sample Kolmogorov–Smirnov test", "whether the residual distributions of a group and the reference "
     "are equal", "people independent, continuous residuals", "scipy.stats.ks_2samp"),
    ("Holm and the three-way verdicts", "Holm's adjustment over every row of regression_tests.csv; with a "
     "margin, TOST equivalence tests, so a comparison is a disparity, equivalent, inconclusive or undefined",
     "the margin set by the auditor (--regression-margin), in the outcome's unit",
     "Holm (1979); Schuirmann (1987)"),
)


@dataclass(frozen=True, eq=False)
class RegressionAudit:
    """The audit of a continuous prediction (what ``fairstats audit --task regression`` computes).

    Attributes
    ----------
    source : Source
        The input as the messages and the report name it.
    n : int
        Number of people.
    y_true, y_pred : str
        The outcome and prediction columns (residual = ``y_pred - y_true``).
    groups : tuple of str
        The ``--group`` columns.
    groupings : tuple of str
        The groupings' names (each column and, with several, their intersection ``a x b``).
    sizes : dict
        Per grouping, each group's number of people.
    references : dict
        Per grouping, the reference group (the largest).
    table : pandas.DataFrame
        ``regression_tests.csv`` (:data:`REGRESSION_COLUMNS`).
    distributions : dict
        Per grouping, the quantiles of the residuals of the groups its figure draws (``group, quantile,
        residual``; ``attrs["total"]``: the grouping's number of groups).
    alpha : float
    margin : float or None
        The equivalence margin in the outcome's unit (None: no equivalence tests).
    n_resamples, seed : int
    notes : tuple of str
        The warnings of the tests, as the report lists them.
    command : str or None
        The command line or call that made the audit (the report's provenance).
    """

    source: Source
    n: int
    y_true: str
    y_pred: str
    groups: tuple[str, ...]
    groupings: tuple[str, ...]
    sizes: dict
    references: dict
    table: pd.DataFrame
    distributions: dict
    alpha: float
    margin: float | None
    n_resamples: int
    seed: int
    notes: tuple[str, ...] = ()
    command: str | None = None

    @property
    def tables(self) -> dict[str, pd.DataFrame]:
        """Every table the output folder holds, by file stem."""
        return {"regression_tests": self.table}

    @property
    def has_disparity(self) -> bool:
        """Whether a verdict of regression_tests.csv is ``disparity`` (``--fail-on disparity`` exits)."""
        return bool((self.table["verdict"].astype(str) == "disparity").any())

    @property
    def margin_text(self) -> str:
        if self.margin is None:
            return "no margin (--regression-margin): no equivalence tests"
        return f"margin {self.margin:g} in the unit of {self.y_true!r}"

    def summary(self, out: Path | str | None = None) -> str:
        """The plain-language summary (what ``fairstats audit --task regression`` prints); with ``out``, the
        line naming the report saved there."""
        from fairstats.auditing.report import verdict_tally

        counts = verdict_tally(self.table["verdict"])
        tally = ", ".join(f"{k} {v}" for v, k in counts.items())
        lines = [
            f"fairstats audit --task regression: {self.n:,} people, residual = {self.y_pred!r} - "
            f"{self.y_true!r}, alpha = {self.alpha:g}, {self.margin_text}",
            f"  {len(self.table)} comparisons (mean residual, MAE, RMSE, residual distribution per group "
            f"against the largest), Holm over the file: {tally}",
        ]
        for row in self.table[self.table["verdict"] == "disparity"].itertuples():
            interval = f" [{row.ci_low:.4g}, {row.ci_high:.4g}]" if np.isfinite(row.ci_low) else ""
            lines.append(f"    disparity: {row.grouping} {row.group!r} vs {row.reference!r}, {row.metric} "
                         f"{row.estimate:+.4g}{interval}")
        if self.notes:
            lines.append(f"  {len(self.notes)} note(s): see the report")
        if out is not None:
            lines.append(f"  report: {Path(out) / 'report.html'}")
        return "\n".join(lines)

    def to_dict(self) -> dict:
        """A machine-readable summary (what ``--json`` prints): the input, the options, per grouping its
        groups, sizes and reference, the verdict counts and every comparison whose verdict is ``disparity``.
        Plain JSON values (NaN as None)."""
        from fairstats._format import json_records
        from fairstats._version import __version__

        found = self.table[self.table["verdict"].astype(str) == "disparity"]
        keep = ["grouping", "group", "reference", "metric", "value", "value_reference", "estimate", "ci_low",
                "ci_high", "pvalue", "pvalue_adj", "verdict"]
        counts = self.table["verdict"].astype(str).value_counts().sort_index()
        return {
            "fairstats": __version__,
            "task": "regression",
            "input": {"name": self.source.name, "kind": self.source.kind},
            "n": int(self.n),
            "y_true": self.y_true,
            "y_pred": self.y_pred,
            "alpha": self.alpha,
            "margin": self.margin,
            "seed": self.seed,
            "groupings": [
                {"name": g, "groups": list(self.sizes.get(g, {})), "sizes": self.sizes.get(g, {}),
                 "reference": self.references.get(g)}
                for g in self.groupings
            ],  # fmt: skip
            "verdicts": {"regression_tests": {str(k): int(v) for k, v in counts.items()}},
            "disparities": {"regression_tests": json_records(found, keep)} if len(found) else {},
            "has_disparity": self.has_disparity,
        }

    def _repr_html_(self) -> str:
        from markupsafe import escape

        from fairstats._text import display_text

        shown = "\n".join(display_text(line) for line in self.summary().split("\n"))
        view = self.table.copy()
        for column in view.columns:
            if pd.api.types.is_object_dtype(view[column]) or pd.api.types.is_string_dtype(view[column]):
                view[column] = [display_text(v) if isinstance(v, str) else v for v in view[column]]
        return (f"<pre>{escape(shown)}</pre>\n<h4>regression_tests</h4>"
                + view.to_html(index=False, max_rows=20, escape=True))

    def __repr__(self) -> str:
        return f"<fairstats RegressionAudit of {self.n:,} people: {', '.join(self.groupings)}>"

    def save(self, out: Path | str, *, pdf: bool = False) -> str:
        """Write the output folder ``out`` all or nothing (as :meth:`fairstats.auditing.Audit.save`): the
        table (CSV and Markdown), the figures, ``report.md``/``.html`` (and ``report.pdf`` with ``pdf``).
        Returns the summary naming the report."""
        from fairstats.auditing.pdf import find_renderer
        from fairstats.auditing.provenance import report_date
        from fairstats.auditing.result import write_folder

        out = Path(out)
        report_date()  # a bad SOURCE_DATE_EPOCH stops here, before anything is written
        if pdf:
            find_renderer()
        inputs = (self.source.path,) if self.source.path is not None else ()
        write_folder(out, inputs, partial(self.write_into, pdf=pdf))
        return self.summary(out)

    def write_into(self, folder: Path, *, pdf: bool = False) -> tuple[str, ...]:
        """Write the audit's files into the work folder ``folder``; return the notes."""
        from fairstats.auditing.figures import regression_figures
        from fairstats.auditing.result import write_tables

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            figures = regression_figures(self.distributions, folder)
        notes = tuple(dict.fromkeys((*self.notes, *(str(w.message) for w in caught
                                                    if issubclass(w.category, UserWarning)))))
        write_tables(folder, list(self.tables.items()))
        write_regression_report(folder, self, notes, figures)
        if pdf:
            from fairstats.auditing.pdf import print_pdf

            print_pdf(folder / "report.html", folder / "report.pdf")
        return notes


def regression_audit(
    data: pd.DataFrame,
    *,
    group: str | Sequence[str],
    y_true: str,
    y_pred: str,
    margin: float | None = None,
    alpha: float = 0.05,
    n_resamples: int = 9999,
    seed: int = 20240607,
    source: Source | None = None,
    command: str | None = None,
) -> RegressionAudit:
    """The regression audit of one row per person ``data``: :func:`fairstats.regression_tests` per grouping
    (each ``group`` column and, with several, their intersection), Holm and the three-way verdicts over the
    whole table. :class:`AuditError` naming the input, column and value for bad data."""
    source = source or Source(name="the data", kind="frame")
    groups = [group] if isinstance(group, str) else list(dict.fromkeys(group))
    groupings = [[g] for g in groups] + ([groups] if len(groups) > 1 else [])
    seeds = np.random.SeedSequence(seed).spawn(len(groupings))
    parts, sizes, references, distributions = [], {}, {}, {}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for columns, child in zip(groupings, seeds, strict=True):
            try:
                res = regression_tests(
                    data, group=columns if len(columns) > 1 else columns[0], y_true=y_true, y_pred=y_pred,
                    margin=margin, alpha=alpha, n_resamples=n_resamples, rng=np.random.default_rng(child),
                )
            except (ValueError, TypeError) as err:
                raise AuditError(f"{source.name!r}: {err}") from None
            name = " x ".join(columns)
            parts.append(res.comparisons)
            sizes[name] = {str(g): int(k) for g, k in zip(res.groups["group"], res.groups["n"], strict=True)}
            references[name] = res.reference
            distributions[name] = _distributions(data, columns, y_true, y_pred, res.reference, sizes[name])
    table = pd.concat(parts, ignore_index=True).drop(
        columns=["pvalue_adj", "pvalue_holm_equivalence", "verdict", "verdict_note"])
    table = three_way_verdicts(table, alpha=alpha, reason="reason")
    table = table.rename(columns={"pvalue_holm_difference": "pvalue_adj"})[list(REGRESSION_COLUMNS)]
    notes = tuple(dict.fromkeys(str(w.message) for w in caught
                                if not issubclass(w.category, DeprecationWarning | FutureWarning)))
    return RegressionAudit(
        source=source, n=len(data), y_true=y_true, y_pred=y_pred, groups=tuple(groups),
        groupings=tuple(sizes), sizes=sizes, references=references, table=table, distributions=distributions,
        alpha=alpha, margin=margin, n_resamples=n_resamples, seed=seed, notes=notes, command=command,
    )  # fmt: skip


def _distributions(data, columns, y_true, y_pred, reference, sizes) -> pd.DataFrame:
    """The quantiles of the residuals of the reference and the largest other groups (the figure's)."""
    labels = group_labels(data, columns if len(columns) > 1 else columns[0]).to_numpy()
    residual = data[y_pred].to_numpy(dtype=float) - data[y_true].to_numpy(dtype=float)
    others = sorted((g for g in sizes if g != reference), key=lambda g: -sizes[g])[: MAX_FIGURE_GROUPS - 1]
    shown = [reference, *[g for g in sizes if g in set(others)]]
    order = np.argsort(labels, kind="stable")
    sorted_labels = labels[order]
    parts = []
    for g in shown:
        lo, hi = np.searchsorted(sorted_labels, g, "left"), np.searchsorted(sorted_labels, g, "right")
        values = residual[order[lo:hi]]
        parts.append(pd.DataFrame({"group": g, "quantile": _QUANTILES,
                                   "residual": np.quantile(values, _QUANTILES)}))
    frame = pd.concat(parts, ignore_index=True)
    frame.attrs["total"] = len(sizes)
    return frame


# --------------------------------------------------------------------------------------------------------
# the report (templates regression.md.j2, regression.html.j2)
# --------------------------------------------------------------------------------------------------------


def write_regression_report(folder: Path, audit: RegressionAudit, notes: tuple[str, ...],
                            figures: list[dict]) -> None:
    """``report.md`` and ``report.html`` of a regression audit, from the package's templates (every data
    string escaped, as the decisions report: :func:`fairstats.auditing.report.write_report`)."""
    from fairstats._version import __version__
    from fairstats.auditing.provenance import input_hashes, report_date, versions
    from fairstats.auditing.report import (
        COMPARISON_COLUMNS,
        _environment,
        _sizes_item,
        comparison_rows,
        verdict_tally,
    )
    from fairstats.reporting import atomic_write_text

    table = audit.table
    sections, summary = [], []
    for k, name in enumerate(audit.groupings):
        part = table[table["grouping"] == name].rename(columns={"value": "value_group"})
        rows, more = comparison_rows(part, file="regression_tests.csv")
        counts = verdict_tally(part["verdict"])
        sections.append({
            "id": f"grouping-{k + 1}", "name": name, "reference": audit.references[name],
            "sizes": _sizes_item(name, audit.sizes[name]), "comparisons": rows, "comparisons_more": more,
            "counts": counts, "figures": [f for f in figures if f["grouping"] == name],
        })  # fmt: skip
        summary.append({"grouping": name, "n_groups": len(audit.sizes[name]),
                        "reference": audit.references[name], "n": len(part), **counts})
    c = verdict_tally(table["verdict"])
    flagged = table[table["verdict"] == "disparity"]
    names = list(dict.fromkeys(
        f"{g} ({grouping})" for grouping, g in zip(flagged["grouping"], flagged["group"], strict=True)))
    headline = [
        f"Each group's errors were compared with its grouping's largest group in {len(table)} comparisons "
        f"(mean residual, MAE, RMSE and the residual distribution), with Holm's adjustment over all of them "
        f"(α = {audit.alpha:g}; {audit.margin_text}).",
        f"Verdicts: {c['disparity']} disparity, {c['equivalent']} equivalent, {c['inconclusive']} "
        f"inconclusive (the data cannot tell), {c['undefined']} undefined.",
        ("Groups with a disparity: " + ", ".join(names) + ".") if names else "No group has a disparity.",
    ]
    hashes, more_files = input_hashes(audit.source.path)
    context = {
        "version": __version__, "input_name": audit.source.name, "seed": audit.seed,
        "n_people": f"{audit.n:,}",
        "y_true": audit.y_true, "y_pred": audit.y_pred, "alpha": f"{audit.alpha:g}",
        "margin_text": audit.margin_text, "headline": headline, "summary": summary, "sections": sections,
        "columns": [heading for heading, _ in COMPARISON_COLUMNS], "total": len(table),
        "metric_words": [(m, w) for m, w in _METRIC_WORDS.items() if m in set(table["metric"])],
        "methods": [dict(zip(("name", "what", "assumes", "reference"), m, strict=True)) for m in _METHODS],
        "notes": list(dict.fromkeys(notes)),
        "provenance": {"hashes": hashes, "more_files": more_files,
                       "command": audit.command or "(not recorded)",
                       "date": report_date(), "versions": versions(), "seed": audit.seed,
                       "n_resamples": audit.n_resamples},
    }  # fmt: skip
    for kind, name in (("md", "report.md"), ("html", "report.html")):
        text = _environment(kind).get_template(f"regression.{kind}.j2").render(**context)
        atomic_write_text(folder / name, text)


# --------------------------------------------------------------------------------------------------------
# the command line
# --------------------------------------------------------------------------------------------------------


def run_regression(args: argparse.Namespace) -> tuple[str, tuple[str, ...], RegressionAudit]:
    """Check, compute and write the regression audit of ``args``; the summary, the warnings to print and
    the audit (for ``--json`` and ``--fail-on``)."""
    from fairstats.auditing.inputs import read_predictions_file
    from fairstats.auditing.provenance import report_date
    from fairstats.auditing.result import checked_out, write_folder

    for option, name in _NOT_WITH:
        if getattr(args, name, None) not in (None, False):
            raise AuditError(f"--task regression: {option} belongs to the audit of decisions; leave it out")
    if args.predictions is None:
        raise AuditError("--task regression needs PREDICTIONS (one row per person)")
    report_date()  # a bad SOURCE_DATE_EPOCH stops here, before the input is read
    if args.pdf:
        from fairstats.auditing.pdf import find_renderer

        find_renderer()  # before anything is read or written
    path, out = Path(args.predictions), Path(args.out)
    target = checked_out(out, (path,))
    groups = list(dict.fromkeys(args.group))
    data = read_predictions_file(path, text_columns=groups)
    done = regression_audit(
        data, group=groups, y_true=args.y_true, y_pred=args.y_pred, margin=args.regression_margin,
        alpha=args.alpha, n_resamples=args.n_resamples, seed=args.seed,
        source=Source.of_file(path), command=getattr(args, "command_line", None),
    )  # fmt: skip
    done = replace(done, source=replace(done.source, path=path))
    notes = write_folder(out, (path,), partial(done.write_into, pdf=args.pdf), target=target)
    return done.summary(out), tuple(notes), done
