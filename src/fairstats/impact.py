r"""Impact ratios in the regulators' terms: the four-fifths rule (29 CFR 1607.4(D)) and NYC Local Law 144.

A category's **selection rate** is the share of its people selected (or, for a tool that scores, its
**scoring rate**: the share scoring strictly above the whole sample's median); its **impact ratio** is that
rate divided by the rate of the most selected category (6 RCNY § 5-300). The EEOC's Uniform Guidelines call a
ratio below four fifths "generally regarded" as evidence of adverse impact, and let statistical significance
override it either way. :func:`impact_ratios` reports per category the counts, the rates, the ratio with a
score interval, the companions practitioners use (the pooled two-proportion z test, Fisher's exact test, the
shortfall, whether one selection reverses the reading) and a three-way four-fifths verdict that says whether
the data can tell: ``below 4/5``, ``at or above 4/5`` or ``inconclusive`` (with the size that would decide).
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from fairstats._best import FOUR_FIFTHS, best_intervals, family_holm, n_to_decide, selections_to_reverse
from fairstats._deprecation import renamed_keywords
from fairstats._proportions import fisher_test, pooled_z_test, ratio_score_interval
from fairstats._result import Result
from fairstats._validation import CheckedFrame, level_iv
from fairstats._warnings import ImpactRatioUndefinedWarning
from fairstats.counts import COUNT_COLUMN, Counts
from fairstats.groups import intersection_label

__all__ = [
    "BELOW",
    "FOUR_FIFTHS",
    "FOUR_FIFTHS_VERDICTS",
    "ImpactRatioUndefinedWarning",
    "ImpactRatiosResult",
    "INCONCLUSIVE",
    "NOT_BELOW",
    "UNDEFINED",
    "UNKNOWN_CATEGORY",
    "impact_ratios",
]

#: The whole (family-level) interval of the impact ratio is below 0.8.
BELOW = "below 4/5"
#: The whole (family-level) interval is at or above 0.8.
NOT_BELOW = "at or above 4/5"
#: The interval contains 0.8: the data cannot tell on which side of four fifths the ratio lies.
INCONCLUSIVE = "inconclusive"
#: The ratio cannot be computed (nobody in the category, no selection in the comparison category).
UNDEFINED = "undefined"
#: The values of ``four_fifths`` for a compared category.
FOUR_FIFTHS_VERDICTS = (BELOW, NOT_BELOW, INCONCLUSIVE, UNDEFINED)
#: ``category`` of the row counting the people of an unknown category (``unknown``, ``missing_as_unknown``).
UNKNOWN_CATEGORY = "unknown"

_SELECTED = "__fairstats_selected__"
_TIED = "__fairstats_tied__"

COLUMNS = (
    "grouping", "category", "role", "n", "share", "selected", "selection_rate", "ties_at_median", "reference",
    "reference_rate", "impact_ratio", "impact_ratio_ci_low", "impact_ratio_ci_high", "ci_level",
    "four_fifths", "ratio_below_four_fifths", "z_statistic", "z_pvalue", "z_pvalue_holm", "fisher_pvalue",
    "fisher_pvalue_holm", "shortfall", "selections_to_reverse", "reversed_by_one", "n_to_decide",
    "excluded_reason", "rate",
)


@dataclass(frozen=True, eq=False)
class ImpactRatiosResult(Result):
    """Result of :func:`impact_ratios`: one row per category of each grouping.

    Attributes
    ----------
    table : pandas.DataFrame
        Columns ``grouping`` (the columns joined by ``" x "``), ``category`` (its label; intersections as
        :meth:`fairstats.ContingencyTable.from_frame` labels them), ``role`` (``reference``, ``compared``,
        ``excluded`` (``min_share``), ``unknown`` or ``empty`` (n = 0)), ``n``, ``share`` (n over all people
        of the data),
        ``selected`` (people selected, or scoring above the median), ``selection_rate`` (the selection or
        scoring rate, see ``rate``), ``ties_at_median`` (people whose score equals the median; scoring rate
        only), ``reference`` and ``reference_rate`` (the comparison category), ``impact_ratio``,
        ``impact_ratio_ci_low``, ``impact_ratio_ci_high`` and ``ci_level`` (the family-level interval; with
        ``reference="max"`` of the ratio to the truly most selected category, the reference's row too),
        ``four_fifths`` (one of :data:`FOUR_FIFTHS_VERDICTS` for a compared category, empty otherwise),
        ``ratio_below_four_fifths`` (the plain reading of the point estimate), ``z_statistic``, ``z_pvalue``,
        ``z_pvalue_holm``, ``fisher_pvalue``, ``fisher_pvalue_holm``, ``shortfall``,
        ``selections_to_reverse``, ``reversed_by_one``, ``n_to_decide``, ``excluded_reason`` (why the row has
        no ratio or no verdict, else empty) and ``rate`` (``"selection rate"`` or ``"scoring rate"``).
    groupings : tuple of tuple of str
        The groupings, in the order asked.
    references : dict
        Grouping name -> the category every other category of it is compared with (None when there is none).
    alpha : float
        Family-wise level: Holm's adjustment and the Bonferroni intervals over the ``family_size``
        comparisons.
    family_size : int
        Comparisons over all groupings: each category against a named reference; with ``reference="max"``
        every pair of the grouping's categories (``k (k - 1) / 2`` for ``k`` categories).
    confidence_level : float
        Level of each interval, ``1 - alpha / family_size``.
    scoring_rate : bool
        Whether the rates are scoring rates.
    median : float
        The whole sample's median score (scoring rate; NaN otherwise).
    n : int
        People in the data (unknown categories included).
    method : str
        What was computed, with its sources.
    """

    table: pd.DataFrame
    groupings: tuple[tuple[str, ...], ...]
    references: dict
    alpha: float
    family_size: int
    confidence_level: float
    scoring_rate: bool
    median: float
    n: int
    method: str

    _table = "table"

    def to_record(self) -> dict[str, object]:
        """The scalar fields as a dict (without ``table``; ``groupings`` as names joined by ``"; "``)."""
        return {
            "groupings": "; ".join(" x ".join(g) for g in self.groupings),
            "alpha": self.alpha,
            "family_size": self.family_size,
            "confidence_level": self.confidence_level,
            "scoring_rate": self.scoring_rate,
            "median": self.median,
            "n": self.n,
            "method": self.method,
        }


# --------------------------------------------------------------------------------------------------------
# the interval and the tests of one comparison
# --------------------------------------------------------------------------------------------------------


# --------------------------------------------------------------------------------------------------------
# input checks
# --------------------------------------------------------------------------------------------------------


def _groupings_iv(group: object) -> list[tuple[str, ...]]:
    """``"sex"`` -> one grouping; ``["sex", "race"]`` -> their intersection; a list holding lists or tuples
    (``["sex", "race", ("sex", "race")]``) -> several groupings, a name standing for itself."""
    message = (
        "`group` must be a column name, a list of column names (their intersection), or a list of groupings "
        f"such as ['sex', 'race', ('sex', 'race')], got {group!r}"
    )
    if isinstance(group, str):
        return [(group,)]
    if not isinstance(group, Sequence) or not group:
        raise TypeError(message)
    if all(isinstance(g, str) for g in group):
        columns = tuple(dict.fromkeys(group))
        return [columns]
    groupings = []
    for item in group:
        if isinstance(item, str):
            columns = (item,)
        elif isinstance(item, Sequence) and item and all(isinstance(c, str) for c in item):
            columns = tuple(dict.fromkeys(item))
        else:
            raise TypeError(message)
        if columns in groupings:
            raise ValueError(f"`group` lists the grouping {' x '.join(columns)!r} twice")
        groupings.append(columns)
    return groupings


def _unknown_iv(unknown: object) -> tuple:
    if unknown is None:
        return ()
    if isinstance(unknown, str) or not isinstance(unknown, Sequence | set | frozenset):
        values = (unknown,)
    else:
        values = tuple(unknown)
    for value in values:
        if value is None or (isinstance(value, float) and math.isnan(value)):
            raise ValueError(
                "`unknown` lists a missing value; missing group values are counted as unknown with "
                "`missing_as_unknown=True`"
            )
    return values


def _reference_iv(reference: object, groupings: list[tuple[str, ...]]) -> dict[str, object]:
    names = [" x ".join(g) for g in groupings]
    if isinstance(reference, str) and reference == "max":
        return dict.fromkeys(names, "max")
    if isinstance(reference, Mapping):
        for key in reference:
            if key not in names:
                raise ValueError(f"`reference`: {key!r} is not a grouping; groupings: {names!r}")
        return {name: reference.get(name, "max") for name in names}
    if len(groupings) > 1:
        raise ValueError(
            f"`reference` {reference!r}: with several groupings give a dict grouping -> category "
            f"(groupings: {names!r}), or 'max'"
        )
    return {names[0]: reference}


def _count(data: object, columns: list[str], where: str) -> tuple[pd.DataFrame, dict[str, list]]:
    """The data counted over ``columns`` (missing values kept), and each pandas categorical column's
    declared categories (so that a category without anybody is reported, not lost)."""
    from fairstats.counts import count_frame

    declared: dict[str, list] = {}
    if isinstance(data, Counts):
        return data.select(columns).to_frame(), declared
    if isinstance(data, CheckedFrame):
        data = data.frame
    if isinstance(data, pd.DataFrame):
        for c in columns:
            if c in data.columns and isinstance(data[c].dtype, pd.CategoricalDtype):
                declared[c] = list(data[c].cat.categories)
    table = count_frame(data, columns, where=where)
    table = table[table[COUNT_COLUMN] > 0].reset_index(drop=True)
    if table.empty:
        raise ValueError(f"{where} is empty (0 rows)")
    for c in columns:
        if isinstance(table[c].dtype, pd.CategoricalDtype):
            table[c] = table[c].astype(object)
    return table, declared


def _declared_iv(categories, group_columns, table, unknown, missing_as_unknown, where) -> dict[str, list]:
    """``categories`` checked: a dict of group columns to distinct values, covering every value found."""
    if categories is None:
        return {}
    if not isinstance(categories, Mapping):
        raise TypeError(f"`categories` must be a dict column -> list of values, got {categories!r}")
    out = {}
    for column, values in categories.items():
        if column not in group_columns:
            raise ValueError(f"`categories`: {column!r} is not a `group` column; they are {group_columns!r}")
        if isinstance(values, str) or not isinstance(values, Sequence) or not values:
            raise TypeError(f"`categories`[{column!r}] must be a non-empty list of values, got {values!r}")
        values = list(dict.fromkeys(values))
        found = table[column].to_numpy(dtype=object)
        for value in found:
            if (missing_as_unknown and _is_missing(np.array([value], dtype=object))[0]) or any(
                _same(value, u) for u in unknown
            ):
                continue
            if not any(_same(value, v) for v in values):
                raise ValueError(
                    f"{where}: column {column!r} has the value {value!r}, not among `categories`[{column!r}] "
                    f"{values!r}"
                )
        out[column] = values
    return out


def _selected_iv(table: pd.DataFrame, column: str, favorable: object, where: str) -> np.ndarray:
    """Each counted row's selection (``y_pred == favorable``), its column checked."""
    values = table[column]
    distinct = pd.unique(values.to_numpy())
    if pd.api.types.is_bool_dtype(values) or pd.api.types.is_numeric_dtype(values):
        bad = [v for v in distinct if v not in (0, 1)]
        if bad:
            value = bad[0].item() if isinstance(bad[0], np.generic) else bad[0]
            raise ValueError(
                f"{where}: column {column!r} (`y_pred`) must hold 0/1, got the value {value!r}; for a "
                "score pass `scoring_rate=True`"
            )
        if isinstance(favorable, bool) or favorable not in (0, 1):
            raise ValueError(
                f"`favorable` must be 0 or 1 for the 0/1 column {column!r}, got {favorable!r}"
            )
        return (values.to_numpy() == favorable)
    if not any(v == favorable for v in distinct):
        shown = sorted(str(v) for v in distinct)[:8]
        raise ValueError(
            f"`favorable`: {favorable!r} does not occur in column {column!r} (`y_pred`), whose values "
            f"are {shown!r}"
        )
    return np.array([v == favorable for v in values.to_numpy()], dtype=bool)


def _weighted_median(values: np.ndarray, weights: np.ndarray) -> float:
    """Median of the sample in which ``values[i]`` occurs ``weights[i]`` times (the mean of the two middle
    values when the size is even), computed exactly from the counts."""
    order = np.argsort(values, kind="stable")
    values, cumulative = values[order], np.cumsum(weights[order])
    total = int(cumulative[-1])
    low = values[np.searchsorted(cumulative, (total - 1) // 2 + 1)]  # the ((N-1)//2)-th value, 0-based
    high = values[np.searchsorted(cumulative, total // 2 + 1)]
    return float(low) if low == high else float((low + high) / 2)


def _score_iv(table: pd.DataFrame, score: str, where: str) -> tuple[np.ndarray, np.ndarray, float]:
    """``(above, tied, median)`` for a score column: strictly above the whole sample's median, at it."""
    values = table[score]
    if pd.api.types.is_bool_dtype(values) or not pd.api.types.is_numeric_dtype(values):
        raise ValueError(
            f"{where}: column {score!r} (`y_pred` with `scoring_rate=True`) must hold numeric scores, got "
            f"{values.dtype}"
        )
    numbers_ = values.to_numpy(dtype=float)
    bad = ~np.isfinite(numbers_)
    if bad.any():
        raise ValueError(
            f"{where}: column {score!r} has a score that is not a finite number, "
            f"{float(numbers_[bad][0])!r}"
        )
    median = _weighted_median(numbers_, table[COUNT_COLUMN].to_numpy())
    return numbers_ > median, numbers_ == median, median + 0.0  # -0.0 shown as 0.0


def _is_missing(values: np.ndarray) -> np.ndarray:
    return pd.isna(pd.Series(values, dtype=object)).to_numpy()


# --------------------------------------------------------------------------------------------------------
# the categories of one grouping
# --------------------------------------------------------------------------------------------------------


def _categories(table, columns, unknown, declared, where):
    """Rows ``(label, values, n, selected, ties, is_unknown)`` of one grouping, known categories sorted by
    their values, declared (categorical) categories without anybody added with n = 0, the unknown last."""
    parts = [table[c].to_numpy(dtype=object) for c in columns]
    unknown_rows = np.zeros(len(table), dtype=bool)
    for values in parts:
        unknown_rows |= _is_missing(values)
        if unknown:
            unknown_rows |= np.array([any(_same(v, u) for u in unknown) for v in values], dtype=bool)
    n = table[COUNT_COLUMN].to_numpy()
    known = table.loc[~unknown_rows, [*columns]].copy()
    known["__n"] = n[~unknown_rows]
    known["__x"] = (table[_SELECTED].to_numpy() * n)[~unknown_rows]
    known["__t"] = (table[_TIED].to_numpy() * n)[~unknown_rows]
    summed = known.groupby(list(columns), sort=False, dropna=False)[["__n", "__x", "__t"]].sum().reset_index()
    try:
        summed = summed.sort_values(list(columns), kind="stable")
    except TypeError:
        raise TypeError(f"`group` {list(columns)!r}: a column mixes values that cannot be sorted") from None
    rows = []
    seen = set()
    for record in summed.itertuples(index=False):
        values = tuple(record[: len(columns)])
        label = intersection_label(values)
        seen.add(values)
        rows.append((label, int(record[-3]), int(record[-2]), int(record[-1]), False))
    if all(c in declared for c in columns):
        for values in itertools.product(*(declared[c] for c in columns)):
            if values not in seen and not any(_same(v, u) for v in values for u in unknown):
                rows.append((intersection_label(values), 0, 0, 0, False))
    labels = [r[0] for r in rows]
    if UNKNOWN_CATEGORY in labels:
        raise ValueError(
            f"{where}: `group` {list(columns)!r} has a category named {UNKNOWN_CATEGORY!r}, the label of the "
            f"unknown category; name it in `unknown` to count it as unknown"
        )
    if len(set(labels)) != len(labels):
        duplicated = next(label for label in labels if labels.count(label) > 1)
        raise ValueError(f"{where}: `group` {list(columns)!r}: two categories have the label {duplicated!r}")
    if unknown_rows.any():
        rows.append(
            (
                UNKNOWN_CATEGORY,
                int(n[unknown_rows].sum()),
                int((table[_SELECTED].to_numpy() * n)[unknown_rows].sum()),
                int((table[_TIED].to_numpy() * n)[unknown_rows].sum()),
                True,
            )
        )
    return rows


def _same(value: object, unknown_value: object) -> bool:
    try:
        return bool(value == unknown_value)
    except (TypeError, ValueError):
        return False


# --------------------------------------------------------------------------------------------------------
# the public function
# --------------------------------------------------------------------------------------------------------


@renamed_keywords(selected="y_pred")
def impact_ratios(
    data: object,
    *,
    group: str | Sequence[str] | Sequence[str | Sequence[str]],
    y_pred: str,
    reference: object = "max",
    favorable: object = 1,
    scoring_rate: bool = False,
    min_share: float | None = None,
    unknown: object = None,
    missing_as_unknown: bool = False,
    categories: Mapping[str, Sequence[object]] | None = None,
    alpha: float = 0.05,
) -> ImpactRatiosResult:
    r"""Selection (or scoring) rates, impact ratios and three-way four-fifths verdicts per category.

    Parameters
    ----------
    data : pandas.DataFrame, Counts or another engine's frame
        One row per person (polars, pyarrow, DuckDB, Spark frames are counted in their engine; a
        :class:`fairstats.Counts` over the group columns and ``y_pred`` is used as it is).
    group : str, list of str, or list of groupings, keyword-only
        ``"sex"``: the categories of one column; ``["sex", "race"]``: the categories of their intersection
        (labelled as :meth:`fairstats.ContingencyTable.from_frame`); a list holding lists or tuples, e.g.
        ``["sex", "race", ("sex", "race")]``: each grouping in one call (LL144's sex, race/ethnicity and
        intersectional categories), all in one multiplicity family.
    y_pred : str, keyword-only
        The decision column, as every function of fairstats names it: 0/1 (or bool), or labels of which
        ``favorable`` names the selected one; with ``scoring_rate=True`` a numeric score. (Until 0.4 also
        accepted as ``selected``, with a DeprecationWarning.)
    reference : "max", a category, or a dict grouping -> category, default "max"
        The category each rate is divided by: ``"max"`` the most selected category of each grouping (LL144's
        and the Uniform Guidelines' choice; the first in order on a tie), or a named category (the ratio may
        then exceed 1). With several groupings a dict keyed by grouping name (``"sex x race"``); groupings it
        does not name use ``"max"``.
    favorable : default 1
        The value of ``y_pred`` that means selected (0 or 1 for a 0/1 column; a label otherwise, which
        must occur in the column).
    scoring_rate : bool, default False
        ``y_pred`` is a score; a person counts as selected when the score is strictly above the median of
        all people of the data (unknown categories included); ties at the median are not above, and their
        number is reported per category (``ties_at_median``).
    min_share : float, optional
        LL144's 2 % rule (``min_share=0.02``): categories with fewer than this share of all the data's people
        are excluded from the impact ratios, their row kept with ``n``, the rate, ``impact_ratio`` empty and
        the reason in ``excluded_reason``. The rule *permits* the exclusion; the auditor must justify it.
    unknown : value or list of values, optional
        Values of the group columns that mean "unknown" (e.g. ``"Unknown"``, ``"Declined"``): their people are
        counted in one row ``category = "unknown"`` per grouping (an intersection is unknown when any of its
        columns is), shown with their rate and excluded from the ratios.
    missing_as_unknown : bool, default False
        Count missing group values (NaN/None/null) as unknown; without it a missing group value is an error,
        never dropped silently.
    categories : dict column -> list of values, optional
        The categories a group column must report (e.g. the EEO-1 race/ethnicity list): one declared without
        anybody gets a row with n = 0 and an ``undefined`` ratio (for an intersection, every combination of
        declared values); a value found in the data but not declared (nor unknown) is an error. A pandas
        categorical column declares its categories itself.
    alpha : float, default 0.05
        Family-wise level: each interval is at ``1 - alpha / m`` (Bonferroni over the ``m`` comparisons of
        all groupings; with ``reference="max"`` every pair of categories), the verdicts read from it, and
        Holm's adjustment of the p-values over the same comparisons.

    Returns
    -------
    ImpactRatiosResult
        Its ``table`` holds a row per category (see :class:`ImpactRatiosResult`).

    Raises
    ------
    ValueError
        Missing column; a missing group value without ``missing_as_unknown``; a missing or non-0/1 value of
        ``y_pred``; ``favorable`` that does not occur; a score that is not a finite number; a named
        ``reference`` that is not a category with people, is unknown or is excluded by ``min_share``;
        ``min_share`` or ``alpha`` outside (0, 1); no rows.
    TypeError
        ``group``, ``y_pred`` or a flag of the wrong type; ``data`` not a data frame.

    Warns
    -----
    ImpactRatioUndefinedWarning
        A ratio cannot be computed: a category without anybody (n = 0, e.g. a declared categorical level
        absent after filters), or no selection in the comparison category (nobody selected anywhere, or every
        score at or below the median). Its ``four_fifths`` is ``undefined`` with the reason, never a 0. Also
        when the pooled z test is undefined (everybody of both categories selected): ``z_pvalue`` NaN.

    Notes
    -----
    For category :math:`g` with :math:`x_g` of :math:`n_g` people selected and the comparison category
    :math:`r`, the impact ratio is :math:`\mathrm{IR}_g = (x_g / n_g) / (x_r / n_r)` (6 RCNY § 5-300). Its
    interval inverts the Miettinen–Nurminen score test of :math:`p_g / p_r = \rho` (variance at the
    restricted maximum-likelihood estimates, with the :math:`N / (N - 1)` correction; statsmodels
    ``score_test_proportions_2indep(compare="ratio", correction=True)``): the :math:`\rho` with
    :math:`|z(\rho)| \le z_{1 - \alpha / (2m)}`, found by Brent's method. This is the interval statsmodels'
    ``confint_proportions_2indep(compare="ratio", method="score")`` means to give (Koopman's, by Nam's
    cubic, with the same correction); that closed form returns complex or wrong bounds when a category has
    all or none of its people selected (e.g. 0 of 5 against 5 of 5 gives [0.5, 0.5]), so the score test is
    inverted directly; both agree to 1e-8 elsewhere (tests/unit/test_impact.py).

    The verdict: ``below 4/5`` when the whole interval is below 0.8, ``at or above 4/5`` when it is at or
    above 0.8, else ``inconclusive``; ``n_to_decide`` is then the smallest size of the category at which the
    same rates, with the comparison category grown in proportion, would decide it. The companions:
    ``z_pvalue`` the pooled two-proportion z test ("two standard deviations"; statsmodels
    ``proportions_ztest``), ``fisher_pvalue`` Fisher's exact test of the 2 x 2 table (scipy ``fisher_exact``,
    two-sided), both against the comparison category and Holm-adjusted over the family;
    ``shortfall`` :math:`= n_g x_r / n_r - x_g`, the selections the category lacks to reach the comparison
    rate; ``selections_to_reverse`` the fewest of its people whose decision, changed, moves the ratio to the
    other side of 0.8 (added selections when below, removed when at or above; the comparison rate kept), and
    ``reversed_by_one`` whether one suffices (the Uniform Guidelines' "small numbers" caution).
    The reference category itself has ``impact_ratio`` 1 and no test. With ``reference="max"`` the data choose
    the reference, and intervals against it would miss more often than α says (five equal categories: 0.10 at
    α = 0.05). The score intervals of every pair of categories are taken instead (Bonferroni over the pairs),
    and each category's interval, the reference's too, is :math:`[\min_h L_{gh}, \min(1, \min_h U_{gh})]`:
    it covers :math:`p_g / \max_h p_h`, the ratio to the truly most selected category, for every category
    at once with probability at least 1 − α (Hsu 1996, Ch. 4; ``fairstats._best``). ``n_to_decide`` then
    grows all categories alike; the z and Fisher p-values are Holm-adjusted over all the pairs.

    References
    ----------
    NYC Department of Consumer and Worker Protection, Rules of the City of New York, Title 6, §§ 5-300
    (definitions of selection rate, scoring rate, impact ratio), 5-301 (bias audit: categories,
    intersections, unknowns, the 2 % exclusion), 5-303 (published results). Uniform Guidelines on Employee
    Selection Procedures, 29 CFR 1607.4(D) (the four-fifths rule). O. Miettinen, M. Nurminen, "Comparative
    analysis of two rates", Statistics in Medicine 4(2), 213-226, 1985; P. A. R. Koopman, "Confidence
    intervals for the ratio of two binomial proportions", Biometrics 40(2), 513-517, 1984; J. Nam,
    Biometrics 51(4), 1517-1524, 1995; S. Holm, Scand. J. Statist. 6, 65-70, 1979; J. C. Hsu, *Multiple
    Comparisons*, Chapman & Hall 1996, Ch. 4.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"sex": ["F"] * 50 + ["M"] * 50,
    ...                    "hired": [1] * 15 + [0] * 35 + [1] * 25 + [0] * 25})
    >>> res = impact_ratios(df, group="sex", y_pred="hired")
    >>> res.table[["category", "selection_rate", "impact_ratio", "four_fifths"]].to_numpy().tolist()
    [['F', 0.3, 0.6, 'inconclusive'], ['M', 0.5, 1.0, '']]
    """
    groupings = _groupings_iv(group)
    if not isinstance(y_pred, str):
        raise TypeError(f"`y_pred` must be one column name, got {y_pred!r}")
    for name, flag in (("scoring_rate", scoring_rate), ("missing_as_unknown", missing_as_unknown)):
        if not isinstance(flag, bool):
            raise TypeError(f"`{name}` must be True or False, got {flag!r}")
    if min_share is not None:
        min_share = level_iv(min_share, "min_share")
    alpha = level_iv(alpha, "alpha")
    unknown = _unknown_iv(unknown)
    references = _reference_iv(reference, groupings)
    group_columns = list(dict.fromkeys(c for g in groupings for c in g))
    if y_pred in group_columns:
        raise ValueError(f"`y_pred` {y_pred!r} is also a `group` column")
    for c in [*group_columns, y_pred]:
        if c == COUNT_COLUMN and not isinstance(data, Counts):
            raise ValueError(f"column {c!r}: {COUNT_COLUMN!r} is the count column of fairstats and cannot "
                             "be a group or decision column; rename it")
    where = "`data`"
    table, declared = _count(data, [*group_columns, y_pred], where)
    declared.update(_declared_iv(categories, group_columns, table, unknown, missing_as_unknown, where))
    counts = table[COUNT_COLUMN].to_numpy()
    missing = _is_missing(table[y_pred].to_numpy(dtype=object))
    if missing.any():
        raise ValueError(
            f"{where}: column {y_pred!r} (`y_pred`) has {int(counts[missing].sum())} missing "
            "value(s) (NaN)"
        )
    if not missing_as_unknown:
        for c in group_columns:
            isna = _is_missing(table[c].to_numpy(dtype=object))
            if isna.any():
                raise ValueError(
                    f"{where}: column {c!r} (`group`) has {int(counts[isna].sum())} missing value(s) (NaN); "
                    "pass missing_as_unknown=True (CLI: --missing-as-unknown) to count them as unknown"
                )
    if scoring_rate:
        above, tied, median = _score_iv(table, y_pred, where)
    else:
        above = _selected_iv(table, y_pred, favorable, where)
        tied, median = np.zeros(len(table), dtype=bool), float("nan")
    table = table.assign(**{_SELECTED: above.astype(np.int64), _TIED: tied.astype(np.int64)})
    total = int(counts.sum())
    rate_name = "scoring rate" if scoring_rate else "selection rate"

    rows: list[dict] = []
    chosen: dict[str, object] = {}
    for columns in groupings:
        name = " x ".join(columns)
        categories = _categories(table, columns, unknown, declared, where)
        chosen[name] = _grouping_rows(
            rows, name, categories, references[name], total, min_share, scoring_rate, median, rate_name,
            all_tied=bool(tied.all()),
        )
    frame = pd.DataFrame(rows)
    compared = (frame["role"] == "compared") & frame["impact_ratio"].notna()
    data_chosen = {name: references[name] == "max" for name in chosen}
    m = _family_size(frame, compared, data_chosen)
    level = 1 - alpha / m if m else 1 - alpha
    frame, pairs = _compare(frame, compared, data_chosen, alpha / m if m else alpha, level)
    frame = family_holm(frame, compared, pairs, alpha)
    frame = frame[list(COLUMNS)]
    for column in ("n", "selected"):
        frame[column] = frame[column].astype(np.int64)
    for column in ("ties_at_median", "selections_to_reverse", "n_to_decide"):
        frame[column] = frame[column].astype("Int64")
    frame["reversed_by_one"] = frame["reversed_by_one"].astype("boolean")
    frame["ratio_below_four_fifths"] = frame["ratio_below_four_fifths"].astype("boolean")
    method = (
        f"{rate_name}s and impact ratios (6 RCNY § 5-300: rate / rate of the "
        + ("most selected category" if all(r == "max" for r in references.values()) else "reference category")
        + "); interval: Miettinen-Nurminen score interval of a ratio of two independent proportions "
        f"(statsmodels score_test_proportions_2indep, inverted), {level:.6g} each = Bonferroni over {m} "
        f"comparison(s) at family level {1 - alpha:g}"
        + ("; the most selected category chosen from the data: every pair of categories compared, each "
           "category's interval for its ratio to the truly most selected one deduced from them (Hsu 1996, "
           "Ch. 4)" if any(data_chosen.values()) else "")
        + "; four-fifths verdict (29 CFR 1607.4(D)) from that interval; z: pooled two-proportion z test "
        "(statsmodels proportions_ztest); Fisher: scipy fisher_exact, two-sided; Holm over the family"
    )
    return ImpactRatiosResult(
        table=frame.reset_index(drop=True),
        groupings=tuple(groupings),
        references=chosen,
        alpha=alpha,
        family_size=m,
        confidence_level=level,
        scoring_rate=scoring_rate,
        median=float(median),
        n=total,
        method=method,
    )


def _grouping_rows(rows, name, categories, reference, total, min_share, scoring_rate, median, rate_name,
                   all_tied):
    """Append one grouping's rows (role, rates, reference, ratio) to ``rows``; returns its reference."""
    nan = float("nan")
    base = []
    for label, n, x, ties, is_unknown in categories:
        share = n / total
        if is_unknown:
            role, reason = "unknown", "unknown category: counted and shown, not in the impact ratios"
        elif n == 0:
            role, reason = "empty", "no people in this category (n = 0): its rate and ratio are undefined"
        elif min_share is not None and share < min_share:
            role = "excluded"
            reason = (f"less than min_share = {min_share:g} of the data ({n} of {total}): excluded from the "
                      "impact ratios at the auditor's choice, to be justified")
        else:
            role, reason = "compared", ""
        base.append({
            "grouping": name, "category": label, "role": role, "n": n, "share": share, "selected": x,
            "selection_rate": x / n if n else nan, "ties_at_median": ties if scoring_rate else pd.NA,
            "excluded_reason": reason, "rate": rate_name,
        })
    candidates = [r for r in base if r["role"] == "compared"]
    if reference == "max":
        from fractions import Fraction  # (the import of fairstats stays light)

        ref = max(candidates, key=lambda r: Fraction(r["selected"], r["n"]), default=None)
    else:
        matches = [r for r in base if r["category"] == str(reference)]
        if not matches or matches[0]["role"] != "compared":
            why = (f"it is {matches[0]['role']} ({matches[0]['excluded_reason']})" if matches
                   else f"categories: {[r['category'] for r in base if r['role'] != 'unknown']!r}")
            raise ValueError(f"`reference` {reference!r} is not a compared category of {name!r}: {why}")
        ref = matches[0]
    undefined_why = ""
    if ref is None:
        undefined_why = "no category left to compare with (all excluded or empty)"
    elif ref["selected"] == 0:
        if reference == "max":
            if scoring_rate and all_tied:
                undefined_why = (f"every score equals the median ({median!r}): nobody scores above it, "
                                 "the scoring rates are all 0")
            elif scoring_rate:
                undefined_why = (f"nobody in the compared categories scores above the median ({median!r}); "
                                 "the scoring rates are all 0")
            else:
                undefined_why = "nobody is selected in any compared category: every selection rate is 0"
        else:
            undefined_why = f"the reference category {ref['category']!r} has no selections (rate 0)"
    for r in base:
        r.update(reference=None if ref is None else ref["category"],
                 reference_rate=nan if ref is None else ref["selection_rate"],
                 impact_ratio=nan, four_fifths="", count_ref=np.nan, n_ref=np.nan)
        if ref is not None:
            r["count_ref"], r["n_ref"] = ref["selected"], ref["n"]
        if r is ref and not undefined_why:
            r.update(role="reference", impact_ratio=1.0)
        elif r["role"] == "empty":
            r["four_fifths"] = UNDEFINED
            warnings.warn(ImpactRatioUndefinedWarning(f"{name} {r['category']!r}: {r['excluded_reason']}"),
                          stacklevel=3)
        elif r["role"] == "compared":
            if undefined_why:
                r.update(four_fifths=UNDEFINED, excluded_reason=f"impact ratio undefined: {undefined_why}")
                warnings.warn(ImpactRatioUndefinedWarning(f"{name} {r['category']!r}: {undefined_why}"),
                              stacklevel=3)
            else:
                r["impact_ratio"] = r["selection_rate"] / ref["selection_rate"]
        rows.append(r)
    return None if ref is None or undefined_why else ref["category"]


def _candidates(frame: pd.DataFrame, name: str) -> pd.DataFrame:
    """The rows of grouping ``name`` that take part in its ratios: the compared categories and the reference,
    when the grouping's ratios are defined."""
    part = frame[(frame["grouping"] == name) & frame["role"].isin(["compared", "reference"])]
    return part[part["impact_ratio"].notna()]


def _family_size(frame: pd.DataFrame, compared: pd.Series, data_chosen: dict[str, bool]) -> int:
    """Intervals in the Bonferroni family: each compared category against a named reference; every pair of
    categories of a grouping whose reference is the most selected one, chosen from the data."""
    m = 0
    for name, chosen in data_chosen.items():
        if chosen:
            k = len(_candidates(frame, name))
            m += k * (k - 1) // 2
        else:
            m += int((compared & (frame["grouping"] == name)).sum())
    return m


def _compare(frame, compared, data_chosen, alpha_each, level):
    """The interval, verdict, tests and practical checks of each compared category with a ratio; and the
    pairs' p-values of the groupings whose reference was chosen from the data (for Holm)."""
    nan = float("nan")
    best = {}
    pairs = []
    for name, chosen in data_chosen.items():
        part = _candidates(frame, name)
        if chosen and len(part) > 1:
            intervals, to_decide, pvalues = best_intervals(part, alpha_each)
            best.update({(name, g): (intervals[g], to_decide[g]) for g in intervals})
            pairs += [(name, *p) for p in pvalues]
    new = {c: [] for c in ("impact_ratio_ci_low", "impact_ratio_ci_high", "ci_level", "four_fifths",
                            "ratio_below_four_fifths", "z_statistic", "z_pvalue", "fisher_pvalue",
                            "shortfall", "selections_to_reverse", "reversed_by_one", "n_to_decide")}
    for i, row in enumerate(frame.itertuples(index=False)):
        if not compared.iloc[i]:
            for c in new:
                new[c].append(row.four_fifths if c == "four_fifths" else (pd.NA if c in (
                    "selections_to_reverse", "reversed_by_one", "n_to_decide", "ratio_below_four_fifths")
                    else nan))
            if row.role == "reference" and (row.grouping, row.category) in best:
                (low, high), _ = best[(row.grouping, row.category)]
                new["impact_ratio_ci_low"][-1], new["impact_ratio_ci_high"][-1] = low, high
                new["ci_level"][-1] = level
            continue
        x, n, xr, nr = int(row.selected), int(row.n), int(row.count_ref), int(row.n_ref)
        if (row.grouping, row.category) in best:
            (low, high), to_decide = best[(row.grouping, row.category)]
        else:
            low, high = ratio_score_interval(float(x), float(n), float(xr), float(nr), alpha_each)
            to_decide = None
        if high < FOUR_FIFTHS:
            verdict = BELOW
        elif low >= FOUR_FIFTHS:
            verdict = NOT_BELOW
        else:
            verdict = INCONCLUSIVE
        statistic, pvalue = pooled_z_test(x, n, xr, nr)
        if not np.isfinite(pvalue):
            warnings.warn(ImpactRatioUndefinedWarning(
                f"{row.grouping} {row.category!r}: z test undefined (everybody of both categories selected)"),
                stacklevel=3)
        to_reverse = selections_to_reverse(x, n, xr, nr)
        if verdict != INCONCLUSIVE:
            to_decide = pd.NA
        elif to_decide is None:
            to_decide = n_to_decide(x, n, xr, nr, alpha_each)
        new["impact_ratio_ci_low"].append(low)
        new["impact_ratio_ci_high"].append(high)
        new["ci_level"].append(level)
        new["four_fifths"].append(verdict)
        new["ratio_below_four_fifths"].append(5 * x * nr < 4 * xr * n)
        new["z_statistic"].append(statistic)
        new["z_pvalue"].append(pvalue)
        new["fisher_pvalue"].append(fisher_test(x, n, xr, nr))
        new["shortfall"].append(n * xr / nr - x)
        new["selections_to_reverse"].append(to_reverse)
        new["reversed_by_one"].append(to_reverse <= 1)
        new["n_to_decide"].append(to_decide)
    frame = frame.copy()
    for c, values in new.items():
        frame[c] = pd.Series(values, index=frame.index, dtype=object)
    for c in ("impact_ratio_ci_low", "impact_ratio_ci_high", "ci_level", "z_statistic", "z_pvalue",
              "fisher_pvalue", "shortfall"):
        frame[c] = frame[c].astype(float)
    frame["n_to_decide"] = [pd.NA if pd.isna(v) else int(v) for v in frame["n_to_decide"]]
    return frame, pairs
