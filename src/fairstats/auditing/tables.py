"""The audit's tables as a pure function of the prepared data and the options: :func:`binary_tables`.

For each grouping, paper A's equal confusion test with its residuals, Cramér's V interval and Wellek's
equivalence test (:func:`equal_confusion_rows`); paper B's outcome-based tests between each group and the
largest group (bootstrap intervals, or the corrected t over folds; calibration with a score); Holm and
Benjamini-Hochberg over all comparisons and the three-way verdicts. No file is read or written here; every
random choice has its own stream (:func:`task_rng`).
"""

from __future__ import annotations

import sys
import warnings
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from fairstats._contingency import ContingencyTable
from fairstats._resampling import derived_rng as task_rng
from fairstats._rows import TwoGroupRows, two_group_rows
from fairstats._validation import CheckedFrame
from fairstats.auditing.errors import AuditError
from fairstats.auditing.grouping import Grouping
from fairstats.auditing.options import AuditOptions
from fairstats.auditing.prepare import Prepared
from fairstats.auditing.writing import one_line
from fairstats.calibration import calibration_independence_test
from fairstats.confusion import EqualConfusionResult, equal_confusion_test
from fairstats.counts import Counts
from fairstats.cramers_v import cramers_v_interval
from fairstats.equivalence import cramers_v_equivalence
from fairstats.folds import fold_disparity
from fairstats.groups import group_labels
from fairstats.multiplicity import adjust_pvalues, three_way_verdicts
from fairstats.outcomes import OUTCOME_TESTS, outcome_rows_many
from fairstats.power import DEFAULT_POWER

__all__ = [
    "AUDIT_TESTS",
    "EQUAL_CONFUSION_COLUMNS",
    "RESIDUAL_COLUMNS",
    "SCORE_TESTS",
    "SMALL",
    "TEST_COLUMNS",
    "GroupingTest",
    "Tables",
    "binary_tables",
    "equal_confusion_rows",
    "finish_equal",
    "probabilities",
    "score_range_note",
    "task_rng",
    "user_warnings",
]

#: Columns of ``equal_confusion.csv`` (first, in this order) and of ``residuals.csv``.
EQUAL_CONFUSION_COLUMNS = [
    "grouping",
    "statistic",
    "df",
    "pvalue",
    "cramers_v",
    "n",
    "min_expected",
    "cochran_ok",
]
RESIDUAL_COLUMNS = [
    "grouping",
    "group",
    "cell",
    "observed",
    "expected",
    "adjusted_residual",
    "flag_3_29",
    "flag_bonferroni",
]
#: Columns of ``tests.csv``.
TEST_COLUMNS = [
    "grouping",
    "group",
    "reference",
    "test",
    "metric",
    "estimate",
    "ci_low",
    "ci_high",
    "value_group",
    "value_reference",
    "n_group",
    "n_reference",
    "statistic",
    "df",
    "pvalue",
    "pvalue_adj",
    "pvalue_bh",
    "significant",
    "significant_adj",
    "significant_bh",
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
    "note",
]

# Paper B's definitions the audit runs (each metric once: equal opportunity's FNR is 1 - TPR).
AUDIT_TESTS = (
    "group_fairness",
    "equalized_odds",
    "conditional_use_accuracy_equality",
    "overall_accuracy_equality",
    "treatment_equality",
)
SCORE_TESTS = ("balance_positive_class", "balance_negative_class")


#: A comparison whose denominator has fewer cases than this gets a note: its bootstrap interval is unreliable.
SMALL = 10


def user_warnings(caught) -> list[str]:
    """The notes the audit keeps of warnings caught while it ran (Cochran's rule is in the tables)."""
    return [one_line(w.message) for w in caught
            if issubclass(w.category, UserWarning) and "Cochran" not in str(w.message)]  # fmt: skip


@dataclass(frozen=True)
class GroupingTest:
    """One grouping's equal confusion test: the library's result, the row of ``equal_confusion.csv``, the
    rows of ``residuals.csv`` and the test's notes."""

    grouping: Grouping
    result: EqualConfusionResult
    row: dict
    residuals: pd.DataFrame
    notes: tuple[str, ...]


