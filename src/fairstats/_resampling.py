"""Resampling: the generator and the resample count checked once, the seed scheme, and the draws.

After scipy.stats' ``_resampling.py``, the one home of what the bootstrap (:mod:`fairstats.bootstrap`), the
permutation p-value of the equal confusion test (:mod:`fairstats.confusion`), the max-T subgroup search
(:mod:`fairstats.search`), the ICI's and the regression's bootstraps share:

- :func:`rng_iv` and :func:`n_resamples_iv`: ``rng`` is ``None``, an integer seed, a ``SeedSequence`` or a
  numpy ``Generator``; ``n_resamples`` is a whole number of at least 1 (the one bound, docs/defaults.rst;
  where 0 means "no interval" the function says so, and the command line asks for 99 to 1,000,000).
- :func:`derived_rng`: the seed scheme: one independent, reproducible stream per task, from the seed and the
  CRC32 of the task's name (nothing depends on ``PYTHONHASHSEED``).
- :func:`multinomial_draws`, :func:`row_multinomial_draws`: bootstrap resamples of a sample held as category
  counts, and of a table's rows (the groups) each on its own.
- :func:`fixed_margin_tables`: random tables with both margins fixed (``scipy.stats.random_table``,
  Patefield's algorithm): a permutation of the group labels drawn directly as its table.
- :func:`max_t_pvalues`: Westfall and Young's step-down max-T adjusted p-values from permutation draws.
- :func:`interval_levels`, :func:`interval_ends`, :func:`drop_undefined`: the percentile, basic and BCa
  intervals as ``scipy.stats.bootstrap`` computes them from a bootstrap distribution.

Why not simply ``scipy.stats.bootstrap``: it resamples rows (people) and its BCa jackknife leaves out each
person, which for an audit of millions of people is millions of statistic evaluations per resample. Here a
sample is its category counts (confusion cell x score): a resample is one multinomial draw of those counts
(the same distribution as resampling the people), and the BCa jackknife leaves out one person of each
category, weighted by the category's count (the same sums as scipy's over the n leave-one-out values).
``tests/unit/test_bootstrap.py`` checks the intervals equal scipy's on the same bootstrap distribution.

References
----------
Westfall, P. H. and Young, S. S. (1993). *Resampling-Based Multiple Testing*. Wiley, Algorithm 2.8.
Patefield, W. M. (1981). Algorithm AS 159. *Applied Statistics* 30(1), 91-97.
Efron, B. (1987). Better bootstrap confidence intervals. *JASA* 82(397), 171-185.
"""

from __future__ import annotations

import numbers
import warnings
import zlib
from collections.abc import Iterable, Iterator, Sequence

import numpy as np
from scipy import stats
from scipy.special import ndtr, ndtri

from fairstats._warnings import BCaUndefinedWarning, UndefinedResampleWarning

__all__ = [
    "BATCH_ELEMENTS",
    "MAX_MULTINOMIAL_CATEGORIES",
    "derived_rng",
    "drop_undefined",
    "fixed_margin_tables",
    "interval_ends",
    "interval_levels",
    "max_t_pvalues",
    "multinomial_draws",
    "n_resamples_iv",
    "rng_iv",
    "row_multinomial_draws",
]

#: Up to this many categories a resample is one multinomial draw of the counts; beyond (a continuous score)
#: people are drawn by index and counted.
MAX_MULTINOMIAL_CATEGORIES = 256
#: Draws per batch: about this many array entries (32 MB of float64), whatever the sample's size.
BATCH_ELEMENTS = 4_000_000


# --------------------------------------------------------------------------------------------------------
# the checks and the seed scheme
# --------------------------------------------------------------------------------------------------------


def rng_iv(rng: object) -> np.random.Generator:
    """``numpy.random.default_rng(rng)`` for ``None``, an integer seed, a ``SeedSequence`` or a ``Generator``
    (returned as it is); ``TypeError`` naming ``rng`` for anything else, ``True``/``False`` included."""
    if isinstance(rng, bool) or not (
        rng is None or isinstance(rng, numbers.Integral | np.random.Generator | np.random.SeedSequence)
    ):
        shown = repr(rng) if isinstance(rng, bool) else type(rng).__name__
        raise TypeError(f"`rng` must be None, an int seed or a numpy Generator, got {shown}")
    return np.random.default_rng(rng)


def n_resamples_iv(value: object, *, zero: str | None = None) -> int:
    """``value`` as an ``int`` of at least 1, else ``ValueError`` naming ``n_resamples``.

    ``zero``: what 0 means for this function (e.g. ``"no ICI interval"``); 0 is then accepted too.
    """
    whole = not isinstance(value, bool) and isinstance(value, numbers.Integral)
    if whole and (int(value) >= 1 or (zero is not None and int(value) == 0)):
        return int(value)
    if zero is None:
        raise ValueError(f"`n_resamples` must be a positive integer, got {value!r}")
    raise ValueError(f"`n_resamples` must be a whole number >= 0 (0: {zero}), got {value!r}")


