"""Calibration by group within score bins: per-bin χ² tests of independence of group and outcome, summed.

:func:`calibration_independence_test` tests the hypothesis of paper B's calibration test (II-J: the same
outcome rate for both groups within each score bin) with standard large-sample tests on the bins' 2×2 tables
(group × outcome), and the Cochran–Mantel–Haenszel test of a common odds ratio. Paper B's own χ² statistics
(its Eq. 1–2, Tables XII–XIII), whose χ² reference distribution is not justified, live with the paper's
reproduction (``compendium.paper_b.calibration``), not here. Calibration without bins is
:func:`fairstats.recalibration_tests`.
"""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy.stats import chi2, chi2_contingency
from statsmodels.stats.contingency_tables import StratifiedTable

from fairstats._deprecation import REMOVAL, arrays_replaced, attribute, renamed_pair
from fairstats._result import Result
from fairstats._validation import as_list, group_pair_iv, require_columns, require_frame
from fairstats.confusion import SmallExpectedCountWarning  # one class for "expected count too small"
from fairstats.groups import group_labels

__all__ = ["CalibrationIndependenceResult", "SmallExpectedCountWarning", "calibration_independence_test"]


def __getattr__(name: str) -> object:
    return attribute(__name__, name)  # paper B's statistics left for the compendium: say so


@dataclass(frozen=True)
class CalibrationIndependenceResult(Result):
    """Result of :func:`calibration_independence_test`.

    Attributes
    ----------
    statistic : float
        Σ over used bins of the Pearson χ² of the bin's 2×2 table (group × outcome), no continuity correction.
    pvalue : float
        ``chi2.sf(statistic, df)``; NaN when no bin is used.
    df : int
        Number of bins used (one df per 2×2 table).
    cmh_statistic, cmh_pvalue : float
        Cochran–Mantel–Haenszel test of a common odds ratio of 1 over the used bins (statsmodels
        ``StratifiedTable.test_null_odds(correction=False)``): more power against a disparity of constant
        direction, none against disparities that cancel across bins.
    n_bins, n_bins_used : int
        Bins in total and bins used.
    min_expected : float
        Smallest expected cell count a bin needs to be used.
    group_a, group_b : object
        The two groups compared (``groups=(a, b)``); the table's ``*_protected`` columns are ``group_a``'s,
        its ``*_unprotected`` columns ``group_b``'s (paper B's words).
    favorable : int
    table : pandas.DataFrame
        Per-bin counts, rates, smallest expected count, bin statistic and p-value, ``used`` flag.
    """

    statistic: float
    pvalue: float
    df: int
    cmh_statistic: float
    cmh_pvalue: float
    n_bins: int
    n_bins_used: int
    min_expected: float
    group_a: object
    group_b: object
    favorable: int
    table: pd.DataFrame = field(repr=False, compare=False)

    _omit = ("table",)

    @property
    def protected(self) -> object:
        """Deprecated alias of :attr:`group_a` (until fairstats 0.4)."""
        return self._renamed("protected", "group_a")

    @property
    def unprotected(self) -> object:
        """Deprecated alias of :attr:`group_b` (until fairstats 0.4)."""
        return self._renamed("unprotected", "group_b")

    def _renamed(self, old: str, new: str) -> object:
        warnings.warn(
            f"`{old}` of fairstats.CalibrationIndependenceResult is deprecated since fairstats 0.3 and goes "
            f"in {REMOVAL}: use `{new}`",
            DeprecationWarning,
            stacklevel=3,
        )
        return getattr(self, new)


# --------------------------------------------------------------------------------------------------------
# input checks and binning
# --------------------------------------------------------------------------------------------------------


def _n_bins_iv(n_bins: object) -> int:
    if isinstance(n_bins, bool) or not isinstance(n_bins, numbers.Integral) or int(n_bins) < 1:
        raise ValueError(f"`n_bins` must be a positive integer, got {n_bins!r}")
    return int(n_bins)


