"""Paper B's calibration and well-calibration χ² (its Eq. 1–2, Tables XII–XIII), as the paper defines them.

Our reading of the paper (II-J, II-K)
-------------------------------------
* Scores: "predicted probabilities of recidivism", i.e. ``y_score`` = P(y = 1) as the authors stored them (in
  their ``Y Dataframe with Probabilities - Fold 0.csv`` the mean score is higher for y = 1 than for y = 0).
  They are cut into ``n_bins`` equal-width bins ``[j/n_bins, (j+1)/n_bins)``, the last one closed.
* Counted outcome: the text counts "positive outcomes (no recidivism)", i.e. y = ``favorable`` = 0, while
  its formula writes P(y = 1 | S = s). ``favorable`` selects the outcome counted (default 1, the library's
  convention everywhere; the paper's text is ``favorable=0``, which its reproduction passes).
* Calibration (Eq. 1–2), per bin i: α = protected people, θ = protected with the counted outcome,
  β = unprotected people, γ = unprotected with the counted outcome (all counts); λ = θ/α·β (the protected
  rate standardised to the unprotected bin size); χ² = Σ (λ − γ)²/γ on k − 1 df (k bins).
  Table XII's printed p for gradient boosting (χ² = 15.06, p = 0.089) is ``chi2.sf(15.06, 9)``, confirming
  df = k − 1 = 9.
* Well-calibration: 2k terms, one per bin and group, each comparing the observed count of the counted outcome
  (λ for the protected group, γ for the unprotected group; both on the unprotected bin size β) with an
  expected count p·β where p is the end of the bin's probability interval (for the counted outcome) that is
  closer to the observed count ("either the minimum or maximum value in the bin depending on whichever value
  minimizes λ − γ"). The probability interval of the counted outcome in score bin [lo, hi) is [lo, hi] when
  ``favorable == 1`` and [1 − hi, 1 − lo] when ``favorable == 0`` (the score is P(y = 1)). df = 2k − 1:
  Table XIII's printed p for gradient boosting (27.94, 0.084) is ``chi2.sf(27.94, 19)``.
* Undefined terms (the paper is silent): a calibration bin with α = 0, β = 0 or γ = 0, and a well-calibration
  term with expected count 0 (β = 0, α = 0 for the protected term, or the chosen end p = 0), are left out of
  the sum, flagged ``used = False`` in the per-bin table, warned with :class:`EmptyBinWarning`, and df counts
  only the terms used (``used − 1``).

These statistics are not χ² goodness-of-fit statistics in the usual sense (λ is a rescaled estimate, γ is
random, the ends of a bin are not expectations), so their χ² reference distribution is not justified: they
live here, with the paper's reproduction, not in the library (issue 38; they were
``fairstats.calibration_test``, ``fairstats.well_calibration_test`` and ``fairstats.score_bins``). The sound
test of the same hypothesis is the library's :func:`fairstats.calibration_independence_test`, which the
battery reports beside them.
"""

from __future__ import annotations

import numbers
import warnings
from dataclasses import dataclass, field, fields

import numpy as np
import pandas as pd
from scipy.stats import chi2

from fairstats.calibration import SmallExpectedCountWarning, calibration_independence_test

__all__ = [
    "CalibrationResult",
    "EmptyBinWarning",
    "calibration_test",
    "score_bins",
    "well_calibration_test",
]


class EmptyBinWarning(UserWarning):
    """A bin (or well-calibration term) has a zero count in a denominator and is left out of the χ² sum."""