@dataclass(frozen=True)
class Tables:
    """The audit's results in memory (what :class:`fairstats.auditing.Audit` holds and saves)."""

    equal_confusion: pd.DataFrame
    residuals: pd.DataFrame
    tests: pd.DataFrame
    groupings: tuple[Grouping, ...]  # with their groups' labels, in the tables' order
    results: dict[str, EqualConfusionResult]  # grouping name -> the equal confusion test
    references: dict[str, str]  # grouping name -> the reference group ("" with --comparisons pairs)
    sizes: dict[str, dict[str, int]]  # grouping name -> group -> people
    notes: tuple[str, ...]  # the tests' own notes, in the order they arose
    warned: tuple[str, ...]  # warnings caught while the tests ran (user_warnings)
    level_tests: pd.DataFrame | None = None  # multi-level decisions (fairstats.auditing.levels)
    ordinal_tests: pd.DataFrame | None = None


def _equal_confusion(prep: Prepared, grouping: Grouping, options: AuditOptions) -> GroupingTest:
    table = ContingencyTable.from_frame(
        prep.checked, group=grouping.group, y_true=prep.cols["y_true"], y_pred=prep.cols["y_pred"]
    )
    res = equal_confusion_test(
        table,
        group=grouping.group,
        y_true=prep.cols["y_true"],
        y_pred=prep.cols["y_pred"],
        alpha=options.alpha,
        posthoc_alpha=options.alpha,
        n_resamples=options.n_resamples,
        rng=task_rng(options.seed, "permutation", grouping.name),
    )
    return equal_confusion_rows(prep, grouping, res, options, table=table)


def equal_confusion_rows(
    prep, grouping: Grouping, res: EqualConfusionResult, options: AuditOptions,
    table: ContingencyTable | None = None,
) -> GroupingTest:
    """The rows of ``equal_confusion.csv`` and ``residuals.csv`` of one grouping's test result ``res`` (and
    ``table``, the table the test counted, for Cramér's V's interval)
    (``prep``: the prepared data of a two-level or a multi-level audit)."""
    name = grouping.name
    if table is None:
        # a multi-level audit tests the table in the declared level order; V's interval is taken, as it
        # always was, from the table in sorted cell order (the same numbers to the last bit)
        table = ContingencyTable.from_frame(
            prep.checked, group=grouping.group, y_true=prep.cols["y_true"], y_pred=prep.cols["y_pred"]
        )
    v = cramers_v_interval(
        table, group=grouping.group, y_true=prep.cols["y_true"], y_pred=prep.cols["y_pred"]
    )
    eq = cramers_v_equivalence(res.observed, margin=options.margin_v, alpha=options.alpha)
    row = {
        "grouping": name,
        "statistic": res.statistic,
        "df": res.df,
        "pvalue": res.pvalue,
        "cramers_v": res.cramers_v,
        "n": res.n,
        "min_expected": res.cochran_min_expected,
        "cochran_ok": res.cochran_ok,
        "cramers_v_margin": options.margin_v,
        "cramers_v_upper": eq.ci_high,
        "equivalence_pvalue": eq.pvalue,
        "mde": eq.mde,
        "pvalue_permutation": res.pvalue_permutation,
        "n_resamples_permutation": res.n_resamples,
        "cramers_v_estimate": v.estimate,
        "cramers_v_ci_low": v.ci_low,
        "cramers_v_ci_high": v.ci_high,
        "cramers_v_note": v.note,
        "effect_size": res.effect_size,
        "n_groups": int(res.observed.shape[0]),
        "n_cells": int(res.observed.shape[1]),
        "share_expected_ge5": res.cochran_share_ge5,
        "alpha": res.alpha,
        "reject": res.reject,
        "bonferroni_cutoff": res.bonferroni_cutoff,
        "notes": "; ".join(res.notes),
    }
    tidy = res.to_frame()
    residuals = pd.DataFrame(
        {
            "grouping": name,
            "group": tidy["group"].astype(str),
            "cell": tidy["cell"].astype(str),
            "observed": tidy["observed"],
            "expected": tidy["expected"],
            "adjusted_residual": tidy["residual"],
            "flag_3_29": tidy["flag_strict"],
            "flag_bonferroni": tidy["flag_bonferroni"],
            "y_pred": tidy["y_pred"].astype(str),
            "y_true": tidy["y_true"].astype(str),
        }
    )
    labels = tuple(str(g) for g in res.observed.index)
    notes = tuple(f"{name}: {note}" for note in res.notes)
    return GroupingTest(replace(grouping, labels=labels), res, row, residuals, notes)