def _score_iv(y_score: object) -> np.ndarray:
    s = np.asarray(y_score)
    if s.ndim != 1:
        raise ValueError(f"`y_score` must be 1-D, got shape {s.shape}")
    if not np.issubdtype(s.dtype, np.number) or np.issubdtype(s.dtype, np.complexfloating):
        raise TypeError(f"`y_score` must be numeric, got dtype {s.dtype}")
    s = s.astype(float)
    bad = ~((s >= 0) & (s <= 1))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"`y_score` must lie in [0, 1] (no NaN), got {float(s[i])!r} at position {i}")
    return s


def _score_bins(y_score: object, *, n_bins: int = 10) -> np.ndarray:
    """Equal-width bin of each score: bin j holds ``j/n_bins <= s < (j+1)/n_bins``; s = 1 goes to the last.

    Edges are the correctly rounded fractions ``j / n_bins`` (``np.arange(n_bins + 1) / n_bins``), so a score
    stored as 0.3 falls in bin [0.3, 0.4) (``np.linspace`` gives 0.30000000000000004 as an edge and would put
    it in [0.2, 0.3)).
    """
    n_bins = _n_bins_iv(n_bins)
    s = _score_iv(y_score)
    edges = np.arange(n_bins + 1) / n_bins
    return np.minimum(np.searchsorted(edges, s, side="right") - 1, n_bins - 1)


