"""``fairstats audit --decision-levels``: the audit of a decision with more than two levels (issue 17 A).

The same input checks, work folder, equal confusion test, residuals, Cramér's V interval and report as the
binary audit (:mod:`fairstats.audit`), on the group × (decision level, outcome level) table of
:func:`fairstats.decision_table`; instead of paper B's binary outcome tests, the per-level share comparisons
of :func:`fairstats.level_rate_tests` and, for ordered levels, :func:`fairstats.ordinal_shift_tests`, each
family adjusted by Holm over all groupings. Extra files: ``level_tests.csv`` and ``ordinal_tests.csv``.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from fairstats._validation import CheckedFrame, checked_frame
from fairstats.audit import (
    TEST_COLUMNS,
    AuditError,
    AuditOptions,
    AuditResult,
    _Collected,
    _columns_iv,
    _finish_equal,
    _internal_names,
    _label_text,
    _record_equal_confusion,
    _rng,
    _start,
    _where,
    _write_tables,
)
from fairstats.audit_folder import OutFolderError, discard, new_work_folder, swap_into_place
from fairstats.audit_report import _figures, _summary, write_report
from fairstats.confusion import equal_confusion_test_table
from fairstats.counts import COUNT_COLUMN, Counts
from fairstats.levels import decision_table, level_rate_tests, level_verdicts
from fairstats.multiplicity import adjust_pvalues
from fairstats.ordinal import ordinal_shift_tests
from fairstats.reporting import one_line

__all__ = ["LEVEL_TEST_COLUMNS", "ORDINAL_TEST_COLUMNS", "run_levels_audit"]

#: Columns of ``level_tests.csv``.
LEVEL_TEST_COLUMNS = [
    "grouping",
    "group",
    "reference",
    "condition",
    "level",
    "value_group",
    "value_reference",
    "estimate",
    "ci_low",
    "ci_high",
    "count_group",
    "n_group",
    "count_reference",
    "n_reference",
    "statistic",
    "pvalue",
    "pvalue_adj",
    "pvalue_bh",
    "margin_low",
    "margin_high",
    "equivalence_ci_low",
    "equivalence_ci_high",
    "equivalence_pvalue",
    "equivalence_pvalue_adj",
    "mde",
    "verdict",
    "verdict_note",
    "method",
]
#: Columns of ``ordinal_tests.csv``.
ORDINAL_TEST_COLUMNS = [
    "grouping",
    "group",
    "reference",
    "condition",
    "n_group",
    "n_reference",
    "mean_score_group",
    "mean_score_reference",
    "estimate",
    "statistic",
    "zscore",
    "df",
    "pvalue",
    "pvalue_adj",
    "significant_adj",
    "correlation",
    "reason",
    "method",
]


@dataclass(frozen=True)
class _LevelsPrepared:
    """What :func:`fairstats.audit_report` needs of the input (as the binary audit's ``_Prepared``)."""

    data: pd.DataFrame | Counts
    checked: CheckedFrame | Counts
    cols: dict[str, str]
    groupings: tuple[tuple[str, ...], ...]
    labels: tuple[str, str]  # shown in the binary report's outcome line; unused with levels
    decision_levels: tuple[str, ...]
    outcome_levels: tuple[str, ...]

    @property
    def n(self) -> int:
        return self.data.n if isinstance(self.data, Counts) else len(self.data)


def _declared_iv(data, text: np.ndarray, levels: tuple[str, ...], option: str, column: str, options) -> None:
    bad = ~np.isin(text, list(levels))
    if bad.any():
        first = int(np.flatnonzero(bad)[0])
        raise AuditError(
            f"{option}: column {column!r} has the value {text[first]!r} (on {_where(data, first, options)}) "
            f"that is not among {'--decision-levels' if option == '--y-pred' else '--outcome-levels'} "
            f"{list(levels)!r}"
        )


def _prepare_levels(data: pd.DataFrame, options: AuditOptions, weight: np.ndarray | None) -> _LevelsPrepared:
    cols = _internal_names(options.groups)
    data = _columns_iv(data, options, weight)
    text_pred, text_true = _label_text(data[options.y_pred]), _label_text(data[options.y_true])
    _declared_iv(data, text_pred, options.decision_levels, "--y-pred", options.y_pred, options)
    if options.outcome_levels is None:
        outcome_levels = tuple(sorted(set(text_true)))
        if len(outcome_levels) < 2:
            raise AuditError(
                f"--y-true: column {options.y_true!r} of {options.predictions.name} has a single value "
                f"{outcome_levels[0]!r}; the audit needs at least two outcome levels"
            )
    else:
        outcome_levels = options.outcome_levels
        _declared_iv(data, text_true, outcome_levels, "--y-true", options.y_true, options)
    frame = pd.DataFrame(index=data.index)
    for column in options.groups:
        frame[column] = data[column].to_numpy()
    frame[cols["y_true"]] = text_true
    frame[cols["y_pred"]] = text_pred
    groupings = [(g,) for g in options.groups]
    if len(options.groups) > 1:
        groupings.append(tuple(options.groups))
    shown = (", ".join(options.decision_levels), ", ".join(outcome_levels))
    common = {"cols": cols, "groupings": tuple(groupings), "labels": shown,
              "decision_levels": tuple(options.decision_levels), "outcome_levels": tuple(outcome_levels)}
    if weight is None:
        return _LevelsPrepared(data=frame, checked=checked_frame(frame, list(frame.columns)), **common)
    counts = Counts._aggregate(
        frame.assign(**{COUNT_COLUMN: weight}), list(frame.columns), source=options.predictions.name
    )
    return _LevelsPrepared(data=counts, checked=counts, **common)


def _analyse(prep: _LevelsPrepared, options: AuditOptions, acc: _Collected):
    """Equal confusion test, residuals, per-level and ordinal tests of every grouping."""
    levels, ordinal = [], []
    for grouping in prep.groupings:
        name = " x ".join(grouping)
        group = list(grouping) if len(grouping) > 1 else grouping[0]
        table = decision_table(
            prep.checked,
            group=group,
            y_true=prep.cols["y_true"],
            y_pred=prep.cols["y_pred"],
            decision_levels=list(prep.decision_levels),
            outcome_levels=list(prep.outcome_levels),
        )
        res = equal_confusion_test_table(
            table,
            alpha=options.alpha,
            posthoc_alpha=options.alpha,
            n_resamples=options.n_resamples,
            rng=_rng(options.seed, "permutation", name),
        )
        _record_equal_confusion(prep, grouping, res, options, acc)
        rates = level_rate_tests(table, alpha=options.alpha, margin=options.margin,
                                 margin_ratio=options.margin_ratio)
        acc.references[name] = rates.reference
        acc.sizes[name] = {str(g): int(k) for g, k in table.sum(axis=1).items()}
        levels.append(rates.table.assign(grouping=name))
        if options.ordered:
            shifts = ordinal_shift_tests(table, reference=rates.reference, alpha=options.alpha)
            ordinal.append(shifts.assign(grouping=name))
    level_tests = level_verdicts(pd.concat(levels, ignore_index=True), alpha=options.alpha)
    for column in ("group", "reference", "level"):
        level_tests[column] = level_tests[column].astype(str)
    level_tests = level_tests[LEVEL_TEST_COLUMNS]
    ordinal_tests = None
    if ordinal:
        ordinal_tests = pd.concat(ordinal, ignore_index=True).drop(columns=["pvalue_adj", "significant_adj"])
        ordinal_tests = adjust_pvalues(ordinal_tests, method="holm", pvalue="pvalue", alpha=options.alpha,
                                       suffix="adj")
        for column in ("group", "reference"):
            ordinal_tests[column] = ordinal_tests[column].astype(str)
        ordinal_tests = ordinal_tests[ORDINAL_TEST_COLUMNS]
    return level_tests, ordinal_tests


def _report_levels(options: AuditOptions, prep: _LevelsPrepared, level_tests, ordinal_tests) -> dict:
    """The levels part of the report's context (plain values; the templates escape them)."""
    def p_text(p: float) -> str:
        return "n/a" if not np.isfinite(p) else "< 0.001" if p < 0.001 else f"= {p:.3f}"

    disparities = [
        {
            "grouping": r["grouping"], "group": r["group"], "reference": r["reference"],
            "condition": "everyone" if r["condition"] == "all" else r["condition"].replace("y_true=", ""),
            "all": r["condition"] == "all", "level": r["level"],
            "value_group": f"{r['value_group']:.3f}", "value_reference": f"{r['value_reference']:.3f}",
            "estimate": f"{r['estimate']:+.3f}", "ci_low": f"{r['ci_low']:+.3f}",
            "ci_high": f"{r['ci_high']:+.3f}",
            "p_adj": p_text(r["pvalue_adj"]),
        }
        for r in level_tests[level_tests["verdict"] == "disparity"].to_dict(orient="records")
    ]
    counts = level_tests["verdict"].value_counts()
    shifts = []
    if ordinal_tests is not None:
        for r in ordinal_tests[ordinal_tests["significant_adj"]].to_dict(orient="records"):
            shifts.append(
                {
                    "grouping": r["grouping"], "group": r["group"], "reference": r["reference"],
                    "all": r["condition"] == "all", "condition": r["condition"].replace("y_true=", ""),
                    "direction": "higher" if r["zscore"] > 0 else "lower",
                    "mean_group": f"{r['mean_score_group']:.2f}",
                    "mean_reference": f"{r['mean_score_reference']:.2f}",
                    "p_adj": p_text(r["pvalue_adj"]),
                }
            )
    return {
        "decision_levels": list(prep.decision_levels),
        "outcome_levels": list(prep.outcome_levels),
        "ordered": options.ordered,
        "total": int(level_tests["pvalue"].notna().sum()),
        "verdict_counts": [(v, int(counts.get(v, 0))) for v in ("disparity", "equivalent", "inconclusive",
                                                               "undefined")],
        "disparities": disparities,
        "n_ordinal": 0 if ordinal_tests is None else int(ordinal_tests["pvalue"].notna().sum()),
        "shifts": shifts,
        "margin": (
            f"{options.margin:g}" if options.margin_ratio is None else f"ratio {options.margin_ratio:g}"
        ),
        "caveats": [
            "A significant difference says the disparity is unlikely to be chance in these data; it does not "
            "say why it arises, nor whether it is unfair in context.",
            "Tests treat people as independent. The shares of the levels of one group sum to 1, so their "
            "tests are dependent; Holm's adjustment is valid under any dependence.",
            "Intervals of the share differences are score intervals (Miettinen and Nurminen 1985), 95 %.",
        ],
    }


def run_levels_audit(options: AuditOptions) -> AuditResult:
    """The multi-level audit: checks, tests and outputs written into ``options.out`` (as
    :func:`fairstats.audit.run_audit`, nothing written on bad input)."""
    target, _, _, acc, prep, warned = _start(options, _prepare_levels)
    tmp = new_work_folder(target)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            level_tests, ordinal_tests = _analyse(prep, options, acc)
            equal = _finish_equal(acc, options.alpha)
            residuals = pd.concat(acc.residuals, ignore_index=True)
            tests = pd.DataFrame(columns=TEST_COLUMNS)
            figures = _figures(acc, tests, tmp, prep.labels)
        for w in caught:
            if issubclass(w.category, UserWarning) and "Cochran" not in str(w.message):
                acc.notes.append(one_line(w.message))
        notes = tuple(dict.fromkeys(acc.notes))
        frames = [(equal, "equal_confusion"), (residuals, "residuals"), (level_tests, "level_tests")]
        if ordinal_tests is not None:
            frames.append((ordinal_tests, "ordinal_tests"))
        _write_tables(tmp, frames)
        levels = _report_levels(options, prep, level_tests, ordinal_tests)
        write_report(tmp, options, prep, acc, equal, residuals, tests, figures, levels=levels)
        swap_into_place(tmp, target)
    except OutFolderError as err:
        discard(tmp)
        raise AuditError(str(err)) from None
    except BaseException:
        discard(tmp)
        raise
    summary = _summary(options, prep, equal, tests, notes, options.out).splitlines()
    counts = ", ".join(f"{k} {v}" for v, k in levels["verdict_counts"])
    extra = [f"  per-level shares vs the largest group ({levels['total']} comparisons, Holm): {counts}"]
    if ordinal_tests is not None:
        extra.append(
            f"  ordinal shifts (linear-by-linear): {int(ordinal_tests['significant_adj'].sum())} of "
            f"{levels['n_ordinal']} significant after Holm"
        )
    summary[0] = (
        f"fairstats audit: {prep.n:,} people, decision levels {', '.join(prep.decision_levels)} "
        f"({'ordered' if options.ordered else 'unordered'}), alpha = {options.alpha:g}"
    )
    summary = "\n".join([*summary[:-1], *extra, summary[-1]])
    return AuditResult(
        equal_confusion=equal,
        residuals=residuals,
        tests=level_tests,
        notes=notes,
        summary=summary,
        out=options.out,
        warnings=warned,
    )