def _reference(prep: Prepared, test: GroupingTest) -> tuple[str, list[str], pd.Series, dict[str, int]]:
    """The grouping's largest group, all its groups in order, each row's group label, the sizes."""
    rows = prep.data.table if isinstance(prep.data, Counts) else prep.checked
    labels = group_labels(rows, list(test.grouping.columns))
    observed = test.result.observed
    order = list(test.grouping.labels)
    sizes = pd.Series(observed.sum(axis=1).to_numpy(), index=order)
    biggest = max(order, key=lambda g: (int(sizes.get(g, 0)), -order.index(g)))
    return biggest, order, labels, {g: int(sizes.get(g, 0)) for g in order}


def comparisons(order: list[str], biggest: str, options: AuditOptions) -> list[tuple[str, list[str]]]:
    """The comparisons of one grouping as ``(reference, groups compared with it)``: every group against the
    first ``--reference`` label that is one of its groups (else the largest group), or with
    ``--comparisons pairs`` every pair once (each group against every group after it, in order)."""
    if options.comparisons == "pairs":
        return [(r, order[i + 1 :]) for i, r in enumerate(order[:-1])]
    reference = next((r for r in options.reference if r in order), biggest)
    return [(reference, [g for g in order if g != reference])]


@dataclass(frozen=True)
class _Pairs:
    """The rows of one grouping validated once (``two_group_rows``); called with a group, the same rows with
    the masks of that group and the reference: the two-group input of each comparison at the cost of one
    integer comparison over the rows."""

    base: TwoGroupRows
    codes: np.ndarray  # per row, the position of its group in ``index``
    index: dict[str, int]

    @property
    def metrics(self) -> tuple[str, ...]:
        return self.base.metrics

    def __call__(self, g: str) -> TwoGroupRows:
        return replace(self.base, group_a=g, mask_a=self.codes == self.index[g])


def _pairs(prep: Prepared, group, reference: str, others: list[str], y_score, tests) -> _Pairs:
    metrics = list(dict.fromkeys(m for t in tests for m in OUTCOME_TESTS[t]))
    rows = prep.data if isinstance(prep.data, Counts) else prep.checked
    y01, p01 = prep.cols["y01"], prep.cols["p01"]
    base = two_group_rows(rows, group, y01, p01, y_score, (others[0], reference), metrics, 1)
    codes, uniques = pd.factorize(base.labels.to_numpy())
    return _Pairs(base=base, codes=codes, index={str(u): i for i, u in enumerate(uniques)})


def _pair(prep: Prepared, labels: pd.Series, g: str, reference: str) -> pd.DataFrame | Counts:
    """The rows (or counts) of groups ``g`` and ``reference`` only (the fold-based tests): each comparison
    costs what its two groups hold, so the audit grows linearly with the number of groups."""
    keep = labels.isin([g, reference]).to_numpy()
    if isinstance(prep.data, Counts):
        return Counts(table=prep.data.table[keep], keys=prep.data.keys, source=prep.data.source)
    return CheckedFrame(prep.checked.frame[keep], prep.checked.complete)  # rows of a checked frame: checked


def _disparities(
    prep: Prepared, test: GroupingTest, options: AuditOptions, bar
) -> tuple[list[dict], list[str], str, dict[str, int]]:
    """One grouping's comparisons of each group with the reference: rows of ``tests.csv``, notes, the
    reference and the group sizes."""
    biggest, order, labels, sizes = _reference(prep, test)
    found: list[dict] = []
    notes: list[str] = []
    # a score outside [0, 1] has no balance or calibration test here (score_tests.csv has its rank tests)
    y_score = prep.cols["score"] if options.y_score is not None and probabilities(prep) else None
    tests = list(AUDIT_TESTS) + (list(SCORE_TESTS) if y_score else [])
    planned = comparisons(order, biggest, options)
    for reference, others in planned:
        _compare_with(prep, test, options, bar, reference, others, labels, y_score, tests, found, notes)
    return found, notes, planned[0][0] if options.comparisons != "pairs" else "", sizes


