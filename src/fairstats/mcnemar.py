"""Exact McNemar mid-p test for paired binary predictions (paper B, Eq. 3), and the paired 2×2 table.

Used for causal discrimination (original vs race-flipped prediction, paper B II-N) and fairness through
awareness (own prediction vs nearest other-race neighbour's prediction, II-O).

Reading of Eq. 3
----------------
Paper B's Eq. 3 prints ``2·Σ_{i=0}^{k} C(n,i) 0.5^n − C(n,k) 0.5^n`` with n the number of discordant pairs;
it is the two-sided mid-p (Fagerland et al., 2013) when k is the *smaller* of the two discordant counts,
which is what :func:`mcnemar_midp` uses. Two-sided p-values do not depend on which discordant count is
called b.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.stats import binom

from fairstats._result import Result
from fairstats._validation import alternative_iv

__all__ = [
    "McNemarResult",
    "mcnemar_midp",
    "mcnemar_midp_table",
    "paired_table",
]



@dataclass(frozen=True)
class McNemarResult(Result):
    """Result of an exact (mid-p) McNemar test on the discordant counts of a paired 2×2 table.

    Attributes
    ----------
    statistic : int
        k, the count entering the binomial sum: ``min(b, c)`` for ``"two-sided"``, ``b`` for one-sided tests.
    b : int
        Discordant pairs (first = 0, second = 1): cell [0, 1] of :func:`paired_table`.
    c : int
        Discordant pairs (first = 1, second = 0): cell [1, 0].
    n : int
        Number of discordant pairs, ``b + c``.
    pvalue : float
        The p-value (never rounded).
    alternative : str
        ``"two-sided"``, ``"less"`` (fewer (0, 1) than (1, 0) pairs) or ``"greater"``.
    method : str
        The formula of ``pvalue``: ``"mid-p"`` for :func:`mcnemar_midp` and :func:`mcnemar_midp_table`.
    """

    statistic: int
    b: int
    c: int
    n: int
    pvalue: float
    alternative: str
    method: str


def _count_iv(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral | np.integer):
        if isinstance(value, numbers.Real) and float(value).is_integer():
            value = int(value)
        else:
            raise TypeError(f"`{name}` must be a whole count, got {value!r}")
    value = int(value)
    if value < 0:
        raise ValueError(f"`{name}` must be a count >= 0, got {value}")
    return value


def _mcnemar_iv(b: object, c: object, alternative: str) -> tuple[int, int]:
    alternative_iv(alternative)
    return _count_iv(b, "b"), _count_iv(c, "c")


def mcnemar_midp(b: int, c: int, *, alternative: str = "two-sided") -> McNemarResult:
    """Exact McNemar mid-p test from the two discordant counts of a paired 2×2 table.

    Parameters
    ----------
    b : int
        Pairs with (first = 0, second = 1), e.g. original prediction 0, counterfactual 1 (cell [0, 1]).
    c : int
        Pairs with (first = 1, second = 0) (cell [1, 0]).
    alternative : {"two-sided", "less", "greater"}
        ``"two-sided"``: H1 P(0→1) ≠ P(1→0). ``"less"``: H1 b is smaller than under H0 (fewer 0→1 pairs).
        ``"greater"``: H1 b is larger.

    Returns
    -------
    McNemarResult
        ``statistic`` (k), ``b``, ``c``, ``n = b + c``, ``pvalue``, ``alternative``, ``method="mid-p"``.

    Raises
    ------
    ValueError
        Negative count or unknown ``alternative``.
    TypeError
        Non-integer count.

    Notes
    -----
    Under H0 the discordant pairs split like a fair coin: b ~ Binomial(n, 1/2), n = b + c. With
    X ~ Binomial(n, 1/2) and m = min(b, c), the two-sided mid-p (Fagerland et al., 2013) is

    .. math::

        p = \\min\\left(1,\\; 2 P(X \\le m) - P(X = m)\\right)
          = \\min\\left(1,\\; 2\\sum_{i=0}^{m}\\binom{n}{i}0.5^n - \\binom{n}{m}0.5^n\\right),

    the paper's Eq. 3 with k = m (the cap is reached only when b = c). One-sided: ``"less"``
    ``P(X < b) + P(X = b)/2``, ``"greater"`` ``P(X > b) + P(X = b)/2``. With no discordant pairs (n = 0) the
    p-value is 1. Computed with :data:`scipy.stats.binom`.

    References
    ----------
    Paper B (significant-fairness-violations-nij), Eq. 3 (the test it applies in Sections II-N and II-O).
    M. W. Fagerland, S. Lydersen, P. Laake, "The McNemar test for binary matched-pairs data: mid-p and
    asymptotic are better than exact conditional", BMC Medical Research Methodology 13:91 (2013).

    Examples
    --------
    >>> r = mcnemar_midp(13, 15)
    >>> r.statistic, r.n, round(r.pvalue, 4)
    (13, 28, 0.7111)
    """
    b, c = _mcnemar_iv(b, c, alternative)
    n = b + c
    if alternative == "two-sided":
        k = min(b, c)
        p = min(1.0, 2.0 * binom.cdf(k, n, 0.5) - binom.pmf(k, n, 0.5))
    elif alternative == "less":
        k = b
        p = binom.cdf(k, n, 0.5) - 0.5 * binom.pmf(k, n, 0.5)
    else:
        k = b
        p = binom.sf(k, n, 0.5) + 0.5 * binom.pmf(k, n, 0.5)
    return McNemarResult(statistic=k, b=b, c=c, n=n, pvalue=float(p), alternative=alternative, method="mid-p")


def paired_table(
    a: object,
    b: object,
    *,
    names: tuple[str, str] = ("original", "counterfactual"),
    labels: tuple[object, object] = (0, 1),
) -> pd.DataFrame:
    """Paired 2×2 table: rows = value in ``a``, columns = value in ``b``, one count per pair.

    Parameters
    ----------
    a, b : array-like
        Paired binary predictions of the same people (e.g. original and race-flipped prediction, or own and
        nearest neighbour's prediction), equal length.
    names : (str, str)
        Axis names (index name, columns name), e.g. ``("original", "neighbor")``.
    labels : (object, object)
        The two labels, in row/column order.

    Returns
    -------
    pandas.DataFrame
        2×2 integer counts, index ``labels`` named ``names[0]``, columns ``labels`` named ``names[1]``.
        Cell [0, 1] (``a = labels[0]``, ``b = labels[1]``) is McNemar's ``b``.

    Raises
    ------
    ValueError
        Different lengths, empty input, missing values or a value outside ``labels``.

    Examples
    --------
    >>> paired_table([0, 0, 1, 1, 1], [0, 1, 0, 1, 1]).to_numpy().tolist()
    [[1, 1], [1, 2]]
    """
    x = np.asarray(a)
    y = np.asarray(b)
    if x.ndim != 1 or y.ndim != 1:
        raise ValueError(f"`a` and `b` must be 1-D, got shapes {x.shape} and {y.shape}")
    if len(x) != len(y):
        raise ValueError(f"`a` and `b` must have equal length, got {len(x)} and {len(y)}")
    if len(x) == 0:
        raise ValueError("`a` and `b` are empty")
    if len(labels) != 2 or labels[0] == labels[1]:
        raise ValueError(f"`labels` must be two distinct labels, got {labels!r}")
    codes = []
    for name, v in (("a", x), ("b", y)):
        code = np.full(len(v), -1)
        code[v == labels[0]] = 0
        code[v == labels[1]] = 1
        if (code < 0).any():
            i = int(np.flatnonzero(code < 0)[0])
            bad = v[i].item() if isinstance(v[i], np.generic) else v[i]
            raise ValueError(f"`{name}` has value {bad!r} at position {i}, outside `labels` {labels!r}")
        codes.append(code)
    counts = np.bincount(codes[0] * 2 + codes[1], minlength=4).reshape(2, 2)
    index = pd.Index(list(labels), name=names[0])
    columns = pd.Index(list(labels), name=names[1])
    return pd.DataFrame(counts.astype(np.int64), index=index, columns=columns)


def mcnemar_midp_table(table: object, *, alternative: str = "two-sided") -> McNemarResult:
    """:func:`mcnemar_midp` on a 2×2 paired table (``b`` = cell [0, 1], ``c`` = cell [1, 0]).

    Parameters
    ----------
    table : pandas.DataFrame or array-like, shape (2, 2)
        E.g. the output of :func:`paired_table` or a published paired 2×2 table.
    alternative : {"two-sided", "less", "greater"}
        As in :func:`mcnemar_midp`.

    Returns
    -------
    McNemarResult

    Raises
    ------
    ValueError
        ``table`` not 2×2, negative or non-integer counts.

    Examples
    --------
    >>> round(mcnemar_midp_table([[3029, 13], [15, 7892]]).pvalue, 4)
    0.7111
    """
    t = np.asarray(table)
    if t.shape != (2, 2):
        raise ValueError(f"`table` must be 2×2, got shape {t.shape}")
    return mcnemar_midp(t[0, 1].item(), t[1, 0].item(), alternative=alternative)
