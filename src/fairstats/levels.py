r"""Decisions with more than two levels: the group × (decision, outcome) table and per-level rate comparisons.

A graded decision (COMPAS: Low / Medium / High risk) with :math:`k \ge 2` levels and an outcome with
:math:`m \ge 2` levels give each person one of :math:`k m` cells, the multi-level confusion matrix. Paper A's
equal confusion test is a test of independence between group and cell and works for any number of cells:

* :func:`decision_table` counts the groups × cells table in the declared level order, for
  :func:`fairstats.equal_confusion_test` of ``ContingencyTable.from_observed(table)`` (chi-squared,
  Cramér's V, adjusted residuals);
* :func:`level_rate_tests` compares, level by level, the share of each decision level in each group with the
  reference group's (overall, and among the people of each outcome level, the multi-level analogue of the
  false and true positive rates), with a score test, its interval, an equivalence test, Holm's adjustment and
  the three-way verdicts of :func:`fairstats.three_way_verdicts`.

For ordered levels :func:`fairstats.ordinal_shift_tests` adds the linear-by-linear association test.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from fairstats._contingency import column_names_iv, drop_empty, group_codes
from fairstats._deprecation import attribute
from fairstats._proportions import STATSMODELS_ERRORS, score_confint, score_test_or_reason
from fairstats._result import Result
from fairstats._validation import checked_frame, level_iv
from fairstats.counts import as_rows
from fairstats.equivalence import DEFAULT_MARGIN, margin_iv, rate_equivalence
from fairstats.multiplicity import adjust_pvalues, three_way_verdicts
from fairstats.outcomes import UndefinedTestWarning
from fairstats.power import DEFAULT_POWER

__all__ = [
    "LevelRateTestsResult",
    "comparisons",
    "decision_table",
    "largest_group",
    "level_rate_tests",
    "level_verdicts",
    "levels_iv",
    "table_levels",
]


def __getattr__(name: str) -> object:
    return attribute(__name__, name)  # a result class renamed after its function (issue 38): warn, name it


#: ``condition`` of the comparisons over all people (the others are ``"y_true=<level>"``).
ALL_PEOPLE = "all"


def levels_iv(levels: object, *, name: str) -> list:
    """``levels`` as a list of at least two distinct values; ``ValueError`` naming ``name`` otherwise."""
    if isinstance(levels, str) or not isinstance(levels, Sequence):
        raise TypeError(f"`{name}` must be a list of levels, got {levels!r}")
    levels = list(levels)
    if len(levels) < 2:
        raise ValueError(f"`{name}` must list at least two levels, got {levels!r}")
    seen = set()
    for value in levels:
        if value in seen:
            raise ValueError(f"`{name}` lists the level {value!r} twice: {levels!r}")
        seen.add(value)
    return levels


def _codes_iv(values: pd.Series, levels: list, *, name: str, column: str, levels_name: str) -> np.ndarray:
    codes = pd.Index(levels).get_indexer(values.to_numpy())
    bad = np.flatnonzero(codes < 0)
    if bad.size:
        row, value = values.index[bad[0]], values.iloc[bad[0]]
        value = value.item() if isinstance(value, np.generic) else value
        raise ValueError(
            f"`{name}`: column {column!r} has the value {value!r} (row {row!r}) that is not "
            f"among `{levels_name}` {levels!r}"
        )
    return codes


def decision_table(
    data: pd.DataFrame,
    *,
    group: str | Sequence[str],
    y_true: str,
    y_pred: str,
    decision_levels: Sequence[object],
    outcome_levels: Sequence[object] | None = None,
) -> pd.DataFrame:
    """Groups × (decision level, outcome level) counts: the multi-level confusion matrix of each group.

    Parameters
    ----------
    data : pandas.DataFrame, Counts or another engine's frame
        One row per person (a :class:`fairstats.Counts` or a polars/DuckDB/... frame is counted first).
    group : str or list of str
        Sensitive attribute column(s), as :meth:`fairstats.ContingencyTable.from_frame`.
    y_true, y_pred : str
        Columns of the outcome and the decision.
    decision_levels : list
        Every level of ``y_pred``, at least two, in their order (low to high for an ordered decision).
    outcome_levels : list, optional
        Every level of ``y_true`` (default: its distinct values, sorted; at least two).

    Returns
    -------
    pandas.DataFrame
        Integer counts, index ``group`` (sorted, as :meth:`fairstats.ContingencyTable.from_frame`), one column
        ``"pred=<d>, true=<o>"`` per cell, decision level first, both in the declared order. Groups and cells
        without any case are left out, as in :meth:`fairstats.ContingencyTable.from_frame`; ``attrs`` holds
        ``notes``, ``cells`` (cell, y_pred, y_true), ``group_columns``, ``decision_levels`` and
        ``outcome_levels``, so that :meth:`fairstats.ContingencyTable.from_observed` and
        :func:`level_rate_tests` take it as it is.

    Raises
    ------
    ValueError
        Fewer than two or duplicated levels; a value of ``y_pred`` (``y_true``) not among the declared levels
        (named with its column and row); a missing column or value; a single group; fewer than two cells.
    TypeError
        Column names not strings, levels not a list.

    Notes
    -----
    Row :math:`i` is group :math:`i`'s :math:`k \\times m` confusion matrix flattened decision-major, as paper
    A's Fig. 1 flattens the binary one; the equal confusion test on it has :math:`(q-1)(km-1)` degrees of
    freedom (fewer when cells are empty). Nothing is merged or dropped silently: an undeclared value is an
    error, an empty cell a note.

    References
    ----------
    F. Gursoy, I. A. Kakadiaris, "Equal Confusion Fairness", ICDMW 2022, Sec. III-A (any number of cells).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"g": list("aabb"), "y": [0, 1, 0, 1], "d": ["Low", "High", "Low", "Medium"]})
    >>> t = decision_table(df, group="g", y_true="y", y_pred="d", decision_levels=["Low", "Medium", "High"])
    >>> list(t.columns), t.to_numpy().tolist()
    (['pred=Low, true=0', 'pred=Medium, true=1', 'pred=High, true=1'], [[1, 0, 1], [1, 1, 0]])
    """
    group_columns = column_names_iv(group, y_true, y_pred)
    decision_levels = levels_iv(decision_levels, name="decision_levels")
    columns = [*group_columns, y_true, y_pred]
    data, weight = as_rows(data, columns)
    frame = checked_frame(data, columns).frame
    if outcome_levels is None:
        try:
            outcome_levels = sorted(pd.unique(frame[y_true].to_numpy()).tolist())
        except TypeError:
            raise TypeError(
                f"`y_true`: column {y_true!r} mixes values that cannot be sorted; give `outcome_levels`"
            ) from None
        if len(outcome_levels) < 2:
            raise ValueError(
                f"`y_true`: column {y_true!r} has a single value {outcome_levels[0]!r}; give `outcome_levels`"
            )
    outcome_levels = levels_iv(outcome_levels, name="outcome_levels")
    ip = _codes_iv(
        frame[y_pred], decision_levels, name="y_pred", column=y_pred, levels_name="decision_levels"
    )
    it = _codes_iv(frame[y_true], outcome_levels, name="y_true", column=y_true, levels_name="outcome_levels")
    row_full, row_labels = group_codes(frame, group_columns)
    m = len(outcome_levels)
    cell_rows = [(f"pred={d}, true={o}", d, o) for d in decision_levels for o in outcome_levels]
    q_full, r_full = len(row_labels), len(cell_rows)
    counts = np.bincount(row_full * r_full + ip * m + it, weights=weight, minlength=q_full * r_full)
    counts = counts.astype(np.int64).reshape(q_full, r_full)
    observed, kept, notes = drop_empty(
        counts,
        row_labels,
        cell_rows,
        group_columns=group_columns,
        single_group_where="in `data`",
        few_cells_head=f"`y_true` {y_true!r} / `y_pred` {y_pred!r} give fewer than two cells",
    )
    observed.attrs["notes"] = notes
    observed.attrs["cells"] = [{"cell": c, "y_pred": d, "y_true": o} for c, d, o in kept]
    observed.attrs["group_columns"] = list(group_columns)
    observed.attrs["decision_levels"] = list(decision_levels)
    observed.attrs["outcome_levels"] = list(outcome_levels)
    return observed


def table_levels(observed: pd.DataFrame) -> tuple[np.ndarray, list, np.ndarray, list]:
    """Decision and outcome code of each column of a :func:`decision_table` (with the level lists).

    Raises ``ValueError`` when ``observed`` lacks the ``attrs`` that :func:`decision_table` writes."""
    if not isinstance(observed, pd.DataFrame):
        raise TypeError(f"`observed` must be a pandas DataFrame, got {type(observed).__name__}")
    cells = observed.attrs.get("cells")
    if cells is None or "decision_levels" not in observed.attrs:
        raise ValueError(
            "`observed` must come from fairstats.decision_table (its attrs name each cell's decision and "
            "outcome level)"
        )
    decision_levels = list(observed.attrs["decision_levels"])
    outcome_levels = list(observed.attrs.get("outcome_levels") or [])
    key = {c["cell"]: (c["y_pred"], c["y_true"]) for c in cells}
    pred = np.array([decision_levels.index(key[c][0]) for c in observed.columns])
    if not outcome_levels:
        outcome_levels = list(dict.fromkeys(key[c][1] for c in observed.columns))
    true = np.array([outcome_levels.index(key[c][1]) for c in observed.columns])
    return pred, decision_levels, true, outcome_levels


def comparisons(observed: pd.DataFrame, reference: object | None, by_outcome: bool):
    """What the per-group comparisons of a :func:`decision_table` share: ``(reference, counts, reference_row,
    groups, conditions, pred, decision_levels)``; ``groups`` are ``(row, group)`` pairs without the reference,
    ``conditions`` ``(name, column mask)`` pairs (``"all"``, then ``"y_true=<o>"`` with ``by_outcome``)."""
    pred, decision_levels, true, outcome_levels = table_levels(observed)
    if reference is None:
        reference = largest_group(observed)
    elif reference not in observed.index:
        raise ValueError(f"`reference` {reference!r} is not a group of `observed`: {list(observed.index)!r}")
    counts = observed.to_numpy(dtype=float)
    ref = counts[list(observed.index).index(reference)]
    conditions = [(ALL_PEOPLE, np.ones(len(true), dtype=bool))]
    if by_outcome:
        conditions += [(f"y_true={o}", true == j) for j, o in enumerate(outcome_levels)]
    groups = [(i, g) for i, g in enumerate(observed.index) if g != reference]
    return reference, counts, ref, groups, conditions, pred, decision_levels


def largest_group(observed: pd.DataFrame) -> object:
    """The group with the most people (the first of the table's order on a tie): the audit's reference."""
    sizes = observed.sum(axis=1).to_numpy()
    return observed.index[int(np.argmax(sizes))]


@dataclass(frozen=True, eq=False)
class LevelRateTestsResult(Result):
    """Per-level comparisons of decision shares between each group and a reference group.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per (group, condition, decision level): ``group, reference, condition`` (``"all"`` or
        ``"y_true=<level>"``), ``level, count_group, n_group, count_reference, n_reference, value_group,
        value_reference`` (shares), ``estimate`` (difference of the shares), ``ci_low, ci_high``
        (score interval at ``confidence_level``), ``statistic, pvalue`` (score test), ``reason`` (why the
        test is undefined, else ""), the equivalence columns ``margin_low, margin_high, equivalence_ci_low,
        equivalence_ci_high, equivalence_pvalue, mde``, ``pvalue_adj`` (Holm), ``pvalue_bh``,
        ``equivalence_pvalue_adj``, ``verdict``, ``verdict_note`` and ``method``.
    reference : object
        The reference group.
    alpha : float
        Family-wise level of the verdicts (the whole table is one family).
    """

    table: pd.DataFrame
    reference: object
    alpha: float

    _table = "table"


def _score_test(count_a: float, nobs_a: float, count_b: float, nobs_b: float, confidence_level: float):
    """Score test and interval of the difference of two proportions (NaN with a reason when undefined)."""
    nan = float("nan")
    if not (nobs_a > 0 and nobs_b > 0):
        return nan, nan, nan, nan, "no case in the denominator of " + ("the group" if nobs_a <= 0 else
                                                                        "the reference")
    stat, p, error = score_test_or_reason(count_a, nobs_a, count_b, nobs_b)
    if error:
        return nan, nan, nan, nan, error
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            low, high = score_confint(count_a, nobs_a, count_b, nobs_b, "diff", 1 - confidence_level)
        except STATSMODELS_ERRORS:
            low = high = nan
    if not np.isfinite(p):
        reason = "score test p-value is not finite (the share is 0 or 1 in both)"
        return nan, nan, float(low), float(high), reason
    return stat, p, float(low), float(high), ""


def level_rate_tests(
    observed: pd.DataFrame,
    *,
    reference: object | None = None,
    by_outcome: bool = True,
    alpha: float = 0.05,
    confidence_level: float = 0.95,
    margin: float = DEFAULT_MARGIN,
    margin_ratio: float | None = None,
    power: float = DEFAULT_POWER,
) -> LevelRateTestsResult:
    r"""Share of each decision level in each group against the reference group's, with three-way verdicts.

    Parameters
    ----------
    observed : pandas.DataFrame
        A :func:`decision_table`.
    reference : optional
        The group every other group is compared with (default: the largest, as ``fairstats audit``).
    by_outcome : bool, default True
        Also compare the shares among the people of each outcome level (``condition = "y_true=<o>"``): for a
        binary outcome, the share of "High" among people who did not reoffend is the multi-level false
        positive rate.
    alpha : float, default 0.05
        Family-wise level of Holm's adjustment and the verdicts over the whole table.
    confidence_level : float, default 0.95
        Of the score interval of each difference.
    margin, margin_ratio, power
        Of the equivalence test of each difference (:func:`fairstats.rate_equivalence`).

    Returns
    -------
    LevelRateTestsResult

    Raises
    ------
    ValueError, TypeError
        ``observed`` not a :func:`decision_table`, an unknown ``reference``, a level outside (0, 1).

    Warns
    -----
    UndefinedTestWarning
        A comparison without a case in a denominator (e.g. a group with nobody of some outcome level), or a
        share of 0 or 1 in both groups: its p-value is NaN with a ``reason`` and its verdict ``undefined``,
        never "no disparity".

    Notes
    -----
    For group :math:`g`, decision level :math:`d` and condition :math:`C` (everyone, or outcome level
    :math:`o`), the share is :math:`\hat p_g = n_g(d, C) / n_g(C)`; :math:`\hat p_g - \hat p_r` is tested by
    the score test for two independent proportions (Miettinen and Nurminen 1985; statsmodels
    ``test_proportions_2indep(method="score")``, as :func:`fairstats.outcome_tests`), with the score interval
    (``confint_proportions_2indep``) and the TOST of :func:`fairstats.rate_equivalence`. The :math:`k`
    shares of a group sum to 1, so its :math:`k` tests are dependent; Holm's adjustment is valid under any
    dependence.
    With two decision levels and ``condition = "all"`` the comparison of the favourable level is paper B's
    group fairness test.

    References
    ----------
    O. Miettinen and M. Nurminen, Statistics in Medicine 4(2), 1985; S. Holm, Scand. J. Statist. 6, 1979;
    paper B, Sec. II-B (group fairness), II-E (equalized odds) for the binary case.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"g": ["a"] * 60 + ["b"] * 40, "y": [0, 1] * 50,
    ...                    "d": ["Low"] * 30 + ["High"] * 30 + ["Low"] * 30 + ["High"] * 10})
    >>> t = decision_table(df, group="g", y_true="y", y_pred="d", decision_levels=["Low", "High"])
    >>> res = level_rate_tests(t, by_outcome=False)
    >>> res.reference, res.table[["group", "level", "estimate"]].to_numpy().tolist()
    ('a', [['b', 'Low', 0.25], ['b', 'High', -0.25]])
    """
    reference, counts, ref, groups, conditions, pred, decision_levels = comparisons(
        observed, reference, by_outcome
    )
    alpha = level_iv(alpha, "alpha")
    confidence_level = level_iv(confidence_level, "confidence_level")
    margin = margin_iv(margin, "margin")
    if margin_ratio is not None:
        margin_ratio = margin_iv(margin_ratio, "margin_ratio")
    rows = []
    for i, g in groups:
        for condition, in_condition in conditions:
            for d, level in enumerate(decision_levels):
                cell = in_condition & (pred == d)
                count_a, nobs_a = float(counts[i, cell].sum()), float(counts[i, in_condition].sum())
                count_b, nobs_b = float(ref[cell].sum()), float(ref[in_condition].sum())
                stat, p, low, high, reason = _score_test(count_a, nobs_a, count_b, nobs_b, confidence_level)
                if reason:
                    warnings.warn(
                        UndefinedTestWarning(f"{g} vs {reference}, {condition}, level {level}: {reason}"),
                        stacklevel=2,
                    )
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # an undefined equivalence test is reported by its row
                    eq = rate_equivalence(count_a, nobs_a, count_b, nobs_b, margin=margin,
                                          margin_ratio=margin_ratio, alpha=alpha, power=power)
                share_a = count_a / nobs_a if nobs_a > 0 else float("nan")
                share_b = count_b / nobs_b if nobs_b > 0 else float("nan")
                rows.append(
                    {
                        "group": g,
                        "reference": reference,
                        "condition": condition,
                        "level": level,
                        "count_group": count_a,
                        "n_group": nobs_a,
                        "count_reference": count_b,
                        "n_reference": nobs_b,
                        "value_group": share_a,
                        "value_reference": share_b,
                        "estimate": share_a - share_b,
                        "ci_low": low,
                        "ci_high": high,
                        "statistic": stat,
                        "pvalue": p,
                        "reason": reason,
                        "margin_low": eq.margin_low,
                        "margin_high": eq.margin_high,
                        "equivalence_ci_low": eq.ci_low,
                        "equivalence_ci_high": eq.ci_high,
                        "equivalence_pvalue": eq.pvalue,
                        "mde": eq.mde,
                        "method": "score test and interval of two proportions (Miettinen-Nurminen; "
                        "statsmodels); " + eq.method,
                    }
                )
    table = pd.DataFrame(rows)
    return LevelRateTestsResult(table=level_verdicts(table, alpha=alpha), reference=reference, alpha=alpha)


def level_verdicts(table: pd.DataFrame, *, alpha: float) -> pd.DataFrame:
    """Holm and BH p-values and the three-way verdicts over ``table`` (one family); used again by the audit
    over all groupings together."""
    table = table.drop(
        columns=[c for c in ("pvalue_adj", "pvalue_bh", "equivalence_pvalue_adj", "verdict", "verdict_note")
                 if c in table.columns]
    )
    out = adjust_pvalues(table, method="holm", pvalue="pvalue", alpha=alpha, suffix="adj")
    out = adjust_pvalues(out, method="fdr_bh", pvalue="pvalue", alpha=alpha, suffix="bh")
    verdicts = three_way_verdicts(table, alpha=alpha, reason="reason")
    table = table.copy()
    table["pvalue_adj"] = out["pvalue_adj"]
    table["pvalue_bh"] = out["pvalue_bh"]
    table["equivalence_pvalue_adj"] = verdicts["pvalue_holm_equivalence"]
    table["verdict"] = verdicts["verdict"]
    table["verdict_note"] = verdicts["verdict_note"]
    return table