@dataclass(frozen=True)
class CalibrationResult:
    """Result of :func:`calibration_test` or :func:`well_calibration_test`.

    Attributes
    ----------
    statistic : float
        Σ of the used per-bin contributions (paper B Eq. 2).
    pvalue : float
        ``chi2.sf(statistic, df)`` (right tail); NaN when df < 1.
    df : int
        Terms used − 1 (k − 1 for calibration, 2k − 1 for well-calibration when every term is defined).
    n_bins : int
        Number of score bins k.
    n_terms_used : int
        Terms in the sum (bins for calibration, bin × group terms for well-calibration).
    protected, unprotected : object
        The group labels compared.
    favorable : int
        The outcome counted ("positive outcome").
    test : str
        ``"calibration"`` or ``"well-calibration"``.
    table : pandas.DataFrame
        Per-bin (per bin and group for well-calibration) counts, standardised counts, expected counts,
        contributions and a ``used`` flag (see the functions for the columns).
    """

    statistic: float
    pvalue: float
    df: int
    n_bins: int
    n_terms_used: int
    protected: object
    unprotected: object
    favorable: int
    test: str
    table: pd.DataFrame = field(repr=False, compare=False)

    def to_record(self) -> dict[str, object]:
        """The fields without the table, in field order."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "table"}

    def to_frame(self) -> pd.DataFrame:
        """One row: :meth:`to_record`."""
        return pd.DataFrame([self.to_record()])


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


def score_bins(y_score: object, *, n_bins: int = 10) -> np.ndarray:
    """Equal-width bin of each score: bin j holds ``j/n_bins <= s < (j+1)/n_bins``; s = 1 goes to the last.

    Parameters
    ----------
    y_score : array-like of float in [0, 1]
    n_bins : int

    Returns
    -------
    numpy.ndarray of int
        Bin index in ``0 .. n_bins - 1``.

    Raises
    ------
    ValueError
        Score outside [0, 1] or NaN, ``n_bins`` not a positive integer.

    Notes
    -----
    Edges are the correctly rounded fractions ``j / n_bins`` (``np.arange(n_bins + 1) / n_bins``), so a score
    stored as 0.3 falls in bin [0.3, 0.4) (``np.linspace`` gives 0.30000000000000004 as an edge and would put
    it in [0.2, 0.3)). Random-forest scores are multiples of 1/100 and hit edges often.

    Examples
    --------
    >>> score_bins([0.0, 0.3, 0.35, 0.999, 1.0], n_bins=10).tolist()
    [0, 3, 3, 9, 9]
    """
    n_bins = _n_bins_iv(n_bins)
    s = _score_iv(y_score)
    edges = np.arange(n_bins + 1) / n_bins
    return np.minimum(np.searchsorted(edges, s, side="right") - 1, n_bins - 1)


def _people(y_true: object, y_score: object, group: object) -> pd.DataFrame:
    """The three arrays as the frame the library's test takes (one row per person), lengths checked first."""
    arrays = [np.asarray(a) for a in (y_true, y_score, group)]
    if len({a.shape for a in arrays}) > 1:
        sizes = ", ".join(str(a.size) for a in arrays)
        raise ValueError(f"`y_true`, `y_score`, `group` must have equal length, got {sizes}")
    return pd.DataFrame(dict(zip(("y_true", "y_score", "group"), arrays, strict=True)))