def _compare_with(prep, test, options, bar, reference, others, labels, y_score, tests, found, notes) -> None:
    """Each group of ``others`` against ``reference``: rows appended to ``found``, notes to ``notes``."""
    name, group = test.grouping.name, test.grouping.group
    stream = (name,) if options.comparisons != "pairs" else (name, reference)
    if options.fold is None:
        # every group against the reference at once: each comparison's bootstrap on its own stream, the
        # tests, intervals, equivalence and power of all the comparisons' rates in one computation
        pair_of = _pairs(prep, group, reference, others, y_score, tests)
        compared = outcome_rows_many(
            [pair_of(g) for g in others],
            [task_rng(options.seed, "bootstrap", *stream, g) for g in others],
            tests,
            dict.fromkeys(pair_of.metrics, "two-sided"),
            favorable=1,
            alpha=options.alpha,
            n_resamples=options.n_resamples,
            confidence_level=0.95,
            method="BCa",
            warn=False,
            margin=options.margin,
            margin_ratio=options.margin_ratio,
            power=DEFAULT_POWER,
            progress=lambda: bar.update(1),
        )
    for k, g in enumerate(others):
        if options.fold is None:
            rows, boot = compared[k]
            undefined = boot.n_undefined
            for row in rows:
                notes = []
                bootstrapped = row["ci_method"] != "score"  # rates have score intervals, the rest bootstrap
                if not np.isfinite(row["estimate"]):
                    notes.append("undefined in one group (no case in the denominator)")
                elif bootstrapped and min(row["nobs_a"], row["nobs_b"]) < SMALL:
                    notes.append(f"fewer than {SMALL} cases in a denominator: the bootstrap interval is "
                                 "unreliable")
                if bootstrapped and int(undefined[row["metric"]]):
                    notes.append(
                        f"{int(undefined[row['metric']])} resamples undefined, left out of the interval"
                    )
                bca_undefined = boot.ci_method[row["metric"]] == "undefined"
                if bootstrapped and bca_undefined and np.isfinite(row["estimate"]):
                    notes.append("BCa interval undefined (BCaUndefinedWarning)")
                note = "; ".join(notes)
                found.append(
                    {
                        "grouping": name,
                        "group": g,
                        "reference": reference,
                        "test": row["test"],
                        "metric": row["metric"],
                        "estimate": row["estimate"],
                        "ci_low": row["ci_low"],
                        "ci_high": row["ci_high"],
                        "value_group": row["value_a"],
                        "value_reference": row["value_b"],
                        "n_group": row["nobs_a"],
                        "n_reference": row["nobs_b"],
                        "statistic": row["statistic"],
                        "df": np.nan,
                        "pvalue": row["pvalue"],
                        **_equivalence_columns(row),
                        "reason": row["reason"],
                        "method": row["method"]
                        + ("" if row["ci_method"] == "score"
                           else f"; {int(options.n_resamples)}-resample BCa bootstrap interval")
                        + "; " + row["equivalence_method"],
                        "note": note,
                    }
                )
        else:
            metrics = list(dict.fromkeys(m for t in tests for m in OUTCOME_TESTS[t]))
            definition = {m: next(t for t in tests if m in OUTCOME_TESTS[t]) for m in metrics}
            res = fold_disparity(
                _pair(prep, labels, g, reference),
                group=group,
                y_true=prep.cols["y01"],
                y_pred=prep.cols["p01"],
                fold=prep.cols["fold"],
                groups=(g, reference),
                y_score=y_score,
                metrics=metrics,
                favorable=1,
                alpha=options.alpha,
                margin=options.margin,
            )
            n_group = int((labels == g).sum())
            n_ref = int((labels == reference).sum())
            for row in res.table.to_dict(orient="records"):
                found.append(
                    {
                        "grouping": name,
                        "group": g,
                        "reference": reference,
                        "test": definition[row["metric"]],
                        "metric": row["metric"],
                        "estimate": row["estimate"],
                        "ci_low": row["ci_low"],
                        "ci_high": row["ci_high"],
                        "value_group": row["mean_a"],
                        "value_reference": row["mean_b"],
                        "n_group": n_group,
                        "n_reference": n_ref,
                        "statistic": row["statistic_corrected"],
                        "df": row["df_corrected"],
                        "pvalue": row["pvalue_corrected"],
                        **_equivalence_columns(row),
                        "reason": "" if np.isfinite(row["pvalue_corrected"]) else row["note"],
                        "method": (
                            f"corrected resampled t over {row['n_pairs']} folds (Nadeau & Bengio 2003); "
                            f"paired t p = {row['pvalue_paired']:.3g}, "
                            f"pooled t p = {row['pvalue_pooled']:.3g}; TOST on the same corrected t"
                            if np.isfinite(row["pvalue_corrected"])
                            else "corrected resampled t (Nadeau & Bengio 2003): not tested"
                        ),
                        "note": row["note"],
                    }
                )
        if y_score is not None:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                try:
                    people = pd.DataFrame(
                        {
                            "group": labels.to_numpy(),
                            "y_true": prep.data[prep.cols["y01"]].to_numpy(),
                            "y_score": prep.data[prep.cols["score"]].to_numpy(),
                        }
                    )
                    cal = calibration_independence_test(
                        people,
                        group="group",
                        y_true="y_true",
                        y_score="y_score",
                        groups=(g, reference),
                        n_bins=10,
                        favorable=1,
                    )
                except ValueError as err:
                    cal = None
                    notes.append(
                        f"{name}: {g} vs {reference}: calibration test not possible ({one_line(err)})"
                    )
            if cal is not None:
                used = cal.table[cal.table["used"]]
                rate_g = (used["k_protected"].sum() / used["n_protected"].sum()) if len(used) else np.nan
                rate_r = (used["k_unprotected"].sum() / used["n_unprotected"].sum()) if len(used) else np.nan
                found.append(
                    {
                        "grouping": name,
                        "group": g,
                        "reference": reference,
                        "test": "calibration",
                        "metric": "calibration",
                        "estimate": np.nan,
                        "ci_low": np.nan,
                        "ci_high": np.nan,
                        "value_group": rate_g,
                        "value_reference": rate_r,
                        "n_group": float(cal.table["n_protected"].sum()),
                        "n_reference": float(cal.table["n_unprotected"].sum()),
                        "statistic": cal.statistic,
                        "df": float(cal.df),
                        "pvalue": cal.pvalue,
                        "reason": ""
                        if np.isfinite(cal.pvalue)
                        else "no score bin with both groups and both outcomes",
                        "method": (
                            f"sum over {cal.n_bins_used} of 10 score bins of Pearson chi-squared "
                            "(group x outcome); "
                            f"CMH p = {cal.cmh_pvalue:.3g}"
                        ),
                        "note": "; ".join(one_line(w.message) for w in caught)[:300],
                    }
                )
        if options.fold is not None:  # the bootstraps' progress is counted as they are drawn
            bar.update(1)