def _calibration_iv(
    y_true: object,
    y_score: object,
    group: object,
    protected: object,
    unprotected: object,
    n_bins: object,
    favorable: object,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Return (counted outcome, bin index, is_protected) for the rows of the two groups, and n_bins."""
    n_bins = _n_bins_iv(n_bins)
    if favorable not in (0, 1) or isinstance(favorable, bool):
        raise ValueError(f"`favorable` must be 0 or 1 (the outcome counted), got {favorable!r}")
    y = np.asarray(y_true)
    g = np.asarray(group)
    s = _score_iv(y_score)
    if y.ndim != 1 or g.ndim != 1:
        raise ValueError(f"`y_true` and `group` must be 1-D, got shapes {y.shape} and {g.shape}")
    if not (len(y) == len(s) == len(g)):
        raise ValueError(
            f"`y_true`, `y_score`, `group` must have equal length, got {len(y)}, {len(s)}, {len(g)}"
        )
    ok = np.isin(y, (0, 1)) & ~pd.isna(y)
    if not ok.all():
        i = int(np.flatnonzero(~ok)[0])
        bad = y[i].item() if isinstance(y[i], np.generic) else y[i]
        raise ValueError(f"`y_true` must be binary 0/1, got {bad!r} at position {i}")
    if protected == unprotected:
        raise ValueError(f"`groups`: the two groups must differ, both are {protected!r}")
    is_p = g == protected
    is_u = g == unprotected
    for label, mask in ((protected, is_p), (unprotected, is_u)):
        if not mask.any():
            present = sorted(map(str, pd.unique(g)))[:10]
            raise ValueError(f"`groups`: group {label!r} does not occur in `group` (values: {present})")
    keep = is_p | is_u
    counted = y[keep].astype(int) == favorable
    bins = _score_bins(s[keep], n_bins=n_bins)
    return counted, bins, is_p[keep], n_bins


def _group_bin_counts(counted: np.ndarray, bins: np.ndarray, is_p: np.ndarray, n_bins: int) -> np.ndarray:
    """Array (4, n_bins): α (protected n), θ (protected counted), β, γ (the same for unprotected)."""
    p, u = is_p, ~is_p
    return np.stack(
        [
            np.bincount(bins[p], minlength=n_bins),
            np.bincount(bins[p & counted], minlength=n_bins),
            np.bincount(bins[u], minlength=n_bins),
            np.bincount(bins[u & counted], minlength=n_bins),
        ]
    ).astype(np.int64)


def _pvalue(statistic: float, df: int) -> float:
    return float(chi2.sf(statistic, df)) if df >= 1 else float("nan")


# --------------------------------------------------------------------------------------------------------
# the test: "same outcome rate for both groups within each score bin"
# --------------------------------------------------------------------------------------------------------


def _calibration_independence_arrays(
    y_true: object,
    y_score: object,
    group: object,
    *,
    groups: Sequence[object],
    n_bins: int = 10,
    favorable: int = 1,
    min_expected: float = 5.0,
    stacklevel: int = 4,
) -> CalibrationIndependenceResult:
    """:func:`calibration_independence_test` of arrays, one value per person (its call before 0.3); its
    warning points ``stacklevel`` frames up (the user's line, past the deprecation wrappers)."""
    if not isinstance(min_expected, numbers.Real) or not min_expected >= 0:
        raise ValueError(f"`min_expected` must be a number >= 0, got {min_expected!r}")
    protected, unprotected = group_pair_iv(groups)
    counted, bins, is_p, n_bins = _calibration_iv(
        y_true, y_score, group, protected, unprotected, n_bins, favorable
    )
    n_p, k_p, n_u, k_u = _group_bin_counts(counted, bins, is_p, n_bins)
    tables = np.stack(
        [np.stack([k_p, n_p - k_p], axis=1), np.stack([k_u, n_u - k_u], axis=1)], axis=1
    )  # (bin, group, outcome)
    stat = np.full(n_bins, np.nan)
    pval = np.full(n_bins, np.nan)
    smallest = np.full(n_bins, np.nan)
    used = np.zeros(n_bins, dtype=bool)
    for j in range(n_bins):  # at most n_bins small 2×2 tables
        t = tables[j]
        if (t.sum(axis=0) == 0).any() or (t.sum(axis=1) == 0).any():
            smallest[j] = 0.0
            continue
        res = chi2_contingency(t, correction=False)
        smallest[j] = float(res.expected_freq.min())
        stat[j], pval[j] = res.statistic, res.pvalue
        used[j] = smallest[j] >= min_expected
    edges = np.arange(n_bins + 1) / n_bins
    with np.errstate(invalid="ignore", divide="ignore"):
        table = pd.DataFrame(
            {
                "bin": np.arange(n_bins),
                "score_lower": edges[:-1],
                "score_upper": edges[1:],
                "n_protected": n_p,
                "k_protected": k_p,
                "n_unprotected": n_u,
                "k_unprotected": k_u,
                "rate_protected": np.where(n_p > 0, k_p / np.maximum(n_p, 1), np.nan),
                "rate_unprotected": np.where(n_u > 0, k_u / np.maximum(n_u, 1), np.nan),
                "min_expected": smallest,
                "statistic": stat,
                "pvalue": pval,
                "used": used,
            }
        )
    if (~used).any():
        warnings.warn(
            f"{int((~used).sum())} of {n_bins} bins left out (an expected count < {min_expected} or an empty "
            f"margin): bins {np.flatnonzero(~used).tolist()}",
            SmallExpectedCountWarning,
            stacklevel=stacklevel,
        )
    n_used = int(used.sum())
    statistic = float(stat[used].sum())
    cmh_stat = cmh_p = float("nan")
    if n_used:
        cmh = StratifiedTable([tables[j].astype(float) for j in np.flatnonzero(used)]).test_null_odds(
            correction=False
        )
        cmh_stat, cmh_p = float(cmh.statistic), float(cmh.pvalue)
    return CalibrationIndependenceResult(
        statistic=statistic,
        pvalue=_pvalue(statistic, n_used),
        df=n_used,
        cmh_statistic=cmh_stat,
        cmh_pvalue=cmh_p,
        n_bins=n_bins,
        n_bins_used=n_used,
        min_expected=float(min_expected),
        group_a=protected,
        group_b=unprotected,
        favorable=int(favorable),
        table=table,
    )


@renamed_pair("groups", "protected", "unprotected")
@arrays_replaced(
    _calibration_independence_arrays,
    arrays=("y_true", "y_score"),
    use="calibration_independence_test(data, group=, y_true=, y_score=, groups=)",
    stacklevel=3,  # past renamed_pair's wrapper too
)
def calibration_independence_test(
    data: pd.DataFrame,
    *,
    group: str | Sequence[str],
    y_true: str,
    y_score: str,
    groups: Sequence[object],
    n_bins: int = 10,
    favorable: int = 1,
    min_expected: float = 5.0,
) -> CalibrationIndependenceResult:
    """Per-bin χ² tests of independence of group and outcome, summed over the score bins.

    Tests the null hypothesis of calibration by group, P(y = fav | bin, a) = P(y = fav | bin, b) in every
    score bin, with standard large-sample tests on the 2×2 tables (group × outcome) of the bins.

    Parameters
    ----------
    data : pandas.DataFrame
        One row per person.
    group : str or list of str
        Sensitive attribute column(s); rows of other groups than the two named are ignored. With a list the
        labels are the intersections' (``"Female - African-American"``, as
        :meth:`fairstats.ContingencyTable.from_frame` labels them).
    y_true : str
        Column of the observed outcome, 0/1.
    y_score : str
        Column of the score in [0, 1], binned into ``n_bins`` equal-width bins ``[j/n_bins, (j+1)/n_bins)``,
        the last one closed.
    groups : pair (a, b), keyword-only
        Labels of the two groups compared, as in every function of two groups (:func:`bootstrap_disparity`;
        before 0.3 ``protected=a, unprotected=b``, accepted until 0.4 with a DeprecationWarning). The test
        is symmetric in them; the table's ``*_protected`` columns are ``a``'s, its ``*_unprotected``
        columns ``b``'s.
    n_bins : int
        Number of equal-width score bins.
    favorable : {0, 1}, default 1
        Outcome counted.
    min_expected : float
        A bin is used only if every expected count of its 2×2 table is at least this (Cochran's rule: 5).

    Returns
    -------
    CalibrationIndependenceResult
        Summed χ² (df = bins used), its p-value, the CMH statistic and p-value, and ``table`` with one row
        per bin: ``bin, score_lower, score_upper, n_protected, k_protected, n_unprotected, k_unprotected,
        rate_protected, rate_unprotected, min_expected, statistic, pvalue, used``.

    Raises
    ------
    ValueError, TypeError
        ``data`` not a frame or empty, a missing column, non-binary ``y_true``, score outside [0, 1]
        (``TypeError``: not numeric), a named group absent, bad ``n_bins`` or ``favorable``,
        ``min_expected`` negative. Until 0.4 the call of arrays ``(y_true, y_score, group, ...)`` still works,
        with a ``DeprecationWarning``.

    Warns
    -----
    SmallExpectedCountWarning
        Some bins are left out because of small expected counts.

    Notes
    -----
    Bin b's table has rows (a, b) and columns (counted outcome, other). Its Pearson
    statistic (``scipy.stats.chi2_contingency(correction=False)``) is asymptotically χ²(1) under H0, and the
    bins are independent given the bin sizes, so

    .. math::

        X^2 = \\sum_{b \\in \\text{used}} X_b^2 \\sim \\chi^2_{|\\text{used}|}.

    The CMH test (``statsmodels.stats.contingency_tables.StratifiedTable``) is the one-df alternative for a
    disparity of constant direction. Scores are out-of-fold predictions of models fitted on overlapping
    training sets, which this test, like the paper's, ignores.

    References
    ----------
    A. Agresti, Categorical Data Analysis, 3rd ed., Wiley 2013, §3.2 (Pearson χ²), §6.4 (CMH).
    Paper B, section II-J (the hypothesis tested).
    """
    frame = require_frame(data)
    columns = as_list(group, name="group")
    require_columns(frame, [*columns, y_true, y_score], where="`data`")
    labels = frame[columns[0]] if len(columns) == 1 else group_labels(frame, columns)
    return _calibration_independence_arrays(
        frame[y_true].to_numpy(),
        frame[y_score].to_numpy(),
        labels.to_numpy(),
        groups=groups,
        n_bins=n_bins,
        favorable=favorable,
        min_expected=min_expected,
        stacklevel=5,  # the user's line, past the two wrappers and this function
    )
