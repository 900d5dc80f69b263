"""Equal confusion fairness: test, parity error and post hoc residual analysis (paper A).

A decision system is *equal-confusion fair* when every sensitive group has the same distribution over the
cells of the confusion matrix. The data become a contingency matrix ``O`` (q groups x r confusion cells) and:

* :func:`equal_confusion_test` runs Pearson's chi-squared test of independence on ``O`` (paper A, Eq. 1-2),
  with the effect size, Cochran's rule, both post hoc cut-offs, and a Monte-Carlo permutation p-value when
  Cochran's rule fails; it takes the people (a frame and its column names) or ``O`` itself, a
  :class:`fairstats.ContingencyTable` (counted from a frame, a table, integer codes or a parquet file);
* :func:`confusion_parity_error` is Cramér's V of ``O`` (Eq. 3);
* :func:`adjusted_residuals` are the adjusted standardized residuals of ``O`` (Eq. 4);
* :func:`confusion_ratios` are the paper's ratio tables.

``confusion_table`` and ``equal_confusion_test_table`` are deprecated (until 0.4): the table is
:class:`fairstats.ContingencyTable`, and the test over it :func:`equal_confusion_test`.

The statistics come from scipy (``chi2_contingency``, ``contingency.association``) and statsmodels
(``Table.standardized_resids``), the permutation's random tables from ``scipy.stats.random_table``; only the
vectorised permutation statistic is written out here.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import pandas as pd
from scipy import stats
from statsmodels.stats.multitest import multipletests

from fairstats._contingency import BINARY_CELLS, ContingencyTable
from fairstats._deprecation import superseded
from fairstats._resampling import fixed_margin_tables, n_resamples_iv, rng_iv
from fairstats._result import Result
from fairstats._validation import level_iv
from fairstats._warnings import SmallExpectedCountWarning

__all__ = [
    "BINARY_CELLS",
    "COHEN_W",
    "EFFECT_SIZE_SOURCE",
    "EqualConfusionResult",
    "SmallExpectedCountWarning",
    "adjusted_residuals",
    "confusion_parity_error",
    "confusion_ratios",
    "effect_size_thresholds",
    "equal_confusion_test",
]

#: Cohen's w for a small, medium and large effect (Cohen 1988, Sec. 7.2.3).
COHEN_W: dict[str, float] = {"small": 0.1, "medium": 0.3, "large": 0.5}

#: Where the Cramér's V thresholds come from (paper A's Table II follows Cohen; its text is not available).
EFFECT_SIZE_SOURCE = (
    "Cohen (1988), Statistical Power Analysis for the Behavioral Sciences, 2nd ed., Sec. 7.2.3: "
    "w = 0.1 / 0.3 / 0.5 (small / medium / large); for Cramer's V divided by sqrt(df*), "
    "df* = min(q - 1, r - 1), as in paper A's Table II (ref. [31])"
)

#: Cochran's rule (paper A, Sec. III-E, ref. [37]): at least this share of expected counts >= 5, none < 1.
COCHRAN_SHARE = 0.8


@superseded
def confusion_table(
    data: pd.DataFrame, *, group: str | Sequence[str], y_true: str, y_pred: str
) -> pd.DataFrame:
    """Deprecated (until 0.4): ``ContingencyTable.from_frame(data, ...).frame()``, the same table."""
    return ContingencyTable.of(data, group, y_true, y_pred).frame()


def confusion_parity_error(
    data: pd.DataFrame | ContingencyTable,
    *,
    group: str | Sequence[str] | None = None,
    y_true: str | None = None,
    y_pred: str | None = None,
) -> float:
    """Confusion parity error: Cramér's V of the contingency matrix (paper A, Eq. 3).

    Parameters
    ----------
    data, group, y_true, y_pred
        As in :func:`equal_confusion_test`.

    Returns
    -------
    float
        In [0, 1]; 0 = the groups' confusion distributions are identical.

    Raises
    ------
    ValueError, TypeError
        As :meth:`fairstats.ContingencyTable.from_frame`.

    Notes
    -----
    .. math:: \\phi = \\sqrt{\\frac{\\chi^2}{n \\, \\min(q - 1, r - 1)}}

    with :math:`\\chi^2` Pearson's statistic without continuity correction
    (``scipy.stats.contingency.association(O, method="cramer", correction=False)``).

    References
    ----------
    Paper A (Gursoy and Kakadiaris 2022), Eq. 3; H. Cramér, Mathematical Methods of Statistics, 1946.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"g": ["a", "a", "b", "b"], "y": [1, 0, 1, 0], "p": [1, 1, 0, 0]})
    >>> confusion_parity_error(df, group="g", y_true="y", y_pred="p")
    1.0
    """
    return ContingencyTable.of(data, group, y_true, y_pred).cramers_v()


def adjusted_residuals(
    data: pd.DataFrame | ContingencyTable,
    *,
    group: str | Sequence[str] | None = None,
    y_true: str | None = None,
    y_pred: str | None = None,
) -> pd.DataFrame:
    """Adjusted standardized residuals of the contingency matrix (paper A, Eq. 4).

    Parameters
    ----------
    data, group, y_true, y_pred
        As in :func:`equal_confusion_test`.

    Returns
    -------
    pandas.DataFrame
        Labelled as the table (:meth:`fairstats.ContingencyTable.from_frame`); each value is approximately
        standard normal under independence. Positive: the group has more cases in this cell than expected.

    Raises
    ------
    ValueError, TypeError
        As :meth:`fairstats.ContingencyTable.from_frame`.

    Notes
    -----
    .. math:: R_{ij} = \\frac{O_{ij} - E_{ij}}{\\sqrt{E_{ij}\\,(1 - O_{i*}/n)\\,(1 - O_{*j}/n)}},
        \\qquad E_{ij} = \\frac{O_{i*} O_{*j}}{n}

    computed by ``statsmodels.stats.contingency_tables.Table(O, shift_zeros=False).standardized_resids``
    (without ``shift_zeros=False`` statsmodels would add 0.5 to every cell of a table with a zero). Same as
    R's ``chisq.test(O, correct = FALSE)$stdres``.

    References
    ----------
    Paper A, Eq. 4; A. Agresti, Categorical Data Analysis, 3rd ed., 2013, Sec. 3.3.1 (ref. [34]).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"g": ["a", "a", "b", "b"], "y": [1, 0, 1, 0], "p": [1, 1, 0, 0]})
    >>> round(float(adjusted_residuals(df, group="g", y_true="y", y_pred="p").loc["a", "TP"]), 4)
    1.1547
    """
    return ContingencyTable.of(data, group, y_true, y_pred).residuals()


def effect_size_thresholds(df_star: int) -> dict[str, float]:
    """Lower bounds of Cramér's V for a small, medium, large effect: Cohen's w / sqrt(df*).

    Parameters
    ----------
    df_star : int
        ``min(q - 1, r - 1)`` of the contingency matrix, at least 1.

    Returns
    -------
    dict
        ``{"small": 0.1 / sqrt(df*), "medium": 0.3 / sqrt(df*), "large": 0.5 / sqrt(df*)}`` (not rounded;
        paper A's Table II prints them to two decimals, e.g. df* = 3: 0.06 / 0.17 / 0.29).

    References
    ----------
    See :data:`EFFECT_SIZE_SOURCE`.
    """
    if isinstance(df_star, bool) or not isinstance(df_star, int | np.integer) or df_star < 1:
        raise ValueError(f"`df_star` must be an integer >= 1, got {df_star!r}")
    return {name: w / math.sqrt(df_star) for name, w in COHEN_W.items()}


def _effect_size_label(v: float, thresholds: dict[str, float]) -> str:
    label = "negligible"
    for name in ("small", "medium", "large"):
        if v >= thresholds[name]:
            label = name
    return label


def _permutation_pvalue(
    observed: np.ndarray,
    expected: np.ndarray,
    statistic: float,
    *,
    n_resamples: int,
    rng: np.random.Generator,
) -> float:
    """Monte-Carlo permutation p-value of Pearson's statistic with both margins of ``observed`` fixed.

    Shuffling the group labels over people keeps every group's size and every cell's total, and the table it
    gives is multiple hypergeometric given those margins; the tables are drawn from that distribution directly
    (Patefield's algorithm, ``scipy.stats.random_table``), O(q r) per table whatever the number of people.
    ``expected`` is the same for every table. p = (1 + #{X*_b >= X_obs}) / (1 + B), with a relative tolerance
    of 64 machine epsilons on ``>=`` as in R's ``chisq.test(simulate.p.value = TRUE)``.
    """
    threshold = statistic * (1.0 - 64 * np.finfo(float).eps)
    at_least = 0
    margins = (observed.sum(axis=1), observed.sum(axis=0))
    for drawn in fixed_margin_tables(*margins, n_resamples, rng, batch=10_000):
        stat = (((drawn - expected) ** 2) / expected).sum(axis=(1, 2))
        at_least += int((stat >= threshold).sum())
    return (1.0 + at_least) / (1.0 + n_resamples)


@dataclass(frozen=True, eq=False)
class EqualConfusionResult(Result):
    """Result of :func:`equal_confusion_test`.

    Attributes
    ----------
    statistic : float
        Pearson's chi-squared statistic (no continuity correction).
    pvalue : float
        Asymptotic p-value from the chi-squared distribution with ``df`` degrees of freedom.
    df : int
        Degrees of freedom ``(q - 1)(r - 1)``.
    n : int
        Number of people.
    observed, expected, residuals : pandas.DataFrame
        Groups x cells: counts, expected counts under independence, adjusted standardized residuals.
    cramers_v : float
        Confusion parity error (Cramér's V).
    df_star : int
        ``min(q - 1, r - 1)``, which sets the effect-size thresholds.
    effect_size : str
        ``"negligible"``, ``"small"``, ``"medium"`` or ``"large"`` by :attr:`effect_size_thresholds`.
    effect_size_thresholds : dict
        Lower bounds of V for small/medium/large: Cohen's w / sqrt(df*).
    effect_size_source : str
        Where those thresholds come from.
    cochran_share_ge5 : float
        Share of expected counts that are at least 5.
    cochran_min_expected : float
        Smallest expected count.
    cochran_ok : bool
        Cochran's rule: share >= 0.8 and no expected count below 1.
    alpha, posthoc_alpha, posthoc_strict_alpha : float
        Levels used: the test; the Bonferroni family of residuals; the fixed strict cut-off.
    reject : bool
        ``pvalue < alpha``.
    strict_cutoff : float
        ``z`` for a two-sided ``posthoc_strict_alpha`` (3.2905 for 0.001).
    bonferroni_cutoff : float
        ``z`` for a two-sided ``posthoc_alpha / (q r)``.
    flag_strict, flag_bonferroni : pandas.DataFrame
        Groups x cells, ``True`` where ``|residual|`` exceeds the cut-off.
    pvalue_permutation : float
        Monte-Carlo permutation p-value; NaN when not computed.
    n_resamples : int
        Resamples behind ``pvalue_permutation`` (0 when not computed).
    group_columns : tuple of str
        The sensitive attribute column(s).
    cells : pandas.DataFrame
        Cell key: ``cell, y_pred, y_true``.
    notes : tuple of str
        Groups or cells left out because they had no case.
    """

    statistic: float
    pvalue: float
    df: int
    n: int
    observed: pd.DataFrame
    expected: pd.DataFrame
    residuals: pd.DataFrame
    cramers_v: float
    df_star: int
    effect_size: str
    effect_size_thresholds: dict[str, float]
    effect_size_source: str
    cochran_share_ge5: float
    cochran_min_expected: float
    cochran_ok: bool
    alpha: float
    posthoc_alpha: float
    posthoc_strict_alpha: float
    reject: bool
    strict_cutoff: float
    bonferroni_cutoff: float
    flag_strict: pd.DataFrame
    flag_bonferroni: pd.DataFrame
    pvalue_permutation: float
    n_resamples: int
    group_columns: tuple[str, ...]
    cells: pd.DataFrame
    notes: tuple[str, ...] = field(default=())

    def to_record(self) -> dict[str, object]:
        """One flat record of the test (no tables): statistic, pvalue, df, n, V, effect size, Cochran, ..."""
        return {
            "group": " x ".join(self.group_columns),
            "statistic": self.statistic,
            "pvalue": self.pvalue,
            "df": self.df,
            "n": self.n,
            "n_groups": int(self.observed.shape[0]),
            "n_cells": int(self.observed.shape[1]),
            "cramers_v": self.cramers_v,
            "df_star": self.df_star,
            "effect_size": self.effect_size,
            "threshold_small": self.effect_size_thresholds["small"],
            "threshold_medium": self.effect_size_thresholds["medium"],
            "threshold_large": self.effect_size_thresholds["large"],
            "cochran_share_ge5": self.cochran_share_ge5,
            "cochran_min_expected": self.cochran_min_expected,
            "cochran_ok": self.cochran_ok,
            "pvalue_permutation": self.pvalue_permutation,
            "n_resamples": self.n_resamples,
            "alpha": self.alpha,
            "reject": self.reject,
            "strict_cutoff": self.strict_cutoff,
            "bonferroni_cutoff": self.bonferroni_cutoff,
            "n_flag_strict": int(self.flag_strict.to_numpy().sum()),
            "n_flag_bonferroni": int(self.flag_bonferroni.to_numpy().sum()),
            "notes": "; ".join(self.notes),
        }

    def to_frame(self) -> pd.DataFrame:
        """Tidy per-cell table: one row per (group, cell), in the order of :attr:`observed`.

        Columns: ``group, cell, y_pred, y_true, observed, expected, residual, pvalue`` (two-sided normal
        p-value of the residual), ``pvalue_adj`` (Bonferroni over the q r cells, capped at 1),
        ``flag_strict``, ``flag_bonferroni``.
        """
        groups = self.observed.index.to_numpy()
        cells = self.observed.columns.to_numpy()
        q, r = self.observed.shape
        residual = self.residuals.to_numpy().ravel()
        pvalue = 2.0 * stats.norm.sf(np.abs(residual))
        pvalue_adj = multipletests(pvalue, method="bonferroni")[1]
        key = self.cells.set_index("cell")
        return pd.DataFrame(
            {
                "group": np.repeat(groups, r),
                "cell": np.tile(cells, q),
                "y_pred": np.tile(key.loc[cells, "y_pred"].to_numpy(), q),
                "y_true": np.tile(key.loc[cells, "y_true"].to_numpy(), q),
                "observed": self.observed.to_numpy().ravel(),
                "expected": self.expected.to_numpy().ravel(),
                "residual": residual,
                "pvalue": pvalue,
                "pvalue_adj": pvalue_adj,
                "flag_strict": self.flag_strict.to_numpy().ravel(),
                "flag_bonferroni": self.flag_bonferroni.to_numpy().ravel(),
            }
        )


def _options_iv(alpha, posthoc_alpha, posthoc_strict_alpha, n_resamples, permutation, rng):
    levels = (
        level_iv(alpha, "alpha"),
        level_iv(posthoc_alpha, "posthoc_alpha"),
        level_iv(posthoc_strict_alpha, "posthoc_strict_alpha"),
    )
    n_resamples_iv(n_resamples)
    if permutation not in ("auto", "always", "never"):
        raise ValueError(f"`permutation` must be 'auto', 'always' or 'never', got {permutation!r}")
    rng_iv(rng)  # checked here, before the table is counted; drawn from in _equal_confusion_result
    return levels


def _equal_confusion_test_iv(
    data, group, y_true, y_pred, alpha, posthoc_alpha, posthoc_strict_alpha, n_resamples, permutation, rng
):
    table = ContingencyTable.of(data, group, y_true, y_pred)
    levels = _options_iv(alpha, posthoc_alpha, posthoc_strict_alpha, n_resamples, permutation, rng)
    return table, levels


def _equal_confusion_test_table_iv(
    observed, alpha, posthoc_alpha, posthoc_strict_alpha, n_resamples, permutation, rng
) -> tuple[ContingencyTable, tuple[float, float, float]]:
    table = ContingencyTable.from_observed(observed)
    levels = _options_iv(alpha, posthoc_alpha, posthoc_strict_alpha, n_resamples, permutation, rng)
    return table, levels


def _equal_confusion_result(
    table: ContingencyTable,
    alpha: float,
    posthoc_alpha: float,
    posthoc_strict_alpha: float,
    n_resamples: int,
    permutation: str,
    rng: object,
) -> EqualConfusionResult:
    """The test on a checked, labelled table (both public functions; warnings point at their caller)."""
    observed = table.observed
    o = observed.to_numpy()
    q, r = o.shape
    chi2 = stats.chi2_contingency(o, correction=False)
    expected_values = np.asarray(chi2.expected_freq, dtype=float)
    expected = pd.DataFrame(expected_values, index=observed.index, columns=observed.columns)
    residuals = table.residuals()
    cramers_v = table.cramers_v()
    df_star = int(min(q - 1, r - 1))
    thresholds = effect_size_thresholds(df_star)

    share_ge5 = float((expected_values >= 5).mean())
    min_expected = float(expected_values.min())
    cochran_ok = bool(share_ge5 >= COCHRAN_SHARE and min_expected >= 1)
    if not cochran_ok:
        message = (
            f"group {list(table.group_columns)!r}: Cochran's rule fails ({share_ge5:.0%} of expected "
            f"counts >= 5, smallest {min_expected:.3g}); the chi-squared p-value is approximate"
        )
        if permutation != "never":
            message += f", see the permutation p-value ({n_resamples} resamples)"
        warnings.warn(SmallExpectedCountWarning(message), stacklevel=3)
    do_permutation = permutation == "always" or (permutation == "auto" and not cochran_ok)
    if do_permutation:
        pvalue_perm = _permutation_pvalue(
            o,
            expected_values,
            float(chi2.statistic),
            n_resamples=int(n_resamples),
            rng=rng_iv(rng),
        )
    else:
        pvalue_perm = float("nan")

    strict_cutoff = float(stats.norm.isf(posthoc_strict_alpha / 2))
    bonferroni_cutoff = float(stats.norm.isf(posthoc_alpha / (q * r) / 2))
    return EqualConfusionResult(
        statistic=float(chi2.statistic),
        pvalue=float(chi2.pvalue),
        df=int(chi2.dof),
        n=int(o.sum()),
        observed=observed,
        expected=expected,
        residuals=residuals,
        cramers_v=cramers_v,
        df_star=df_star,
        effect_size=_effect_size_label(cramers_v, thresholds),
        effect_size_thresholds=thresholds,
        effect_size_source=EFFECT_SIZE_SOURCE,
        cochran_share_ge5=share_ge5,
        cochran_min_expected=min_expected,
        cochran_ok=cochran_ok,
        alpha=alpha,
        posthoc_alpha=posthoc_alpha,
        posthoc_strict_alpha=posthoc_strict_alpha,
        reject=bool(chi2.pvalue < alpha),
        strict_cutoff=strict_cutoff,
        bonferroni_cutoff=bonferroni_cutoff,
        flag_strict=residuals.abs() > strict_cutoff,
        flag_bonferroni=residuals.abs() > bonferroni_cutoff,
        pvalue_permutation=pvalue_perm,
        n_resamples=int(n_resamples) if do_permutation else 0,
        group_columns=table.group_columns,
        cells=table.cells,
        notes=table.notes,
    )


def equal_confusion_test(
    data: pd.DataFrame | ContingencyTable,
    *,
    group: str | Sequence[str] | None = None,
    y_true: str | None = None,
    y_pred: str | None = None,
    alpha: float = 0.05,
    posthoc_alpha: float = 0.05,
    posthoc_strict_alpha: float = 0.001,
    n_resamples: int = 9999,
    permutation: Literal["auto", "always", "never"] = "auto",
    rng: int | np.random.Generator | None = None,
) -> EqualConfusionResult:
    """Equal confusion test: are the groups' confusion matrices drawn from one distribution?

    Pearson's chi-squared test of independence between the sensitive group and the confusion cell
    (paper A, Sec. III), with the confusion parity error (Cramér's V) and its effect-size label, Cochran's
    rule, and the post hoc analysis of adjusted standardized residuals at two cut-offs.

    It takes the people (a frame and the names of its columns) or their table ``O``, a
    :class:`fairstats.ContingencyTable`, however it was counted: from a frame
    (:meth:`~fairstats.ContingencyTable.from_frame`), a table counted elsewhere
    (:meth:`~fairstats.ContingencyTable.from_observed`), integer codes
    (:meth:`~fairstats.ContingencyTable.from_codes`, for 10⁸ people) or a parquet file or folder larger than
    memory (:meth:`~fairstats.ContingencyTable.from_parquet`). The result depends on the data only through
    ``O``: the same people give the same result whichever way they came, the permutation p-value included
    for the same ``rng``.

    Parameters
    ----------
    data : pandas.DataFrame or ContingencyTable
        One row per person (or counts: a :class:`fairstats.Counts`, a frame of another engine), or the table
        already counted (a :class:`fairstats.ContingencyTable`, from any of its constructors).
    group : str or list of str, optional
        Sensitive attribute column(s); a list means intersectional groups, labelled by joining the values in
        the listed order with ``" - "`` (``["sex", "race"]`` gives ``"Female - African-American"``). Needed
        with a frame; with a table it may be left out (given, it must be the table's grouping).
    y_true, y_pred : str, optional
        Columns of the true and the predicted label (binary 0/1, or any number of classes); needed with a
        frame, and may be left out with a table (given, they must be the columns it was counted from).
    alpha : float, default 0.05
        Level of the test; sets ``reject``. (Paper A rejects at p < 0.01: its reproduction passes that.)
    posthoc_alpha : float, default 0.05
        Family level of the residual analysis, Bonferroni-corrected over the q r cells.
    posthoc_strict_alpha : float, default 0.001
        Level of the fixed strict cut-off (0.001 gives :math:`|R| > 3.29`).
    n_resamples : int, default 9999
        Monte-Carlo resamples of the permutation p-value.
    permutation : {"auto", "always", "never"}, default "auto"
        When to compute the permutation p-value: "auto" only when Cochran's rule fails.
    rng : int, numpy.random.Generator or None
        Seed or generator of the permutation (``numpy.random.default_rng(rng)``); pass a seed for
        reproducible results.

    Returns
    -------
    EqualConfusionResult
        Every field is documented on the class; ``to_frame()`` gives the tidy per-cell table,
        ``to_record()`` one summary record.

    Raises
    ------
    ValueError
        Missing column, NaN, a single group, fewer than two outcome cells, a level outside (0, 1),
        ``n_resamples`` < 1; a ``group``, ``y_true`` or ``y_pred`` that is not the table's.
    TypeError
        ``data`` not a frame, column names not strings or not given with a frame, ``rng`` of another type.

    Warns
    -----
    SmallExpectedCountWarning
        When Cochran's rule fails (fewer than 80 % of expected counts >= 5, or any below 1).

    Notes
    -----
    With :math:`O` the q x r contingency matrix and :math:`n` its total,

    .. math:: E_{ij} = \\frac{O_{i*} O_{*j}}{n}, \\qquad
        \\chi^2 = \\sum_{i,j} \\frac{(O_{ij} - E_{ij})^2}{E_{ij}}, \\qquad df = (q - 1)(r - 1)

    (``scipy.stats.chi2_contingency(O, correction=False)``); Cramér's V and the residuals as in
    :func:`confusion_parity_error` and :func:`adjusted_residuals`. A residual is flagged when
    :math:`|R_{ij}| > z_{1 - a/2}` with :math:`a` = ``posthoc_strict_alpha`` (strict) or
    :math:`a` = ``posthoc_alpha`` / (q r) (Bonferroni). The asymptotic p-value assumes the expected counts
    are large (Cochran's rule); the permutation p-value does not.

    Permutation p-value. Shuffling the group labels over people keeps both margins of :math:`O` (every
    group's size, every cell's total), and the table of the shuffled labels has the multiple hypergeometric
    distribution given those margins (the null distribution of :math:`O` conditional on both margins),

    .. math::

        P(O^* \\mid O_{i*}, O_{*j}) = \\frac{\\prod_i O_{i*}! \\prod_j O_{*j}!}{n! \\prod_{ij} O^*_{ij}!},

    so ``n_resamples`` tables :math:`O^*_b` are drawn from it directly by Patefield's algorithm
    (``scipy.stats.random_table(...).rvs(method="patefield")``, the algorithm of R's ``r2dtable``), at
    O(q r) per table whatever n, and
    :math:`p = (1 + \\#\\{b : X^2(O^*_b) \\ge X^2(O)\\}) / (1 + B)`, with a relative tolerance of 64 machine
    epsilons on :math:`\\ge` as in R's ``chisq.test(simulate.p.value = TRUE)``. It depends on the data only
    through :math:`O`, so it is the same for the same table and ``rng``, however the table was counted.

    References
    ----------
    F. Gursoy, I. A. Kakadiaris, "Equal Confusion Fairness: Measuring Group-Based Disparities in Automated
    Decision Systems", ICDMW 2022, pp. 137-146, doi:10.1109/ICDMW58026.2022.00027, Eq. 1-4 and Table II;
    W. G. Cochran, "Some methods for strengthening the common chi-squared tests", Biometrics 10, 1954
    (ref. [37]); A. C. A. Hope, "A simplified Monte Carlo significance test procedure", JRSS B 30, 1968;
    W. M. Patefield, "Algorithm AS 159: An efficient method of generating random r x c tables with given row
    and column totals", Applied Statistics 30(1), 1981, pp. 91-97; A. Agresti, "A survey of exact inference
    for contingency tables", Statistical Science 7(1), 1992, pp. 131-153 (the conditional distribution given
    both margins).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"g": list("aaaaaabbbbbb"), "y": [1, 1, 1, 0, 0, 0] * 2,
    ...                    "p": [1, 1, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0]})
    >>> res = equal_confusion_test(df, group="g", y_true="y", y_pred="p", permutation="never")
    >>> res.df, round(res.statistic, 3), res.observed.loc["a"].tolist()
    (3, 1.867, [2, 1, 1, 2])

    A table counted elsewhere:

    >>> from fairstats import ContingencyTable
    >>> O = pd.DataFrame([[40, 20, 30, 110], [25, 30, 20, 125]], index=["a", "b"],
    ...                  columns=["TP", "FN", "FP", "TN"])
    >>> res = equal_confusion_test(ContingencyTable.from_observed(O))
    >>> res.df, res.n
    (3, 400)
    """
    table, levels = _equal_confusion_test_iv(
        data, group, y_true, y_pred, alpha, posthoc_alpha, posthoc_strict_alpha, n_resamples, permutation, rng
    )
    return _equal_confusion_result(table, *levels, n_resamples, permutation, rng)


@superseded
def equal_confusion_test_table(
    observed: pd.DataFrame,
    *,
    alpha: float = 0.05,
    posthoc_alpha: float = 0.05,
    posthoc_strict_alpha: float = 0.001,
    n_resamples: int = 9999,
    permutation: Literal["auto", "always", "never"] = "auto",
    rng: int | np.random.Generator | None = None,
) -> EqualConfusionResult:
    """Deprecated (until 0.4): ``equal_confusion_test(ContingencyTable.from_observed(observed), ...)``, the
    same result."""
    table, levels = _equal_confusion_test_table_iv(
        observed, alpha, posthoc_alpha, posthoc_strict_alpha, n_resamples, permutation, rng
    )
    return _equal_confusion_result(table, *levels, n_resamples, permutation, rng)


def confusion_ratios(
    data: pd.DataFrame | ContingencyTable,
    *,
    group: str | Sequence[str] | None = None,
    y_true: str | None = None,
    y_pred: str | None = None,
) -> pd.DataFrame:
    """Paper A's ratio tables: each confusion cell as a share of the group and of its actual class.

    Parameters
    ----------
    data, group, y_true, y_pred
        As in :func:`equal_confusion_test`.

    Returns
    -------
    pandas.DataFrame
        Tidy, one row per (group, cell) in the table's order (:meth:`fairstats.ContingencyTable.from_frame`):
        ``group, cell, y_pred, y_true, observed, n, share_of_group`` (observed / group total) ``,
        actual_total, share_of_actual`` (observed / the group's count with this ``y_true``: TPR and FNR for
        actual positives, FPR and TNR for actual negatives). Fractions in [0, 1], not percentages; NaN where a
        group has no case of that
        actual class.

    Notes
    -----
    Paper A's Tables VII, VIII and X show, for the actual positives and the actual negatives in turn, these
    two shares as whole percentages.

    References
    ----------
    Paper A (Gursoy and Kakadiaris 2022), Tables VII, VIII, X.
    """
    return ContingencyTable.of(data, group, y_true, y_pred).ratios()
