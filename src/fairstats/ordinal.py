r"""Ordered decision levels: the linear-by-linear association test, and its use group by group.

When decisions are graded (Low < Medium < High), a disparity often shows as one group's decisions being
*shifted* up or down. The equal confusion test (df :math:`(q-1)(km-1)`) spends its power on every pattern;
the linear-by-linear association test (Agresti 2013, Sec. 3.4.1) spends it on that one, with a single
degree of freedom:

* :func:`linear_by_linear_test` runs it on any table with row and column scores (statsmodels
  ``Table.test_ordinal_association``);
* :func:`ordinal_shift_tests` runs it for each group against the reference group, on the 2 × k table of
  their decisions, over everyone and among the people of each outcome level, with Holm's adjustment.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from fairstats._deprecation import REMOVAL, attribute
from fairstats._result import Result
from fairstats._validation import alternative_iv, level_iv
from fairstats.levels import comparisons
from fairstats.multiplicity import adjust_pvalues
from fairstats.outcomes import UndefinedTestWarning

__all__ = ["LinearByLinearResult", "OrdinalShiftTestsResult", "linear_by_linear_test", "ordinal_shift_tests"]


def __getattr__(name: str) -> object:
    return attribute(__name__, name)  # a result class renamed after its function (issue 38): warn, name it


@dataclass(frozen=True)
class LinearByLinearResult(Result):
    r"""The linear-by-linear association test of one table.

    Attributes
    ----------
    statistic : float
        :math:`M^2 = (n - 1) r^2` (NaN when undefined).
    zscore : float
        :math:`M = \sqrt{n-1}\, r` with the sign of the association (positive: higher row scores go with
        higher column scores).
    pvalue : float
        From the standard normal for ``zscore`` (two-sided: the :math:`\chi^2_1` p-value of :math:`M^2`).
    df : int
        1.
    correlation : float
        Pearson's correlation :math:`r` of the row and column scores over the :math:`n` people.
    n : int
    alternative : str
    row_scores, col_scores : tuple of float
    reason : str
        Why the test is undefined (a margin with a single score: :math:`r` has no variance), else "".
    """

    statistic: float
    zscore: float
    pvalue: float
    df: int
    correlation: float
    n: int
    alternative: str
    row_scores: tuple[float, ...]
    col_scores: tuple[float, ...]
    reason: str

    _record = ("statistic", "zscore", "pvalue", "df", "correlation", "n", "alternative", "reason")


@dataclass(frozen=True, eq=False)
class OrdinalShiftTestsResult(Result):
    r"""Result of :func:`ordinal_shift_tests`: is each group's decision shifted against the reference's?

    Attributes
    ----------
    table : pandas.DataFrame
        One row per (group, condition): ``group, reference, condition`` (``"all"`` or ``"y_true=<level>"``),
        ``n_group, n_reference, mean_score_group, mean_score_reference`` (mean decision score), ``estimate``
        (their difference), ``statistic`` (:math:`M^2`), ``zscore`` (positive: the group's decisions are
        higher), ``df``, ``pvalue``, ``correlation``, ``reason`` (why the test is undefined, else ""),
        ``method``, ``pvalue_adj`` (Holm over the table) and ``significant_adj``.
    reference : object
        The reference group.
    alpha : float
        Level of Holm's adjustment (the whole table is one family).
    scores : tuple of float
        The decision levels' scores, in the levels' order.

    Until 0.4 the result also answers as the DataFrame :func:`ordinal_shift_tests` returned before 0.3
    (``result["pvalue"]``, ``result.query(...)``, ``result.assign(...)``: the table's), with a
    :class:`DeprecationWarning`; use ``result.table``. It is not a DataFrame (``isinstance``, ``len``,
    ``pandas.concat`` and ``result.reference``, now the reference group, not its column, see
    ``docs/migration.rst``).
    """

    table: pd.DataFrame
    reference: object
    alpha: float
    scores: tuple[float, ...]

    _table = "table"

    def _forwarded(self, what: str) -> pd.DataFrame:
        warnings.warn(
            f"ordinal_shift_tests returns an OrdinalShiftTestsResult since fairstats 0.3, no longer a "
            f"DataFrame: use .table{what} (the DataFrame's {what} on the result goes in {REMOVAL})",
            DeprecationWarning,
            stacklevel=3,
        )
        return self.table

    def __getattr__(self, name: str) -> object:
        # only what a DataFrame has and the result does not (a field, a method of Result, a private name
        # is never forwarded: copy and pickle look those up before the fields exist)
        if name.startswith("_") or name in ("table", "reference", "alpha", "scores"):
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        if not hasattr(pd.DataFrame, name) and name not in self.table.columns:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        return getattr(self._forwarded(f".{name}"), name)

    def __getitem__(self, key: object) -> object:
        return self._forwarded("[...]")[key]


def _scores_iv(scores: object, size: int, name: str) -> np.ndarray:
    if scores is None:
        return np.arange(size, dtype=float)
    values = np.asarray(scores, dtype=float)
    if values.shape != (size,) or not np.all(np.isfinite(values)):
        raise ValueError(f"`{name}` must be {size} finite numbers, got {scores!r}")
    return values


def linear_by_linear_test(
    observed: object,
    *,
    row_scores: Sequence[float] | None = None,
    col_scores: Sequence[float] | None = None,
    alternative: str = "two-sided",
) -> LinearByLinearResult:
    r"""Linear-by-linear association test of an r × c table with ordered (scored) rows and columns.

    Parameters
    ----------
    observed : array_like or pandas.DataFrame, shape (r, c)
        Counts (non-negative whole numbers), rows and columns in their order.
    row_scores, col_scores : sequence of float, optional
        Scores of the rows and columns (default: 0, 1, 2, ..., equally spaced, as statsmodels and R's
        ``coin::lbl_test``).
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        ``"greater"``: a positive association (higher rows have higher columns).

    Returns
    -------
    LinearByLinearResult

    Raises
    ------
    ValueError
        Not a 2-D table of at least 2 × 2, negative or non-integer counts, scores of the wrong length.

    Warns
    -----
    UndefinedTestWarning
        All people in one row score or one column score (the correlation has no variance): the result has
        NaN statistic and p-value and a ``reason``.

    Notes
    -----
    With :math:`u_i` the row and :math:`v_j` the column scores and :math:`r` their correlation over the
    :math:`n` people of the table,

    .. math:: M^2 = (n - 1) r^2 \sim \chi^2_1 \quad \text{under independence}

    (Agresti 2013, Eq. 3.15). statsmodels' ``Table(O, shift_zeros=False).test_ordinal_association`` computes
    the standardised statistic :math:`(\sum_{ij} u_i v_j n_{ij} - E) / \mathrm{sd}`, with the mean and
    variance of the permutation distribution given both margins (the variance has the factor
    :math:`1/(n-1)`), which equals :math:`M = \sqrt{n-1}\,r`; here :math:`M^2` is its square.
    ``shift_zeros=False`` matters: statsmodels' default adds 0.5 to every cell of a table with a zero. With
    two rows the test is the Cochran–Armitage trend test of the column scores (Agresti 2013, Sec. 5.3.5);
    with two columns, of the row scores. The scores are the auditor's choice (equally spaced by default).

    References
    ----------
    A. Agresti, *Categorical Data Analysis*, 3rd ed., Wiley 2013, Sec. 3.4.1 (Eq. 3.15, the infant
    malformation example, Table 3.8); statsmodels ``statsmodels.stats.contingency_tables.Table
    .test_ordinal_association``.

    Examples
    --------
    >>> res = linear_by_linear_test([[20, 15, 5], [10, 15, 15]])
    >>> round(res.statistic, 3), res.df
    (8.103, 1)
    """
    from statsmodels.stats.contingency_tables import Table

    alternative_iv(alternative)
    table = np.asarray(observed, dtype=float)
    if table.ndim != 2 or min(table.shape) < 2:
        raise ValueError(f"`observed` must be a 2-D table of at least 2 x 2, got shape {table.shape}")
    if not np.all(np.isfinite(table)) or (table < 0).any() or (table != np.round(table)).any():
        raise ValueError("`observed` must hold non-negative whole numbers (counts)")
    u = _scores_iv(row_scores, table.shape[0], "row_scores")
    v = _scores_iv(col_scores, table.shape[1], "col_scores")
    n = float(table.sum())
    rows, cols = table.sum(axis=1), table.sum(axis=0)
    su = float(rows @ u**2 - (rows @ u) ** 2 / n) if n > 0 else 0.0
    sv = float(cols @ v**2 - (cols @ v) ** 2 / n) if n > 0 else 0.0
    if n < 2 or su <= 1e-12 * max(1.0, n) or sv <= 1e-12 * max(1.0, n):
        reason = "all people have the same row score or the same column score: no association to test"
        warnings.warn(UndefinedTestWarning(f"linear-by-linear test undefined: {reason}"), stacklevel=2)
        nan = float("nan")
        return LinearByLinearResult(
            nan, nan, nan, 1, nan, int(n), alternative, tuple(u), tuple(v), reason
        )
    res = Table(table, shift_zeros=False).test_ordinal_association(row_scores=u, col_scores=v)
    z = float(res.zscore)
    if alternative == "two-sided":
        p = float(2 * stats.norm.sf(abs(z)))
    else:
        p = float(stats.norm.sf(z) if alternative == "greater" else stats.norm.cdf(z))
    return LinearByLinearResult(
        statistic=z**2,
        zscore=z,
        pvalue=p,
        df=1,
        correlation=z / float(np.sqrt(n - 1)),
        n=int(n),
        alternative=alternative,
        row_scores=tuple(float(x) for x in u),
        col_scores=tuple(float(x) for x in v),
        reason="",
    )


def ordinal_shift_tests(
    observed: pd.DataFrame,
    *,
    reference: object | None = None,
    by_outcome: bool = True,
    scores: Sequence[float] | None = None,
    alpha: float = 0.05,
) -> OrdinalShiftTestsResult:
    r"""Are a group's decisions shifted up or down against the reference group's? One test per group.

    Parameters
    ----------
    observed : pandas.DataFrame
        A :func:`fairstats.decision_table` whose ``decision_levels`` are ordered (low to high).
    reference : optional
        The group every other group is compared with (default: the largest).
    by_outcome : bool, default True
        Also test among the people of each outcome level (``condition = "y_true=<o>"``): among people who did
        not reoffend, are one group's risk levels higher?
    scores : sequence of float, optional
        Scores of the decision levels (default 0, 1, ..., k - 1 in the declared order).
    alpha : float, default 0.05
        Level of Holm's adjustment over the returned table.

    Returns
    -------
    OrdinalShiftTestsResult
        Its ``table`` has one row per (group, condition) (see :class:`OrdinalShiftTestsResult`); before
        0.3 the function returned that table itself.

    Warns
    -----
    UndefinedTestWarning
        A group or the reference without anyone in a condition, or everyone at one level: NaN p-value with its
        ``reason`` (never read as "no shift").

    Notes
    -----
    The 2 × k table of the reference (row score 0) and the group (row score 1) by decision level (column
    scores ``scores``) goes to :func:`linear_by_linear_test`; with these row scores :math:`M^2` is the
    Cochran–Armitage trend test, a test that the two groups' mean decision scores differ (Agresti 2013,
    Sec. 3.4.1 and 5.3.5).

    References
    ----------
    A. Agresti, *Categorical Data Analysis*, 3rd ed., 2013, Sec. 3.4.1; S. Holm, Scand. J. Statist. 6, 1979.
    """
    reference, counts, ref, groups, conditions, pred, decision_levels = comparisons(
        observed, reference, by_outcome
    )
    alpha = level_iv(alpha, "alpha")
    k = len(decision_levels)
    col_scores = _scores_iv(scores, k, "scores")
    rows = []
    for i, g in groups:
        for condition, in_condition in conditions:
            table = np.zeros((2, k))
            for d in range(k):
                cell = in_condition & (pred == d)
                table[0, d], table[1, d] = ref[cell].sum(), counts[i, cell].sum()
            n_ref, n_g = table.sum(axis=1)
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                res = linear_by_linear_test(table, row_scores=[0.0, 1.0], col_scores=col_scores)
            reason = res.reason
            if n_ref == 0 or n_g == 0:
                reason = "no case in " + ("the reference" if n_ref == 0 else "the group")
            if caught or reason:
                warnings.warn(
                    UndefinedTestWarning(
                        f"{g} vs {reference}, {condition}: ordinal test undefined, {reason}"
                    ),
                    stacklevel=2,
                )
            with np.errstate(invalid="ignore", divide="ignore"):
                mean_g = float(table[1] @ col_scores / n_g) if n_g else float("nan")
                mean_r = float(table[0] @ col_scores / n_ref) if n_ref else float("nan")
            rows.append(
                {
                    "group": g,
                    "reference": reference,
                    "condition": condition,
                    "n_group": int(n_g),
                    "n_reference": int(n_ref),
                    "mean_score_group": mean_g,
                    "mean_score_reference": mean_r,
                    "estimate": mean_g - mean_r,
                    "statistic": res.statistic,
                    "zscore": res.zscore,
                    "df": res.df,
                    "pvalue": res.pvalue,
                    "correlation": res.correlation,
                    "reason": reason,
                    "method": "linear-by-linear association test, M^2 = (n-1) r^2 (Agresti 2013, Sec. 3.4.1; "
                    "statsmodels Table.test_ordinal_association), decision scores "
                    + ", ".join(f"{lev}={s:g}" for lev, s in zip(decision_levels, col_scores, strict=True)),
                }
            )
    out = pd.DataFrame(rows)
    if len(out):
        out = adjust_pvalues(out, method="holm", pvalue="pvalue", alpha=alpha, suffix="adj")
        out = out.drop(columns=["family_size_adj"])
    return OrdinalShiftTestsResult(
        table=out, reference=reference, alpha=alpha, scores=tuple(float(x) for x in col_scores)
    )