def probabilities(prep: Prepared) -> bool:
    """Whether the audit's score lies in [0, 1]: paper B's balance tests and the binned calibration test need
    probabilities; the score tests (AUC, distributions) take any number (issue 39, item 5)."""
    score = prep.data[prep.cols["score"]].to_numpy(dtype=float)
    return bool(score.size == 0 or (score.min() >= 0 and score.max() <= 1))


def score_range_note(prep: Prepared, options: AuditOptions) -> str:
    """The note of an audit whose score is not a probability: which tests ran and which did not."""
    score = prep.data[prep.cols["score"]].to_numpy(dtype=float)
    return (f"--y-score {options.y_score!r} holds scores outside [0, 1] (from {score.min():g} to "
            f"{score.max():g}): the AUC and score-distribution tests (score_tests.csv) take any numeric "
            "score; calibration (the binned test in tests.csv, the recalibration tests) and paper B's "
            "balance tests need probabilities in [0, 1] and were not run")


def _equivalence_columns(row: dict) -> dict:
    """The equivalence test's columns of a library result row (outcome_tests, fold_disparity)."""
    return {
        c: row.get(c, np.nan)
        for c in ("margin_low", "margin_high", "equivalence_ci_low", "equivalence_ci_high",
                  "equivalence_pvalue", "mde")
    }  # fmt: skip


