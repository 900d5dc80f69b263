r"""Two models on the same people: each metric of both, and the 2 x 2 covariance of the pair, from counts.

The people of one group are counted over the eight cells of (outcome, baseline decision, new decision),
:func:`cell_codes`. Every rate of :data:`fairstats.metrics.METRICS` is a ratio of two sums of these cells,
:math:`m = w_{num}^\top p / w_{den}^\top p` (:func:`rate_weights`), for either model; the pair
(:math:`m_{base}, m_{new}`) has the multinomial delta-method covariance of :func:`rate_pair` (Moskowitz &
Pepe 2006 for predictive values; the same computation for every rate). The AUCs of two scores on the same
people have DeLong's paired covariance (:func:`auc_pair`), the mean scores of a class their sample covariance
(:func:`mean_pair`). :mod:`fairstats.disparity_change` combines the pairs of two groups into the change of a
disparity.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "RATE_METRICS",
    "auc_pair",
    "auc_values",
    "cell_codes",
    "mean_pair",
    "rate_pair",
    "rate_values",
    "rate_weights",
]

#: The metrics that are ratios of cell counts (the others, mean scores and the AUC, need the scores).
RATE_METRICS = ("ppr", "tpr", "fpr", "fnr", "tnr", "ppv", "npv", "accuracy", "fn_fp_ratio")

# Per cell (4 truth + 2 baseline + new; 1 = favourable): the three indicators.
_TRUTH = np.array([c >> 2 & 1 for c in range(8)], dtype=bool)
_BASE = np.array([c >> 1 & 1 for c in range(8)], dtype=bool)
_NEW = np.array([c & 1 for c in range(8)], dtype=bool)
_EVERYONE = np.ones(8, dtype=bool)


def cell_codes(truth: np.ndarray, base: np.ndarray, new: np.ndarray) -> np.ndarray:
    """The cell (0..7) of each person: ``4 truth + 2 base + new``, each 1 when favourable."""
    return (4 * truth.astype(np.int64) + 2 * base.astype(np.int64) + new.astype(np.int64)).astype(np.int64)


def rate_weights(metric: str, model: str) -> tuple[np.ndarray, np.ndarray]:
    """The cells of the numerator and of the denominator of ``metric`` for ``model`` (``"base"``/``"new"``),
    as 0/1 float vectors of length 8 (the definitions of :data:`fairstats.metrics.METRIC_DEFINITIONS`)."""
    pred = _BASE if model == "base" else _NEW
    t = _TRUTH
    parts = {
        "ppr": (pred, _EVERYONE),
        "tpr": (pred & t, t),
        "fpr": (pred & ~t, ~t),
        "fnr": (~pred & t, t),
        "tnr": (~pred & ~t, ~t),
        "ppv": (pred & t, pred),
        "npv": (~pred & ~t, ~pred),
        "accuracy": (pred == t, _EVERYONE),
        "fn_fp_ratio": (~pred & t, pred & ~t),
    }
    num, den = parts[metric]
    return num.astype(float), den.astype(float)


def rate_values(counts: np.ndarray, metric: str, model: str) -> np.ndarray:
    """``metric`` of ``model`` for each row of ``counts`` (shape (..., 8)); NaN where the denominator is 0."""
    num, den = rate_weights(metric, model)
    top, bottom = counts @ num, counts @ den
    out = np.full(np.shape(top), np.nan)
    np.divide(top, bottom, out=out, where=bottom > 0)
    return out


def rate_pair(counts: np.ndarray, metric: str, pseudo_count: float) -> tuple[np.ndarray, np.ndarray, str]:
    r"""Both models' ``metric`` in one group and the delta-method covariance of the pair.

    Parameters
    ----------
    counts : numpy.ndarray, shape (8,)
        People per cell of (outcome, baseline decision, new decision), :func:`cell_codes`' order.
    metric : str
        One of :data:`RATE_METRICS`.
    pseudo_count : float
        Added to each of the eight cells for the covariance only (0: the plain delta method).

    Returns
    -------
    values : numpy.ndarray, shape (2,)
        (baseline, new), from the counts as they are; NaN where a denominator is 0.
    cov : numpy.ndarray, shape (2, 2)
        :math:`G\, \mathrm{diag}(\tilde p)\, G^\top / \tilde N` with :math:`\tilde p` the smoothed cell
        shares, :math:`\tilde N = N + 8 k` and the rows of :math:`G` the gradients
        :math:`(w_{num} - m\, w_{den}) / w_{den}^\top \tilde p` (the term :math:`p p^\top` of the
        multinomial covariance drops out, as :math:`G \tilde p = 0`). NaN when a value is undefined.
    reason : str
        Why a value is undefined ("" otherwise).
    """
    counts = np.asarray(counts, dtype=float)
    values = np.array([rate_values(counts, metric, m) for m in ("base", "new")], dtype=float)
    if np.isnan(values).any():
        which = " and ".join(w for w, v in zip(("baseline", "new model"), values, strict=True) if np.isnan(v))
        return values, np.full((2, 2), np.nan), f"{metric} undefined for the {which} (its denominator is 0)"
    total = counts.sum() + 8 * pseudo_count
    p = (counts + pseudo_count) / total
    rows = []
    for model in ("base", "new"):
        num, den = rate_weights(metric, model)
        bottom = den @ p
        rows.append((num - (num @ p / bottom) * den) / bottom)
    g = np.array(rows)
    return values, (g * p) @ g.T / total, ""


def auc_values(score: np.ndarray, positive: np.ndarray, weight: np.ndarray) -> float:
    """The AUC of ``score`` for the cases ``positive`` (ties half), each row held by ``weight`` people; NaN
    without a positive or a negative."""
    if not (weight @ positive > 0 and weight @ ~positive > 0):
        return float("nan")
    return _placements(score, positive, weight)[1]


def _placements(score: np.ndarray, positive: np.ndarray, weight: np.ndarray) -> tuple[np.ndarray, float]:
    """Per person, DeLong's placement (a positive's share of negatives below it, ties half; a negative's share
    of positives above it), and the AUC."""
    values, inverse = np.unique(score, return_inverse=True)
    pos = np.bincount(inverse, weights=weight * positive, minlength=values.size)
    neg = np.bincount(inverse, weights=weight * ~positive, minlength=values.size)
    m, n = pos.sum(), neg.sum()
    v10 = (np.cumsum(neg) - neg + 0.5 * neg) / n
    v01 = (m - np.cumsum(pos) + 0.5 * pos) / m
    auc = float(pos @ v10 / m)
    return np.where(positive, v10[inverse], v01[inverse]), auc


def auc_pair(
    score_base: np.ndarray, score_new: np.ndarray, positive: np.ndarray, weight: np.ndarray
) -> tuple[np.ndarray, np.ndarray, str]:
    r"""Both scores' AUC in one group and DeLong's covariance of the pair (the same people).

    ``weight`` counts the people of each row (counted input). With :math:`V^{(k)}_{10}(X_i)` and
    :math:`V^{(k)}_{01}(Y_j)` the placements of score :math:`k`, :math:`S_{10}` the 2 x 2 covariance of
    :math:`(V^{(base)}_{10}, V^{(new)}_{10})` over the :math:`m` positives and :math:`S_{01}` over the
    :math:`n` negatives (divisor :math:`m - 1`, :math:`n - 1`), the covariance is
    :math:`S_{10}/m + S_{01}/n` (DeLong, DeLong & Clarke-Pearson 1988, Sec. 2).
    """
    m, n = float(weight @ positive), float(weight @ ~positive)
    if m < 2 or n < 2:
        return (
            np.full(2, np.nan),
            np.full((2, 2), np.nan),
            "fewer than 2 positives or 2 negatives: no AUC variance",
        )
    place, aucs = [], []
    for score in (score_base, score_new):
        v, auc = _placements(score, positive, weight)
        place.append(v)
        aucs.append(auc)
    values = np.array(aucs)
    cov = np.zeros((2, 2))
    for mask, size in ((positive, m), (~positive, n)):
        w = weight[mask]
        x = np.stack([p[mask] for p in place])
        centred = x - (x @ w / size)[:, None]
        cov += (centred * w) @ centred.T / (size - 1) / size
    return values, cov, ""


def mean_pair(
    score_base: np.ndarray, score_new: np.ndarray, weight: np.ndarray
) -> tuple[np.ndarray, np.ndarray, str]:
    """Both scores' mean over the same people and the covariance of the two means (sample covariance of
    the paired scores, divisor n - 1, over n)."""
    n = float(weight.sum())
    if n < 2:
        return np.full(2, np.nan), np.full((2, 2), np.nan), "fewer than 2 people: no variance of the mean"
    x = np.stack([score_base, score_new])
    values = x @ weight / n
    centred = x - values[:, None]
    return values, (centred * weight) @ centred.T / (n - 1) / n, ""