def derived_rng(seed: int, *parts: str) -> np.random.Generator:
    """Independent, reproducible stream per task: seed + CRC32 of the task's name (no PYTHONHASHSEED)."""
    return np.random.default_rng(np.random.SeedSequence([seed, *(zlib.crc32(p.encode()) for p in parts)]))


# --------------------------------------------------------------------------------------------------------
# the draws
# --------------------------------------------------------------------------------------------------------


def multinomial_draws(count: np.ndarray, n_resamples: int, rng: np.random.Generator) -> Iterator[np.ndarray]:
    """Yield batches (b, k) of resampled category counts: bootstrap resamples of the ``count.sum()`` people
    held as ``count`` (k,) people per category (all > 0), ``n_resamples`` in all."""
    k, n = count.size, int(count.sum())
    if k <= MAX_MULTINOMIAL_CATEGORIES:
        pvals = count / n
        batch = max(1, min(n_resamples, BATCH_ELEMENTS // max(k, 1)))
        done = 0
        while done < n_resamples:
            b = min(batch, n_resamples - done)
            yield rng.multinomial(n, pvals, size=b).astype(float)
            done += b
        return
    # many categories (a continuous score): draw people by index, then count categories per resample
    category = np.repeat(np.arange(k), count)
    batch = max(1, min(n_resamples, BATCH_ELEMENTS // max(n, 1)))
    done = 0
    while done < n_resamples:
        b = min(batch, n_resamples - done)
        drawn = category[rng.integers(0, n, size=(b, n))]
        flat = (np.arange(b)[:, None] * k + drawn).ravel()
        yield np.bincount(flat, minlength=b * k).reshape(b, k).astype(float)
        done += b


def row_multinomial_draws(
    table: np.ndarray, n_resamples: int, rng: np.random.Generator
) -> Iterator[np.ndarray]:
    """Yield batches (b, q, r) of bootstrap tables: each row of ``table`` (q, r) resampled on its own (the
    group sizes fixed), one multinomial draw of the row's counts per row, ``n_resamples`` tables in all."""
    q, r = table.shape
    batch = max(1, min(n_resamples, BATCH_ELEMENTS // (q * r)))
    done = 0
    while done < n_resamples:
        b = min(batch, n_resamples - done)
        yield np.stack(
            [rng.multinomial(table[i].sum(), table[i] / table[i].sum(), size=b) for i in range(q)], axis=1
        )
        done += b


def fixed_margin_tables(
    row_sums: np.ndarray, col_sums: np.ndarray, n_resamples: int, rng: np.random.Generator, *, batch: int
) -> Iterator[np.ndarray]:
    """Yield batches (b, rows, columns) of random tables with the given margins, ``n_resamples`` in all.

    Shuffling the group labels over people keeps every group's size and every cell's total, and the table it
    gives is multiple hypergeometric given those margins; the tables are drawn from that distribution
    directly (Patefield's algorithm, ``scipy.stats.random_table``), O(rows x columns) per table whatever
    the number of people. ``batch`` tables at a time.
    """
    tables = stats.random_table(row_sums, col_sums, seed=rng)
    done = 0
    while done < n_resamples:
        b = min(batch, n_resamples - done)
        yield tables.rvs(size=b, method="patefield")
        done += b


def max_t_pvalues(
    observed: np.ndarray, draws: Iterable[np.ndarray], n_resamples: int
) -> tuple[np.ndarray, np.ndarray]:
    """Marginal and Westfall-Young step-down max-T adjusted permutation p-values.

    ``observed`` (m,): the statistics, sorted from the largest; each of ``draws`` is a batch (b, m) of the
    same statistics under a permutation, in the same order (``n_resamples`` rows in all). Marginal
    :math:`p_j = (1 + \\#\\{T^*_j \\ge t_j\\}) / (1 + B)`; adjusted :math:`\\tilde p_j` from the successive
    maxima :math:`\\max_{k \\ge j} T^*_k` (Westfall and Young 1993, Algorithm 2.8), made monotone.
    """
    marginal = np.zeros(observed.size, dtype=np.int64)
    stepdown = np.zeros(observed.size, dtype=np.int64)
    for zb in draws:
        marginal += (zb >= observed).sum(axis=0)
        successive = np.maximum.accumulate(zb[:, ::-1], axis=1)[:, ::-1]
        stepdown += (successive >= observed).sum(axis=0)
    p_marginal = (1.0 + marginal) / (1.0 + n_resamples)
    p_adjusted = np.maximum.accumulate((1.0 + stepdown) / (1.0 + n_resamples))
    return p_marginal, p_adjusted


# --------------------------------------------------------------------------------------------------------
# intervals from a bootstrap distribution, as scipy.stats.bootstrap computes them
# --------------------------------------------------------------------------------------------------------


def _percentile_of_score(boot: np.ndarray, value: float) -> float:
    """scipy.stats.bootstrap's ``_percentile_of_score``: the 'mean' kind, as a fraction."""
    return float(((boot < value).sum() + (boot <= value).sum()) / (2 * boot.size))


def _acceleration(jackknife: Sequence[tuple[np.ndarray, np.ndarray]]) -> float:
    """BCa acceleration from per-sample jackknife values and their multiplicities (scipy's estimator).

    ``jackknife[j] = (theta_i, m_i)``: leaving out one person of category i of sample j gives theta_i, and
    sample j has m_i such people. Same sums as scipy's ``_bca_interval`` over the n_j leave-one-out values.
    """
    nums, dens = 0.0, 0.0
    for theta, m in jackknife:
        n = float(m.sum())
        mean = float((m * theta).sum() / n)
        u = (n - 1.0) * (mean - theta)
        nums += float((m * u**3).sum() / n**3)
        dens += float((m * u**2).sum() / n**2)
    return (1.0 / 6.0) * nums / dens**1.5 if dens > 0 else float("nan")


def interval_levels(
    estimate: float,
    boot: np.ndarray,
    jackknife: Sequence[tuple[np.ndarray, np.ndarray]] | None,
    *,
    confidence_level: float,
    method: str,
    what: str = "statistic",
    warn: bool = True,
) -> tuple[tuple[float, float] | None, str]:
    """Quantile levels of the two-sided interval as scipy.stats.bootstrap computes them from ``boot`` (BCa's
    shifted levels for ``"BCa"``) and the method used; ``None`` when there is no interval: no resample or
    an undefined estimate, or BCa's bias or acceleration undefined (method ``"undefined"``, with a
    :class:`BCaUndefinedWarning`; no silent percentile substitute)."""
    if boot.size == 0 or not np.isfinite(estimate):
        return None, method
    alpha = (1.0 - confidence_level) / 2.0
    probs = (alpha, 1.0 - alpha)
    if method == "BCa":
        z0 = float(ndtri(_percentile_of_score(boot, estimate)))
        a_hat = _acceleration(jackknife) if jackknife is not None else float("nan")
        if np.isfinite(z0) and np.isfinite(a_hat):
            z = float(ndtri(alpha))
            num1, num2 = z0 + z, z0 - z
            probs = (float(ndtr(z0 + num1 / (1 - a_hat * num1))), float(ndtr(z0 + num2 / (1 - a_hat * num2))))
        else:
            if warn:
                why = "bias correction" if not np.isfinite(z0) else "acceleration"
                warnings.warn(
                    BCaUndefinedWarning(
                        f"{what}: the BCa {why} is undefined; the interval is left undefined "
                        "(choose method='percentile' explicitly to get one)"
                    ),
                    stacklevel=3,
                )
            return None, "undefined"
    return probs, method


def _linear_quantiles(values: np.ndarray, probs) -> np.ndarray:
    """``scipy.stats.quantile(values, probs)`` (its default ``"linear"`` rule, Hyndman and Fan's type 7) from
    the two order statistics each level needs (``np.partition``) instead of a sort of the resamples: scipy's
    operations on the same order statistics, so the same floats (tested); ``values`` finite, not empty."""
    n = float(values.size)
    p = np.asarray(probs, dtype=float)
    jg = p * n + (1 - p)
    jp1 = jg // 1
    j = jp1 - 1
    g = np.where(j < 0, 0.0, jg % 1)
    j, jp1 = np.clip(j, 0.0, n - 1).astype(np.int64), np.clip(jp1, 0.0, n - 1).astype(np.int64)
    ordered = np.partition(values, np.unique(np.concatenate([j, jp1])))
    return (1 - g) * ordered[j] + g * ordered[jp1]


def interval_ends(
    estimates: Sequence[float],
    boots: Sequence[np.ndarray],
    levels: Sequence[tuple[float, float] | None],
    method: str,
) -> list[tuple[float, float]]:
    """Ends of each interval: the quantiles of each resample column at its two levels as
    ``scipy.stats.quantile`` computes them (:func:`_linear_quantiles`; NaN where the levels are ``None``),
    reflected for ``"basic"``."""
    nan = float("nan")
    ends = [(nan, nan)] * len(boots)
    for i, probs in enumerate(levels):
        if probs is None:
            continue
        low, high = (float(v) for v in _linear_quantiles(boots[i], probs))
        if method == "basic":
            low, high = 2 * estimates[i] - high, 2 * estimates[i] - low
        ends[i] = (low, high)
    return ends


def drop_undefined(boot: np.ndarray, what: str, warn: bool) -> tuple[np.ndarray, int]:
    """The finite resample values of ``boot`` and how many were not (an :class:`UndefinedResampleWarning`
    says how many, naming ``what``, when ``warn``)."""
    ok = np.isfinite(boot)
    bad = int((~ok).sum())
    if bad and warn:
        warnings.warn(
            UndefinedResampleWarning(
                f"{what}: {bad} of {boot.size} bootstrap resamples leave it undefined (a zero denominator); "
                "the interval uses the others"
            ),
            stacklevel=3,
        )
    return boot[ok], bad