def _bin_counts(
    y_true: object,
    y_score: object,
    group: object,
    protected: object,
    unprotected: object,
    n_bins: object,
    favorable: object,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
    """(α, θ, β, γ, k): each score bin's protected people, those with the counted outcome, the same for the
    unprotected group, and the number of bins. Checked, binned and counted by the library
    (:func:`fairstats.calibration_independence_test`'s table: the same bins, checks and messages), whose own
    test is not used here."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SmallExpectedCountWarning)  # its bins' use is its own test's business
        res = calibration_independence_test(
            _people(y_true, y_score, group), group="group", y_true="y_true", y_score="y_score",
            groups=(protected, unprotected), n_bins=n_bins, favorable=favorable, min_expected=0,
        )  # fmt: skip
    columns = ("n_protected", "k_protected", "n_unprotected", "k_unprotected")
    alpha, theta, beta, gamma = (res.table[c].to_numpy(dtype=np.int64) for c in columns)
    return alpha, theta, beta, gamma, res.n_bins


def _warn_unused(what: str, labels: list[str]) -> None:
    if labels:
        warnings.warn(
            f"{len(labels)} {what} left out of the χ² sum (a zero denominator): {', '.join(labels)}",
            EmptyBinWarning,
            stacklevel=3,
        )


def _pvalue(statistic: float, df: int) -> float:
    return float(chi2.sf(statistic, df)) if df >= 1 else float("nan")


# --------------------------------------------------------------------------------------------------------
# the paper's tests
# --------------------------------------------------------------------------------------------------------


def _paper_result(
    contribution: np.ndarray,
    used: np.ndarray,
    table: pd.DataFrame,
    *,
    n_bins: int,
    protected: object,
    unprotected: object,
    favorable: int,
    test: str,
) -> CalibrationResult:
    """Sum the used terms into the paper's χ² statistic (df = terms used − 1) and wrap the result."""
    n_used = int(used.sum())
    statistic = float(contribution[used].sum())
    df = n_used - 1
    return CalibrationResult(
        statistic=statistic,
        pvalue=_pvalue(statistic, df),
        df=df,
        n_bins=n_bins,
        n_terms_used=n_used,
        protected=protected,
        unprotected=unprotected,
        favorable=int(favorable),
        test=test,
        table=table,
    )


def calibration_test(
    y_true: object,
    y_score: object,
    group: object,
    *,
    protected: object,
    unprotected: object,
    n_bins: int = 10,
    favorable: int = 1,
) -> CalibrationResult:
    """Paper B's calibration test: standardised protected vs unprotected counts per score bin (Eq. 1–2).

    Parameters
    ----------
    y_true : array-like of {0, 1}
        Observed outcome (1 = recidivism).
    y_score : array-like of float in [0, 1]
        Predicted P(y = 1) (the paper's probability of recidivism), binned into ``n_bins`` equal-width bins.
    group : array-like
        Group label per person; rows of other groups than the two named are ignored.
    protected, unprotected : object
        Labels of the protected (paper: BLACK) and unprotected (WHITE) group.
    n_bins : int
        Number of equal-width score bins k (paper: 10).
    favorable : {0, 1}, default 1
        Outcome counted as "positive outcome" (paper's text: 0, no recidivism).

    Returns
    -------
    CalibrationResult
        ``statistic``, ``pvalue``, ``df``, ``n_bins``, ``n_terms_used``, ``protected``, ``unprotected``,
        ``favorable``, ``test="calibration"``, ``table`` with one row per bin: ``bin, score_lower,
        score_upper, alpha, theta, beta, gamma, lambda, contribution, used``.

    Raises
    ------
    ValueError
        Unequal lengths, non-binary ``y_true``, score outside [0, 1], a named group absent, bad ``n_bins``
        or ``favorable``.
    TypeError
        Non-numeric score.

    Warns
    -----
    EmptyBinWarning
        Some bin has α = 0, β = 0 or γ = 0 and is left out (df shrinks accordingly).

    Notes
    -----
    Per bin i (α, θ: protected people and those with the counted outcome; β, γ: the same for unprotected):

    .. math::

        \\lambda_i = \\frac{\\theta_i}{\\alpha_i}\\,\\beta_i, \\qquad
        \\chi^2 = \\sum_{i=1}^{k} \\frac{(\\lambda_i - \\gamma_i)^2}{\\gamma_i}, \\qquad
        \\mathrm{df} = k - 1,

    right-tailed. Hand-written because no library has this statistic (it is not a standard test). See the
    module docstring for our reading of which score and outcome the paper uses.

    References
    ----------
    Paper B (significant-fairness-violations-nij), section II-J, Eq. 1 and 2, Table XII.

    Examples
    --------
    >>> r = calibration_test([0, 1, 0, 1], [0.1, 0.1, 0.1, 0.1], ["B", "B", "W", "W"],
    ...                      protected="B", unprotected="W", n_bins=1)
    >>> r.statistic, r.df
    (0.0, 0)
    """
    alpha, theta, beta, gamma, n_bins = _bin_counts(
        y_true, y_score, group, protected, unprotected, n_bins, favorable
    )
    used = (alpha > 0) & (beta > 0) & (gamma > 0)
    lam = np.full(n_bins, np.nan)
    np.divide(theta * beta, alpha, out=lam, where=alpha > 0)
    contribution = np.full(n_bins, np.nan)
    np.divide((lam - gamma) ** 2, gamma, out=contribution, where=used)
    edges = np.arange(n_bins + 1) / n_bins
    table = pd.DataFrame(
        {
            "bin": np.arange(n_bins),
            "score_lower": edges[:-1],
            "score_upper": edges[1:],
            "alpha": alpha,
            "theta": theta,
            "beta": beta,
            "gamma": gamma,
            "lambda": lam,
            "contribution": contribution,
            "used": used,
        }
    )
    _warn_unused(
        "bin(s)", [f"bin {j} (α={alpha[j]}, β={beta[j]}, γ={gamma[j]})" for j in np.flatnonzero(~used)]
    )
    return _paper_result(
        contribution,
        used,
        table,
        n_bins=n_bins,
        protected=protected,
        unprotected=unprotected,
        favorable=favorable,
        test="calibration",
    )


def well_calibration_test(
    y_true: object,
    y_score: object,
    group: object,
    *,
    protected: object,
    unprotected: object,
    n_bins: int = 10,
    favorable: int = 1,
) -> CalibrationResult:
    """Paper B's well-calibration test: both groups' (standardised) counts vs the bin's ends, 2k terms.

    Parameters
    ----------
    y_true, y_score, group, protected, unprotected, n_bins, favorable
        As in :func:`calibration_test`.

    Returns
    -------
    CalibrationResult
        As :func:`calibration_test` with ``test="well-calibration"``; ``table`` has two rows per bin
        (protected first): ``bin, score_lower, score_upper, role ("protected"/"unprotected"), group, n
        (α or β), k (θ or γ), beta, observed (λ or γ), p_lower, p_upper (the bin's probability interval
        for the counted outcome), p_expected (the chosen end), expected (p_expected·β), contribution, used``.

    Raises
    ------
    ValueError, TypeError
        As :func:`calibration_test`.

    Warns
    -----
    EmptyBinWarning
        Some term has expected count 0 (β = 0, α = 0, or the chosen end is p = 0) and is left out.

    Notes
    -----
    For bin i with score interval [lo, hi), the probability interval of the counted outcome is
    [p_lo, p_hi] = [lo, hi] (``favorable=1``) or [1 − hi, 1 − lo] (``favorable=0``). For observed count
    O (λ_i = θ_i/α_i·β_i for the protected group, γ_i for the unprotected group):

    .. math::

        E = \\beta_i \\operatorname*{arg\\,min}_{p \\in \\{p_{lo}, p_{hi}\\}} |O - p\\beta_i|, \\qquad
        \\chi^2 = \\sum_{i=1}^{k} \\sum_{g \\in \\{P, U\\}} \\frac{(O_{ig} - E_{ig})^2}{E_{ig}}, \\qquad
        \\mathrm{df} = 2k - 1,

    ties between the two ends go to the lower end. Every term uses an end of the bin even when O/β lies
    inside the interval, as the paper prescribes. Hand-written (no library has this statistic).

    References
    ----------
    Paper B, section II-K (and Eq. 1–2), Table XIII.

    Examples
    --------
    >>> r = well_calibration_test([0, 0, 1, 0], [0.75, 0.75, 0.75, 0.75], ["B", "B", "W", "W"],
    ...                           protected="B", unprotected="W", n_bins=2, favorable=0)
    >>> r.table.loc[r.table["bin"] == 1, ["role", "observed", "p_expected", "expected"]].to_numpy().tolist()
    [['protected', 2.0, 0.5, 1.0], ['unprotected', 1.0, 0.5, 1.0]]
    """
    alpha, theta, beta, gamma, n_bins = _bin_counts(
        y_true, y_score, group, protected, unprotected, n_bins, favorable
    )
    edges = np.arange(n_bins + 1) / n_bins
    lo, hi = edges[:-1], edges[1:]
    p_lower, p_upper = (lo, hi) if favorable == 1 else (1.0 - hi, 1.0 - lo)

    lam = np.full(n_bins, np.nan)
    np.divide(theta * beta, alpha, out=lam, where=alpha > 0)
    observed = np.stack([lam, gamma.astype(float)], axis=1)  # (bin, role)
    defined = np.stack([(alpha > 0) & (beta > 0), beta > 0], axis=1)
    e_lower = (p_lower * beta)[:, None]
    e_upper = (p_upper * beta)[:, None]
    take_upper = np.abs(observed - e_upper) < np.abs(observed - e_lower)
    p_expected = np.where(take_upper, p_upper[:, None], p_lower[:, None])
    expected = p_expected * beta[:, None]
    used = defined & (expected > 0)
    contribution = np.full(observed.shape, np.nan)
    np.divide((observed - expected) ** 2, expected, out=contribution, where=used)

    roles = np.array(["protected", "unprotected"], dtype=object)
    table = pd.DataFrame(
        {
            "bin": np.repeat(np.arange(n_bins), 2),
            "score_lower": np.repeat(lo, 2),
            "score_upper": np.repeat(hi, 2),
            "role": np.tile(roles, n_bins),
            "group": np.tile(np.array([protected, unprotected], dtype=object), n_bins),
            "n": np.stack([alpha, beta], axis=1).ravel(),
            "k": np.stack([theta, gamma], axis=1).ravel(),
            "beta": np.repeat(beta, 2),
            "observed": observed.ravel(),
            "p_lower": np.repeat(p_lower, 2),
            "p_upper": np.repeat(p_upper, 2),
            "p_expected": p_expected.ravel(),
            "expected": expected.ravel(),
            "contribution": contribution.ravel(),
            "used": used.ravel(),
        }
    )
    bad = table.loc[~table["used"]]
    _warn_unused(
        "term(s)",
        [
            f"bin {b} {r} (n={n}, β={be}, E={e:g})"
            for b, r, n, be, e in bad[["bin", "role", "n", "beta", "expected"]].itertuples(index=False)
        ],
    )
    return _paper_result(
        contribution,
        used,
        table,
        n_bins=n_bins,
        protected=protected,
        unprotected=unprotected,
        favorable=favorable,
        test="well-calibration",
    )
