"""``fairstats audit --decision-levels``: the audit of a decision with more than two levels (issue 17 A).

The same input checks, work folder, equal confusion test, residuals, Cramér's V interval and report as the
binary audit (:mod:`fairstats.auditing.tables`), on the group × (decision level, outcome level) table of
:func:`fairstats.decision_table`; instead of paper B's binary outcome tests, the per-level share comparisons
of :func:`fairstats.level_rate_tests` and, for ordered levels, :func:`fairstats.ordinal_shift_tests`, each
family adjusted by Holm over all groupings. Extra files: ``level_tests.csv`` and ``ordinal_tests.csv``.
"""

from __future__ import annotations

import warnings

import pandas as pd

from fairstats._contingency import ContingencyTable
from fairstats._format import pvalue_relation
from fairstats.auditing.options import AuditOptions
from fairstats.auditing.prepare import LevelsPrepared
from fairstats.auditing.tables import (
    TEST_COLUMNS,
    Tables,
    equal_confusion_rows,
    finish_equal,
    task_rng,
    user_warnings,
)
from fairstats.confusion import equal_confusion_test
from fairstats.levels import decision_table, level_rate_tests, level_verdicts
from fairstats.multiplicity import adjust_pvalues
from fairstats.ordinal import ordinal_shift_tests

__all__ = ["LEVEL_TEST_COLUMNS", "ORDINAL_TEST_COLUMNS", "level_context", "level_summary", "levels_tables"]

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


def levels_tables(prep: LevelsPrepared, options: AuditOptions) -> Tables:
    """Equal confusion test, residuals, per-level and ordinal tests of every grouping."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        levels, ordinal, tested = [], [], []
        references, sizes = {}, {}
        for grouping in prep.groupings:
            name = grouping.name
            table = decision_table(
                prep.checked,
                group=grouping.group,
                y_true=prep.cols["y_true"],
                y_pred=prep.cols["y_pred"],
                decision_levels=list(prep.decision_levels),
                outcome_levels=list(prep.outcome_levels),
            )
            res = equal_confusion_test(
                ContingencyTable.from_observed(table),
                alpha=options.alpha,
                posthoc_alpha=options.alpha,
                n_resamples=options.n_resamples,
                rng=task_rng(options.seed, "permutation", name),
            )
            tested.append(equal_confusion_rows(prep, grouping, res, options))
            rates = level_rate_tests(table, alpha=options.alpha, margin=options.margin,
                                     margin_ratio=options.margin_ratio)
            references[name] = rates.reference
            sizes[name] = {str(g): int(k) for g, k in table.sum(axis=1).items()}
            levels.append(rates.table.assign(grouping=name))
            if options.ordered:
                shifts = ordinal_shift_tests(table, reference=rates.reference, alpha=options.alpha).table
                ordinal.append(shifts.assign(grouping=name))
        level_tests = level_verdicts(pd.concat(levels, ignore_index=True), alpha=options.alpha)
        for column in ("group", "reference", "level"):
            level_tests[column] = level_tests[column].astype(str)
        level_tests = level_tests[LEVEL_TEST_COLUMNS]
        ordinal_tests = None
        if ordinal:
            ordinal_tests = pd.concat(ordinal, ignore_index=True)
            ordinal_tests = ordinal_tests.drop(columns=["pvalue_adj", "significant_adj"])
            ordinal_tests = adjust_pvalues(ordinal_tests, method="holm", pvalue="pvalue", alpha=options.alpha,
                                           suffix="adj")
            for column in ("group", "reference"):
                ordinal_tests[column] = ordinal_tests[column].astype(str)
            ordinal_tests = ordinal_tests[ORDINAL_TEST_COLUMNS]
        equal = finish_equal([test.row for test in tested], options.alpha)
        residuals = pd.concat([test.residuals for test in tested], ignore_index=True)
    return Tables(
        equal_confusion=equal,
        residuals=residuals,
        tests=pd.DataFrame(columns=TEST_COLUMNS),
        groupings=tuple(test.grouping for test in tested),
        results={test.grouping.name: test.result for test in tested},
        references=references,
        sizes=sizes,
        notes=tuple(note for test in tested for note in test.notes),
        warned=tuple(user_warnings(caught)),
        level_tests=level_tests,
        ordinal_tests=ordinal_tests,
    )


def level_context(options: AuditOptions, prep: LevelsPrepared, level_tests, ordinal_tests) -> dict:
    """The levels part of the report's context (plain values; the templates escape them)."""
    disparities = [
        {
            "grouping": r["grouping"], "group": r["group"], "reference": r["reference"],
            "condition": "everyone" if r["condition"] == "all" else r["condition"].replace("y_true=", ""),
            "all": r["condition"] == "all", "level": r["level"],
            "value_group": f"{r['value_group']:.3f}", "value_reference": f"{r['value_reference']:.3f}",
            "estimate": f"{r['estimate']:+.3f}", "ci_low": f"{r['ci_low']:+.3f}",
            "ci_high": f"{r['ci_high']:+.3f}",
            "p_adj": pvalue_relation(r["pvalue_adj"]),
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
                    "p_adj": pvalue_relation(r["pvalue_adj"]),
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
        "margin": options.margin_text.removeprefix("margin ").replace("ratio margin", "ratio"),
        "caveats": [
            "A significant difference says the disparity is unlikely to be chance in these data; it does not "
            "say why it arises, nor whether it is unfair in context.",
            "Tests treat people as independent. The shares of the levels of one group sum to 1, so their "
            "tests are dependent; Holm's adjustment is valid under any dependence.",
            "Intervals of the share differences are score intervals (Miettinen and Nurminen 1985), 95 %.",
        ],
    }


def level_summary(summary: list[str], prep: LevelsPrepared, options: AuditOptions, levels: dict,
                  ordinal_tests) -> list[str]:
    """The terminal summary's lines of a multi-level audit from the binary audit's ``summary`` lines."""
    counts = ", ".join(f"{k} {v}" for v, k in levels["verdict_counts"])
    extra = [f"  per-level shares vs the largest group ({levels['total']} comparisons, Holm): {counts}"]
    if ordinal_tests is not None:
        extra.append(
            f"  ordinal shifts (linear-by-linear): {int(ordinal_tests['significant_adj'].sum())} of "
            f"{levels['n_ordinal']} significant after Holm"
        )
    first = (
        f"fairstats audit: {prep.n:,} people, decision levels {', '.join(prep.decision_levels)} "
        f"({'ordered' if options.ordered else 'unordered'}), alpha = {options.alpha:g}"
    )
    return [first, *summary[1:], *extra]
