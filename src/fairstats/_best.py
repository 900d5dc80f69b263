r"""The four-fifths verdict's intervals and sizes: one ratio of two selection rates, and each category's ratio
to the most selected category when the data choose it.

With a named reference, a category's interval is the Miettinen-Nurminen score interval of its ratio
(:func:`fairstats._proportions.ratio_score_interval`). With the most selected category as reference
(``reference="max"``, LL144's choice) the reference is chosen by the data, and intervals against it at the
per-comparison level miss their ratio more often than the family level says (five equal categories: 0.10 at
a nominal 0.05). :func:`best_intervals` takes the score intervals of *every pair* of categories, Bonferroni
over the pairs; on the event that all of them cover,

.. math:: \theta_g = \frac{p_g}{\max_h p_h} = \min_h \frac{p_g}{p_h}
          \in \Big[\min_h L_{gh},\; \min\big(1, \min_h U_{gh}\big)\Big]

for every category at once (the minimum is monotone; :math:`L_{gg} = U_{gg} = 1`), whichever category is truly
the most selected: the comparisons with the best deduced from all pairwise comparisons (Hsu 1996, Ch. 4;
Edwards & Hsu 1983). :func:`n_to_decide` is the size at which an inconclusive verdict would be decided.

References
----------
J. C. Hsu (1996), *Multiple Comparisons: Theory and Methods*, Chapman & Hall, Ch. 4 (multiple comparisons
with the best). D. G. Edwards and J. C. Hsu (1983), Multiple comparisons with the best treatment, *JASA*
78(384), 965-971. O. Miettinen and M. Nurminen (1985), Comparative analysis of two rates, *Statistics in
Medicine* 4(2), 213-226.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from fairstats._proportions import fisher_test, pooled_z_test, ratio_score, ratio_score_interval
from fairstats.multiplicity import adjust_pvalues

__all__ = [
    "FOUR_FIFTHS",
    "best_intervals",
    "family_holm",
    "n_to_decide",
    "pair_interval",
    "selections_to_reverse",
]

#: The four-fifths threshold of the Uniform Guidelines (29 CFR 1607.4(D)); exact comparisons of counts use
#: integers (``5 x n_r < 4 x_r n``), not this float.
FOUR_FIFTHS = 0.8

_LARGEST_FACTOR = 2.0**40  # n_to_decide: a data set 10^12 times larger decides any ratio not exactly 0.8


def _four_fifths_statistic(count1, nobs1, count2, nobs2) -> float:
    """Miettinen-Nurminen statistic of p1 / p2 = 0.8; with ``count2`` = 0, that of p2 / p1 = 1.25 with the
    sign changed (the statistic of the reciprocal ratio)."""
    if count2 > 0:
        return ratio_score(count1, nobs1, count2, nobs2, FOUR_FIFTHS)
    return -ratio_score(count2, nobs2, count1, nobs1, 1 / FOUR_FIFTHS)


def n_to_decide(count1, nobs1, count2, nobs2, alpha: float) -> float:
    """Smallest size of the category that decides an inconclusive verdict of p1 / p2 against 0.8 at
    ``alpha``, the rates and the ratio of the two sizes kept (both samples scaled by one factor); NaN when
    the ratio is exactly 0.8 (or both counts are 0)."""
    from scipy import stats

    if 5 * count1 * nobs2 == 4 * nobs1 * count2:  # exactly four fifths (integer counts), or 0 of both
        return float("nan")
    below = 5 * count1 * nobs2 < 4 * nobs1 * count2
    z = float(stats.norm.isf(alpha / 2))

    def decides(people: float) -> bool:
        k = people / nobs1
        statistic = _four_fifths_statistic(count1 * k, nobs1 * k, count2 * k, nobs2 * k)
        return statistic < -z if below else statistic > z

    high = float(nobs1)
    while not decides(high):
        high *= 2
        if high > nobs1 * _LARGEST_FACTOR:
            return float("nan")
    low = high / 2 if high > nobs1 else float(nobs1)
    low, high = math.floor(low), math.ceil(high)
    while high - low > 1:
        middle = (low + high) // 2
        if decides(float(middle)):
            high = middle
        else:
            low = middle
    return float(high)


def pair_interval(x, n, xh, nh, alpha: float) -> tuple[float, float]:
    """Score interval of p / p_h at 1 - ``alpha``: inverted from that of p_h / p when ``xh`` is 0 (the
    Miettinen-Nurminen statistic of the reciprocal ratio is the same with the sign changed); (0, inf)
    when both counts are 0."""
    if xh > 0:
        return ratio_score_interval(float(x), float(n), float(xh), float(nh), alpha)
    if x > 0:
        low, high = ratio_score_interval(float(xh), float(nh), float(x), float(n), alpha)
        return 1.0 / high, (1.0 / low if low > 0 else math.inf)
    return 0.0, math.inf


def best_intervals(part: pd.DataFrame, alpha_each: float, *, sizes: bool = True):
    r"""Each category's interval for its ratio to the truly most selected category, its ``n_to_decide``, and
    every pair's z and Fisher p-values.

    Parameters
    ----------
    part : pandas.DataFrame
        The categories of one grouping: ``category``, ``selected``, ``n``.
    alpha_each : float
        Level of each pair's interval (the family's alpha over the number of pairs).
    sizes : bool, default True
        Compute ``to_decide`` (False: an empty dict; the coverage simulations need the intervals only).

    Returns
    -------
    intervals : dict
        category -> (low, high) for :math:`\theta_g` (module docstring).
    to_decide : dict
        category -> the smallest size (all categories scaled alike) at which its verdict would be decided:
        below 4/5 as soon as one pair below 4/5 decides it, at or above 4/5 when every pair does.
    pvalues : list
        ``(g, h, z_pvalue, fisher_pvalue)`` for every pair.
    """
    from fractions import Fraction  # (the import of fairstats stays light)

    labels = part["category"].tolist()
    x = dict(zip(labels, part["selected"].astype(int), strict=True))
    n = dict(zip(labels, part["n"].astype(int), strict=True))
    bounds = {g: ([1.0], [1.0]) for g in labels}
    pvalues = []
    for i, g in enumerate(labels):
        for h in labels[i + 1 :]:
            low, high = pair_interval(x[g], n[g], x[h], n[h], alpha_each)
            bounds[g][0].append(low)
            bounds[g][1].append(high)
            bounds[h][0].append(1.0 / high if high > 0 else math.inf)
            bounds[h][1].append(1.0 / low if low > 0 else math.inf)
            z_p = pooled_z_test(x[g], n[g], x[h], n[h])[1]
            pvalues.append((g, h, z_p, fisher_test(x[g], n[g], x[h], n[h])))
    intervals = {g: (min(lows), min(1.0, min(highs))) for g, (lows, highs) in bounds.items()}
    best = max(labels, key=lambda g: Fraction(x[g], n[g]))
    to_decide = {}
    for g in labels if sizes else ():
        others = [h for h in labels if h != g]
        if 5 * x[g] * n[best] == 4 * x[best] * n[g] or not others:
            to_decide[g] = math.nan
        elif 5 * x[g] * n[best] < 4 * x[best] * n[g]:  # below: the first pair below 4/5 that decides
            sizes = [n_to_decide(x[g], n[g], x[h], n[h], alpha_each) for h in others
                     if 5 * x[g] * n[h] < 4 * x[h] * n[g]]
            to_decide[g] = float(np.nanmin(sizes)) if np.isfinite(sizes).any() else math.nan
        else:  # at or above: every pair has to decide
            sizes = [n_to_decide(x[g], n[g], x[h], n[h], alpha_each) for h in others]
            to_decide[g] = float(max(sizes)) if np.isfinite(sizes).all() else math.nan
    return intervals, to_decide, pvalues


def selections_to_reverse(count1: int, nobs1: int, count2: int, nobs2: int) -> int:
    """Fewest selections changed in the category (added when its ratio is below 4/5, removed when it is at
    or above) that move its ratio to the other side of four fifths, the comparison rate kept.

    In integers: four fifths of the comparison rate is :math:`t / (5 n_r)` selections with
    :math:`t = 4 x_r n`; below it, :math:`\\lceil (t - 5 n_r x) / (5 n_r) \\rceil` are missing; at or above,
    :math:`\\lfloor (5 n_r x - t) / (5 n_r) \\rfloor + 1` removed make it below."""
    gap = 4 * count2 * nobs1 - 5 * nobs2 * count1
    if gap > 0:
        return -(-gap // (5 * nobs2))
    return (-gap) // (5 * nobs2) + 1


def family_holm(frame, compared, pairs, alpha):
    """Holm over the family: the compared categories of groupings with a named reference, and every pair of
    categories of those whose reference was chosen from the data (of which the pairs with the reference are
    reported), so that the family-wise error holds whichever category the data made the reference."""
    frame = frame.copy()
    reported_pair = {}
    for index, row in frame[compared].iterrows():
        for a, b in ((row["category"], row["reference"]), (row["reference"], row["category"])):
            if any(p[:3] == (row["grouping"], a, b) for p in pairs):
                reported_pair[index] = (row["grouping"], a, b)
    for j, column in enumerate(("z_pvalue", "fisher_pvalue")):
        own = [i for i in frame.index[compared] if i not in reported_pair]
        family = pd.DataFrame({
            "key": [("row", i) for i in own] + [("pair", *p[:3]) for p in pairs],
            "pvalue": [frame.at[i, column] for i in own] + [p[3 + j] for p in pairs],
        })  # fmt: skip
        adjusted = pd.Series(np.nan, index=frame.index)
        if len(family):
            out = adjust_pvalues(family, method="holm", pvalue="pvalue", alpha=alpha, suffix="holm")
            value = dict(zip(family["key"], out["pvalue_holm"], strict=True))
            for i in own:
                adjusted.loc[i] = value[("row", i)]
            for i, pair in reported_pair.items():
                adjusted.loc[i] = value[("pair", *pair)]
        frame[f"{column}_holm"] = adjusted
    return frame