def _finish_tests(rows: list[dict], alpha: float) -> pd.DataFrame:
    if not rows:
        return pd.DataFrame(columns=TEST_COLUMNS)
    tests = pd.DataFrame(rows)
    tests = adjust_pvalues(tests, method="holm", pvalue="pvalue", alpha=alpha, suffix="adj")
    tests = adjust_pvalues(tests, method="fdr_bh", pvalue="pvalue", alpha=alpha, suffix="bh")
    tests["significant"] = tests["pvalue"] < alpha
    verdicts = three_way_verdicts(tests, alpha=alpha, reason="reason")
    tests["equivalence_pvalue_adj"] = verdicts["pvalue_holm_equivalence"]
    tests["verdict"] = verdicts["verdict"]
    tests["verdict_note"] = verdicts["verdict_note"]
    return tests[TEST_COLUMNS]


def finish_equal(rows: list[dict], alpha: float) -> pd.DataFrame:
    """``equal_confusion.csv``: the groupings' rows with Wellek's three-way verdicts, columns in order."""
    equal = pd.DataFrame(rows)
    verdicts = three_way_verdicts(equal, alpha=alpha)
    equal["verdict"] = verdicts["verdict"]
    equal["verdict_note"] = verdicts["verdict_note"]
    return equal[EQUAL_CONFUSION_COLUMNS + [c for c in equal.columns if c not in EQUAL_CONFUSION_COLUMNS]]


def _reference_iv(options: AuditOptions, tested: list[GroupingTest]) -> None:
    """Every ``--reference`` label is a group of some grouping (else one line naming the groups there are)."""
    labels = {g for test in tested for g in test.grouping.labels}
    for reference in options.reference:
        if reference not in labels:
            shown = ", ".join(repr(g) for g in sorted(labels)[:20])
            raise AuditError(f"--reference {reference!r} is not a group of any grouping; the groups: {shown}")


def binary_tables(prep: Prepared, options: AuditOptions) -> Tables:
    """The tables of a two-level audit: equal confusion tests, residuals and the outcome comparisons.

    Raises
    ------
    AuditError
        With ``--fold``: no comparison could be tested (no group and reference share two folds).
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tested = [_equal_confusion(prep, grouping, options) for grouping in prep.groupings]
        _reference_iv(options, tested)
        notes = [note for test in tested for note in test.notes]
        if options.y_score is not None and not probabilities(prep):
            notes.append(score_range_note(prep, options))
        k = [len(test.result.observed) for test in tested]
        n_pairs = sum(n * (n - 1) // 2 if options.comparisons == "pairs" else n - 1 for n in k)
        if "IPython" in sys.modules:  # perhaps a notebook: tqdm.auto's widget bar
            from tqdm.auto import tqdm
        else:  # a terminal or a script (tqdm.auto would import its notebook support to find out)
            from tqdm import tqdm

        rows: list[dict] = []
        references, sizes = {}, {}
        with tqdm(
            total=n_pairs,
            desc="fold-based tests" if options.fold else "bootstrap",
            unit="comparison",
            file=sys.stderr,
            disable=None,
            leave=False,
        ) as bar:
            for test in tested:
                found, found_notes, references[test.grouping.name], sizes[test.grouping.name] = _disparities(
                    prep, test, options, bar
                )
                rows += found
                notes += found_notes
        tests = _finish_tests(rows, options.alpha)
        if options.fold is not None and len(tests) and not tests["pvalue"].notna().any():
            raise AuditError(
                f"--fold {options.fold!r}: no comparison could be tested: no group and reference have "
                "metrics in two or more common folds; check the fold column"
            )
        equal = finish_equal([test.row for test in tested], options.alpha)
        residuals = pd.concat([test.residuals for test in tested], ignore_index=True)
        residuals = residuals[RESIDUAL_COLUMNS + [c for c in residuals.columns if c not in RESIDUAL_COLUMNS]]
    return Tables(
        equal_confusion=equal,
        residuals=residuals,
        tests=tests,
        groupings=tuple(test.grouping for test in tested),
        results={test.grouping.name: test.result for test in tested},
        references=references,
        sizes=sizes,
        notes=tuple(notes),
        warned=tuple(user_warnings(caught)),
    )
