"""Fairness through awareness (paper B, II-O): each person's nearest other-group person, Mahalanobis metric.

Pipeline: :func:`mahalanobis_whitening` (once) → :func:`nearest_other_group` (exact nearest neighbours on the
whitened data: one float32 matrix product per pair of groups, float64 refinement of every candidate within the
rounding bound; once for all models) → :func:`awareness_test` per model (2×2 table of own vs neighbour's
prediction per group, McNemar mid-p). :func:`fairness_through_awareness` chains them.

Metric. The paper's Eq. 4, M(x, y) = sqrt((x − y)ᵀ S⁻¹ (x − y)), with S "the covariance matrix". The
authors' code computed S from the two vectors being compared (a singular 2-point covariance, pseudo-inverted),
which is not a metric on the data; we use one covariance for everybody:

* ``covariance="pooled"`` (default): the pooled within-group covariance,
  S = Σ_g Σ_{i∈g} (x_i − x̄_g)(x_i − x̄_g)ᵀ / (n − G), the usual choice when comparing members of different
  groups (it does not count the between-group difference as spread);
* ``covariance="total"``: the covariance of all rows (``numpy.cov``).

Singular covariance. One-hot blocks sum to 1, race dummies are constant within each race, etc. Columns with
zero (pooled) variance are dropped (reported in ``dropped_columns``); the rest are standardised by their
standard deviation D, the correlation matrix R = D⁻¹ S D⁻¹ is eigendecomposed (``scipy.linalg.eigh``, one
BLAS thread) and eigenvalues ≤ ``rtol``·max are treated as 0. The precision used is VI = D⁻¹ R⁺ D⁻¹
(pseudo-inverse), which equals S⁻¹ whenever S is invertible; differences along dropped directions (e.g. race
itself under the pooled covariance) contribute 0 to the distance. Whitening z = Wᵀ D⁻¹ x with
W = V_r Λ_r^{-1/2} gives ‖z_i − z_j‖² = (x_i − x_j)ᵀ VI (x_i − x_j), so the Mahalanobis nearest neighbour is
the Euclidean one of z.
"""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import scipy.linalg
from threadpoolctl import threadpool_limits

from fairstats._deprecation import arrays_replaced
from fairstats._format import plain as _plain
from fairstats._result import Result
from fairstats._validation import as_list, require_columns, require_frame
from fairstats._warnings import SingularCovarianceWarning
from fairstats.groups import group_labels
from fairstats.mcnemar import McNemarResult, mcnemar_midp, paired_table

__all__ = [
    "DEFAULT_BLOCK_CELLS",
    "AwarenessResult",
    "MahalanobisWhitening",
    "Neighbours",
    "SingularCovarianceWarning",
    "awareness_test",
    "fairness_through_awareness",
    "mahalanobis_whitening",
    "nearest_other_group",
]

_COVARIANCES = ("pooled", "total")


@dataclass(frozen=True)
class MahalanobisWhitening:
    """A linear map z = Wᵀ D⁻¹ (x − center) under which Euclidean distance is the Mahalanobis distance.

    Attributes
    ----------
    center : numpy.ndarray, shape (p_kept,)
        Column means of the kept columns (cancels in distances; improves rounding).
    scale : numpy.ndarray, shape (p_kept,)
        Standard deviations D of the kept columns (pooled within-group or total).
    kept : numpy.ndarray of bool, shape (p,)
        Columns with non-zero variance.
    transform : numpy.ndarray, shape (p_kept, rank)
        W = V_r Λ_r^{-1/2} from the eigendecomposition of the correlation matrix.
    rank : int
        Number of eigen-directions kept.
    eigenvalues : numpy.ndarray
        All eigenvalues of the correlation matrix, ascending.
    feature_names : tuple of str
        Names of the p input columns (``x0, x1, ...`` for arrays).
    dropped_columns : tuple of str
        Names of the zero-variance columns.
    covariance : str
        ``"pooled"`` or ``"total"``.
    rtol : float
        Relative eigenvalue threshold.
    """

    center: np.ndarray = field(repr=False)
    scale: np.ndarray = field(repr=False)
    kept: np.ndarray = field(repr=False)
    transform: np.ndarray = field(repr=False)
    rank: int
    eigenvalues: np.ndarray = field(repr=False)
    feature_names: tuple[str, ...] = field(repr=False)
    dropped_columns: tuple[str, ...]
    covariance: str
    rtol: float

    def apply(self, X: object) -> np.ndarray:
        """Whitened coordinates z (n × rank) of the rows of ``X`` (same columns as at fit time)."""
        x = _features_iv(X)
        if x.shape[1] != len(self.kept):
            raise ValueError(f"`X` has {x.shape[1]} columns, the whitening was fitted on {len(self.kept)}")
        return ((x[:, self.kept] - self.center) / self.scale) @ self.transform

    @property
    def precision(self) -> np.ndarray:
        """VI (p × p): the (pseudo-)inverse covariance used, zero rows/columns for dropped columns."""
        p = len(self.kept)
        scaled = self.transform / self.scale[:, None]
        vi = np.zeros((p, p))
        vi[np.ix_(self.kept, self.kept)] = scaled @ scaled.T
        return vi


@dataclass(frozen=True)
class Neighbours:
    """Each person's nearest person of another group.

    Attributes
    ----------
    neighbor : numpy.ndarray of int
        Position (0-based row number in the input) of the nearest other-group person.
    distance : numpy.ndarray of float
        Mahalanobis distance to that person.
    group : numpy.ndarray
        Group label of each person.
    strata : numpy.ndarray or None
        Stratum label of each person when the search was restricted to strata (e.g. folds).
    whitening : MahalanobisWhitening
        The metric used.
    n_ties : numpy.ndarray of int
        How many other-group people share the minimum distance (1 = unique); ties go to the lowest position.
    """

    neighbor: np.ndarray = field(repr=False)
    distance: np.ndarray = field(repr=False)
    group: np.ndarray = field(repr=False)
    strata: np.ndarray | None = field(repr=False)
    whitening: MahalanobisWhitening
    n_ties: np.ndarray = field(repr=False)

    def to_frame(self) -> pd.DataFrame:
        """Columns ``position, group, neighbor, neighbor_group, distance, n_ties`` (and ``stratum``)."""
        out = pd.DataFrame(
            {
                "position": np.arange(len(self.neighbor)),
                "group": self.group,
                "neighbor": self.neighbor,
                "neighbor_group": self.group[self.neighbor],
                "distance": self.distance,
                "n_ties": self.n_ties,
            }
        )
        if self.strata is not None:
            out.insert(1, "stratum", self.strata)
        return out


@dataclass(frozen=True)
class AwarenessResult(Result):
    """Per group: 2×2 table of own vs nearest other-group neighbour's prediction, and McNemar mid-p.

    Attributes
    ----------
    groups : tuple
        Group labels, sorted.
    tables : dict
        Group label → 2×2 DataFrame, rows ``original`` (own prediction), columns ``neighbor``.
    tests : dict
        Group label → :class:`~fairstats.mcnemar.McNemarResult` (two-sided mid-p; b = cell [0, 1], own 0 and
        neighbour 1; c = cell [1, 0]).
    neighbours : Neighbours
        The matching used.
    """

    groups: tuple
    tables: dict = field(repr=False)
    tests: dict
    neighbours: Neighbours = field(repr=False)

    _record = ("groups",)

    def to_frame(self) -> pd.DataFrame:
        """One row per group: ``group, n, n00, n01, n10, n11, b, c, statistic, pvalue``.

        ``nAB`` counts people with own prediction A and neighbour's prediction B.
        """
        rows = []
        for g in self.groups:
            t = self.tables[g].to_numpy()
            r: McNemarResult = self.tests[g]
            rows.append(
                {
                    "group": g,
                    "n": int(t.sum()),
                    "n00": int(t[0, 0]),
                    "n01": int(t[0, 1]),
                    "n10": int(t[1, 0]),
                    "n11": int(t[1, 1]),
                    "b": r.b,
                    "c": r.c,
                    "statistic": r.statistic,
                    "pvalue": r.pvalue,
                }
            )
        return pd.DataFrame(rows)


# --------------------------------------------------------------------------------------------------------
# validation
# --------------------------------------------------------------------------------------------------------


def _features_iv(X: object) -> np.ndarray:
    if isinstance(X, pd.DataFrame):
        for name, dtype in X.dtypes.items():
            if not (pd.api.types.is_numeric_dtype(dtype) or pd.api.types.is_bool_dtype(dtype)):
                raise TypeError(f"`X`: column {name!r} must be numeric, got dtype {dtype}")
        x = X.to_numpy(dtype=float)
    else:
        x = np.asarray(X)
        if x.ndim != 2:
            raise ValueError(f"`X` must be 2-D (people × features), got shape {x.shape}")
        if not (np.issubdtype(x.dtype, np.number) or np.issubdtype(x.dtype, np.bool_)):
            raise TypeError(f"`X` must be numeric, got dtype {x.dtype}")
        x = x.astype(float)
    if x.ndim != 2 or x.shape[0] == 0 or x.shape[1] == 0:
        raise ValueError(f"`X` must be a non-empty 2-D array, got shape {x.shape}")
    finite = np.isfinite(x)
    if not finite.all():
        i, j = (int(v[0]) for v in np.nonzero(~finite))
        name = X.columns[j] if isinstance(X, pd.DataFrame) else f"x{j}"
        raise ValueError(
            f"`X`: column {name!r} has a non-finite value ({float(x[i, j])!r}) at row position {i}"
        )
    return x


def _labels_iv(values: object, n: int, name: str) -> np.ndarray:
    v = np.asarray(values)
    if v.ndim != 1 or len(v) != n:
        raise ValueError(f"`{name}` must be 1-D with one entry per row of `X` ({n}), got shape {v.shape}")
    isna = pd.isna(v)
    if isna.any():
        raise ValueError(f"`{name}` has a missing value at position {int(np.flatnonzero(isna)[0])}")
    return v


def _whitening_iv(
    X: object, group: object, covariance: str, rtol: object
) -> tuple[np.ndarray, np.ndarray | None]:
    if covariance not in _COVARIANCES:
        raise ValueError(f"`covariance` must be one of {_COVARIANCES}, got {covariance!r}")
    if not isinstance(rtol, numbers.Real) or not 0 <= float(rtol) < 1:
        raise ValueError(f"`rtol` must be a number in [0, 1), got {rtol!r}")
    x = _features_iv(X)
    g = None
    if covariance == "pooled":
        if group is None:
            raise ValueError("`group` is required for covariance='pooled'")
        g = _labels_iv(group, len(x), "group")
        if len(pd.unique(g)) >= len(x):
            raise ValueError("covariance='pooled' needs more rows than groups")
    elif len(x) < 2:
        raise ValueError("covariance='total' needs at least 2 rows")
    return x, g


# --------------------------------------------------------------------------------------------------------
# whitening
# --------------------------------------------------------------------------------------------------------


def mahalanobis_whitening(
    X: object, *, group: object = None, covariance: str = "pooled", rtol: float = 1e-10
) -> MahalanobisWhitening:
    """Fit the whitening under which Euclidean distance is the Mahalanobis distance of the features.

    Parameters
    ----------
    X : pandas.DataFrame or array-like, shape (n, p)
        Numeric features (no missing values). Leave out identifiers (``ID``, row positions); race columns
        may stay (under the pooled covariance they have zero within-group variance and are dropped).
    group : array-like, shape (n,)
        Group label per row; required for ``covariance="pooled"``.
    covariance : {"pooled", "total"}
        Pooled within-group covariance (default) or the covariance of all rows.
    rtol : float
        Eigenvalues of the correlation matrix at or below ``rtol``·max are treated as 0 (pseudo-inverse).

    Returns
    -------
    MahalanobisWhitening

    Raises
    ------
    ValueError
        Bad shapes, non-finite values, unknown ``covariance``, missing ``group``, no column with variance.
    TypeError
        Non-numeric features.

    Warns
    -----
    SingularCovarianceWarning
        Columns dropped or eigen-directions cut (the distance is then the pseudo-inverse one).

    Notes
    -----
    .. math::

        S = \\frac{1}{n - G}\\sum_g \\sum_{i \\in g} (x_i - \\bar x_g)(x_i - \\bar x_g)^T,\\quad
        R = D^{-1} S D^{-1} = V \\Lambda V^T,\\quad
        z = \\Lambda_r^{-1/2} V_r^T D^{-1} x,\\quad
        \\lVert z_i - z_j \\rVert^2 = (x_i - x_j)^T D^{-1} R^{+} D^{-1} (x_i - x_j).

    References
    ----------
    Paper B, Eq. 4. P. C. Mahalanobis (1936). Pseudo-inverse via ``scipy.linalg.eigh``.
    """
    x, g = _whitening_iv(X, group, covariance, rtol)
    names = (
        tuple(map(str, X.columns))
        if isinstance(X, pd.DataFrame)
        else tuple(f"x{j}" for j in range(x.shape[1]))
    )
    if covariance == "pooled":
        codes, _ = pd.factorize(g, sort=True)
        n_groups = int(codes.max()) + 1
        sizes = np.bincount(codes, minlength=n_groups).astype(float)
        means = np.stack(
            [np.bincount(codes, weights=x[:, j], minlength=n_groups) for j in range(x.shape[1])], 1
        )
        means /= sizes[:, None]
        resid = x - means[codes]
        dof = len(x) - n_groups
        # exact test of constancy within every group (no rounding involved)
        lo = np.full((n_groups, x.shape[1]), np.inf)
        hi = np.full((n_groups, x.shape[1]), -np.inf)
        np.minimum.at(lo, codes, x)
        np.maximum.at(hi, codes, x)
        kept = (hi > lo).any(axis=0)
    else:
        resid = x - x.mean(axis=0)
        dof = len(x) - 1
        kept = x.max(axis=0) > x.min(axis=0)
    if not kept.any():
        raise ValueError("`X`: every column is constant (within groups); no distance can be defined")
    center = x[:, kept].mean(axis=0)
    r = resid[:, kept]
    scale = np.sqrt((r * r).sum(axis=0) / dof)
    z = r / scale
    corr = (z.T @ z) / dof
    # One BLAS thread: a ~140 x 140 problem gains nothing from more, and on a loaded machine OpenBLAS's
    # threads spin-wait for each other (milliseconds become up to a second).
    with threadpool_limits(limits=1, user_api="blas"):
        evals, evecs = scipy.linalg.eigh(corr)
    keep = evals > rtol * evals[-1]
    transform = evecs[:, keep] / np.sqrt(evals[keep])
    dropped = tuple(n for n, k in zip(names, kept, strict=True) if not k)
    if dropped or not keep.all():
        shown = ", ".join(dropped[:8]) + (" ..." if len(dropped) > 8 else "")
        warnings.warn(
            f"singular {covariance} covariance: {len(dropped)} zero-variance column(s) dropped"
            + (f" ({shown})" if dropped else "")
            + f", {int((~keep).sum())} null direction(s) of the remaining {int(kept.sum())} columns cut; "
            "the pseudo-inverse distance is used",
            SingularCovarianceWarning,
            stacklevel=2,
        )
    return MahalanobisWhitening(
        center=center,
        scale=scale,
        kept=kept,
        transform=transform,
        rank=int(keep.sum()),
        eigenvalues=evals,
        feature_names=names,
        dropped_columns=dropped,
        covariance=covariance,
        rtol=float(rtol),
    )


# --------------------------------------------------------------------------------------------------------
# exact nearest neighbour: one float32 matrix product per pair of groups, float64 refinement
# --------------------------------------------------------------------------------------------------------

#: Float32 cells per block of squared distances in :func:`nearest_other_group` (32 MiB).
DEFAULT_BLOCK_CELLS = 1 << 23


def _merge(best, pos, ties, people, d, p, t):
    """Fold one pair of groups' result into the running best (smaller distance, then lower position)."""
    current = best[people]
    better = d < current
    equal = d == current
    best[people[better]] = d[better]
    pos[people[better]] = p[better]
    ties[people[better]] = t[better]
    eq = people[equal]
    pos[eq] = np.minimum(pos[eq], p[equal])
    ties[eq] += t[equal]


def _exact_choice(rows, cols, qa, qb, n_rows):
    """For candidate pairs (row of qa, col of qb): per row, the smallest Σ (a − b)², ties to the lowest col.

    Returns squared distance, column and number of tied columns per row (rows without candidates: inf).
    """
    diff = qa[rows] - qb[cols]
    exact = np.einsum("ij,ij->i", diff, diff)
    order = np.lexsort((cols, exact, rows))
    rows, cols, exact = rows[order], cols[order], exact[order]
    first = np.flatnonzero(np.r_[True, rows[1:] != rows[:-1]])
    best = np.full(n_rows, np.inf)
    where = np.zeros(n_rows, dtype=np.intp)
    ties = np.zeros(n_rows, dtype=np.intp)
    best[rows[first]] = exact[first]
    where[rows[first]] = cols[first]
    tied = exact == best[rows]
    ties[rows[first]] = np.add.reduceat(tied.astype(np.intp), first)
    return best, where, ties


def _pair_nearest(a: np.ndarray, b: np.ndarray, *, block_rows: int):
    """Nearest row of ``b`` for every row of ``a`` and nearest row of ``a`` for every row of ``b``.

    One float32 matrix product per block gives approximate squared distances
    ``|a_i|² + |b_j|² − 2 a_i·b_j``; every pair within twice a rounding bound of its row's (column's)
    approximate minimum is a candidate, recomputed exactly in float64 as Σ (a_i − b_j)², and the smallest
    exact value wins (ties to the lowest position). The bound covers float32 rounding of the inputs and of
    the product, so the true minimum is always among the candidates: the result is the exact ``argmin``.
    """
    dim = a.shape[1]
    eps = float(np.finfo(np.float32).eps)
    a_sq = np.einsum("ij,ij->i", a, a)
    b_sq = np.einsum("ij,ij->i", b, b)
    # |fl32(D) − D| <= c eps (|a_i|² + |b_j|²), c = 4 (dim + 2) (generous: about (dim + 6) suffices)
    c = 4.0 * (dim + 2) * eps
    window_row = 2.0 * c * (a_sq + b_sq.max()) * 1.01 + 1e-30
    window_col = 2.0 * c * (b_sq + a_sq.max()) * 1.01 + 1e-30
    # augmented rows: [-2a, |a|², 1] · [b, 1, |b|²] = |a|² + |b|² − 2 a·b in one float32 product
    a_aug = np.concatenate([-2.0 * a, a_sq[:, None], np.ones((len(a), 1))], axis=1).astype(np.float32)
    b_aug_t = np.ascontiguousarray(
        np.concatenate([b, np.ones((len(b), 1)), b_sq[:, None]], axis=1).T, dtype=np.float32
    )
    n_b = len(b)
    col_min = np.full(n_b, np.inf, dtype=np.float32)
    row_pairs, col_pairs = [], []
    buffer = np.empty((min(block_rows, len(a)), n_b), dtype=np.float32)
    for start in range(0, len(a), block_rows):
        stop = min(start + block_rows, len(a))
        approx = buffer[: stop - start]
        np.matmul(a_aug[start:stop], b_aug_t, out=approx)
        row_min = approx.min(axis=1)
        # flat indices: much faster than the two index arrays of a 2-D nonzero
        flat = np.flatnonzero(approx <= (row_min + window_row[start:stop])[:, None])
        i, j = np.divmod(flat, n_b)
        row_pairs.append((i + start, j))
        np.minimum(col_min, approx.min(axis=0), out=col_min)
        flat = np.flatnonzero(approx <= (col_min + window_col)[None, :])
        i, j = np.divmod(flat, n_b)
        col_pairs.append((i + start, j, approx.ravel()[flat]))
    rows = np.concatenate([p[0] for p in row_pairs])
    cols = np.concatenate([p[1] for p in row_pairs])
    a_best, a_where, a_ties = _exact_choice(rows, cols, a, b, len(a))
    rows = np.concatenate([p[0] for p in col_pairs])
    cols = np.concatenate([p[1] for p in col_pairs])
    value = np.concatenate([p[2] for p in col_pairs])
    keep = value <= col_min[cols] + window_col[cols]  # the final column minimum is known only now
    b_best, b_where, b_ties = _exact_choice(cols[keep], rows[keep], b, a, len(b))
    return (a_best, a_where, a_ties), (b_best, b_where, b_ties)


def _nearest_other_group_iv(X, group, covariance, strata, rtol, whitening, block_rows):
    """Checks (and the whitening, which checks ``X``, ``group``, ``covariance``, ``rtol``)."""
    if block_rows is not None and (
        isinstance(block_rows, bool) or not isinstance(block_rows, numbers.Integral) or block_rows < 1
    ):
        raise ValueError(f"`block_rows` must be a positive integer or None, got {block_rows!r}")
    if whitening is None:
        whitening = mahalanobis_whitening(X, group=group, covariance=covariance, rtol=rtol)
    z = whitening.apply(X)
    n = len(z)
    g = _labels_iv(group, n, "group")
    g_codes, g_labels = pd.factorize(g, sort=True)
    if len(g_labels) < 2:
        raise ValueError(f"`group` needs at least two groups, got {list(g_labels)}")
    if strata is None:
        s_codes, s_values = np.zeros(n, dtype=np.intp), None
    else:
        s_values = _labels_iv(strata, n, "strata")
        s_codes, _ = pd.factorize(s_values, sort=True)
    return z, whitening, g, g_codes, g_labels, s_values, s_codes


def nearest_other_group(
    X: object,
    group: object,
    *,
    covariance: str = "pooled",
    strata: object = None,
    rtol: float = 1e-10,
    whitening: MahalanobisWhitening | None = None,
    block_rows: int | None = None,
) -> Neighbours:
    """Each person's nearest person of another group under the Mahalanobis metric (exact).

    Parameters
    ----------
    X : pandas.DataFrame or array-like, shape (n, p)
        Numeric features, one row per person.
    group : array-like, shape (n,)
        Group label (e.g. race); the neighbour is searched among people with a different label.
    covariance : {"pooled", "total"}
        See :func:`mahalanobis_whitening`.
    strata : array-like, shape (n,), optional
        Restrict the search to people of the same stratum (e.g. the test fold, as the authors did);
        None searches everybody (default).
    rtol : float
        Eigenvalue threshold of the pseudo-inverse.
    whitening : MahalanobisWhitening, optional
        A whitening fitted before (``covariance``/``rtol`` are then ignored).
    block_rows : int or None, keyword-only
        Rows per block of the distance matrix (memory: ``block_rows`` x group size x 4 bytes); None: as many
        as fit in :data:`DEFAULT_BLOCK_CELLS` cells (32 MiB). The result does not depend on it.

    Returns
    -------
    Neighbours
        ``neighbor`` (0-based positions), ``distance``, ``group``, ``strata``, ``whitening``, ``n_ties``.

    Raises
    ------
    ValueError
        As :func:`mahalanobis_whitening`; fewer than two groups; a person with no other-group person in
        their stratum; ``block_rows`` < 1.

    Notes
    -----
    On whitened data z (:func:`mahalanobis_whitening`) the Mahalanobis distance is Euclidean. For each pair
    of groups A and B (within a stratum), :math:`\\tilde D = |a|^2 + |b|^2 - 2 a b^T` is computed in float32
    by blocks of rows, with one matrix product read along rows for A and along columns for B; with
    :math:`\\varepsilon` float32's machine epsilon and k the dimension,
    :math:`|\\tilde D_{ij} - D_{ij}| \\le 4 (k + 2) \\varepsilon (|a_i|^2 + |b_j|^2)` (input rounding and
    the dot product's error, e.g. Higham, *Accuracy and Stability of Numerical Algorithms*, 2002, Sec. 3.1),
    so every pair within twice that bound of its row's (or column's) smallest :math:`\\tilde D` is a
    candidate, recomputed in float64 as :math:`\\sum (z_i - z_j)^2`; the smallest wins, ties to the lowest
    position (``n_ties`` reports them). The true nearest neighbour is always a candidate, so the result
    equals ``argmin`` of exactly computed distances. A k-d tree is exact too but slow in ~140 dimensions.
    Cost O(n_A·n_B·rank): 25,750 NIJ people × 139 features take about a second on one core.

    References
    ----------
    Paper B, section II-O and Eq. 4. C. Dwork et al., "Fairness through awareness", ITCS 2012.

    Examples
    --------
    >>> X = np.array([[0.0, 0.0], [1.0, 0.1], [0.1, 1.0], [0.9, 0.0], [0.0, 0.2], [1.1, 1.0]])
    >>> nearest_other_group(X, ["A", "A", "A", "B", "B", "B"]).neighbor.tolist()
    [4, 3, 4, 1, 0, 1]
    """
    z, whitening, g, g_codes, g_labels, s_values, s_codes = _nearest_other_group_iv(
        X, group, covariance, strata, rtol, whitening, block_rows
    )
    n = len(z)
    best = np.full(n, np.inf)
    neighbor = np.full(n, -1, dtype=np.intp)
    ties = np.zeros(n, dtype=np.intp)
    order = np.lexsort((g_codes, s_codes))  # positions grouped by stratum then group
    bounds = np.flatnonzero(np.diff(s_codes[order])) + 1
    for members in np.split(order, bounds):  # one block per stratum
        members = np.sort(members)
        present = np.unique(g_codes[members])
        if len(present) < 2:
            where = "" if strata is None else f" in stratum {_plain(s_values[members[0]])!r}"
            raise ValueError(
                f"group {_plain(g_labels[present[0]])!r} has no person of another group{where} to match"
            )
        positions = [members[g_codes[members] == code] for code in present]  # ascending positions
        for x in range(len(present)):
            for y in range(x + 1, len(present)):
                pa, pb = positions[x], positions[y]
                rows = block_rows or max(1, DEFAULT_BLOCK_CELLS // len(pb))
                (da, ja, ta), (db, jb, tb) = _pair_nearest(z[pa], z[pb], block_rows=int(rows))
                _merge(best, neighbor, ties, pa, da, pb[ja], ta)
                _merge(best, neighbor, ties, pb, db, pa[jb], tb)
    return Neighbours(
        neighbor=neighbor,
        distance=np.sqrt(best),
        group=g,
        strata=s_values,
        whitening=whitening,
        n_ties=ties,
    )


# --------------------------------------------------------------------------------------------------------
# the test
# --------------------------------------------------------------------------------------------------------


def awareness_test(
    y_pred: object, neighbours: Neighbours, *, alternative: str = "two-sided"
) -> AwarenessResult:
    """Per group, own prediction vs nearest other-group neighbour's prediction: 2×2 table and McNemar mid-p.

    Parameters
    ----------
    y_pred : array-like of {0, 1}, shape (n,)
        Predictions in the row order used for ``neighbours``.
    neighbours : Neighbours
        From :func:`nearest_other_group`.
    alternative : {"two-sided", "less", "greater"}
        Passed to :func:`~fairstats.mcnemar.mcnemar_midp`.

    Returns
    -------
    AwarenessResult
        ``tables`` (rows ``original`` = own prediction, columns ``neighbor``), ``tests`` (mid-p),
        ``neighbours``.

    Raises
    ------
    ValueError
        Length mismatch or predictions outside {0, 1}.

    Notes
    -----
    Within group g, pair person i with neighbour ν(i): b = #(ŷ_i = 0, ŷ_ν(i) = 1), c = #(ŷ_i = 1,
    ŷ_ν(i) = 0). Neighbours can be shared by several people, so the pairs are not
    independent, which McNemar's test assumes; this function does not correct for it (nor does paper B).

    References
    ----------
    Paper B, section II-O, Tables XXI–XXV.
    """
    if not isinstance(neighbours, Neighbours):
        raise TypeError(f"`neighbours` must be a Neighbours result, got {type(neighbours).__name__}")
    y = _labels_iv(y_pred, len(neighbours.neighbor), "y_pred")
    bad = ~np.isin(y, (0, 1))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"`y_pred` must be 0/1, got {_plain(y[i])!r} at position {i}")
    g = neighbours.group
    groups = tuple(pd.Index(pd.unique(g)).sort_values())
    tables, tests = {}, {}
    for label in groups:
        mask = g == label
        t = paired_table(y[mask], y[neighbours.neighbor[mask]], names=("original", "neighbor"))
        tables[label] = t
        tests[label] = mcnemar_midp(int(t.iloc[0, 1]), int(t.iloc[1, 0]), alternative=alternative)
    return AwarenessResult(groups=groups, tables=tables, tests=tests, neighbours=neighbours)


def _fairness_through_awareness_arrays(
    X: object,
    group: object,
    y_pred: object,
    *,
    covariance: str = "pooled",
    strata: object = None,
    rtol: float = 1e-10,
    alternative: str = "two-sided",
) -> AwarenessResult:
    """:func:`fairness_through_awareness` of a feature matrix and arrays (its call before 0.3)."""
    neighbours = nearest_other_group(X, group, covariance=covariance, strata=strata, rtol=rtol)
    return awareness_test(y_pred, neighbours, alternative=alternative)


@arrays_replaced(
    _fairness_through_awareness_arrays,
    arrays=("y_pred",),
    use="fairness_through_awareness(data, features=, group=, y_pred=)",
)
def fairness_through_awareness(
    data: pd.DataFrame,
    *,
    features: str | Sequence[str],
    group: str | Sequence[str],
    y_pred: str,
    covariance: str = "pooled",
    strata: str | None = None,
    rtol: float = 1e-10,
    alternative: str = "two-sided",
) -> AwarenessResult:
    """:func:`nearest_other_group` then :func:`awareness_test` (for several models, call them separately).

    Parameters
    ----------
    data : pandas.DataFrame
        One row per person.
    features : str or list of str
        The numeric feature columns the Mahalanobis metric is taken over.
    group : str or list of str
        Sensitive attribute column(s); the neighbour is searched among people of another group. With a list
        the groups are the intersections (labelled as :meth:`fairstats.ContingencyTable.from_frame` does).
    y_pred : str
        Column of the predictions, 0/1.
    covariance, rtol
        As in :func:`nearest_other_group`.
    strata : str, optional
        Column of the strata (e.g. the test fold) within which neighbours are searched; None searches
        everybody.
    alternative : str
        As in :func:`awareness_test`.

    Returns
    -------
    AwarenessResult
        Its neighbours' rows are the positions of ``data``'s rows (0 to n - 1).

    Raises
    ------
    ValueError, TypeError
        ``data`` not a frame or empty, a missing column; as the two functions. Until 0.4 the call of arrays
        ``(X, group, y_pred)`` still works, with a ``DeprecationWarning``.

    Examples
    --------
    >>> df = pd.DataFrame({"x1": [0.0, 1.0, 0.1, 0.9, 0.0, 1.1], "x2": [0.0, 0.1, 1.0, 0.0, 0.2, 1.0],
    ...                    "g": ["A", "A", "A", "B", "B", "B"], "y": [0, 1, 0, 1, 0, 1]})
    >>> r = fairness_through_awareness(df, features=["x1", "x2"], group="g", y_pred="y")
    >>> r.neighbours.neighbor.tolist()
    [4, 3, 4, 1, 0, 1]
    """
    frame = require_frame(data)
    feature_columns = as_list(features, name="features")
    group_columns = as_list(group, name="group")
    extra = [] if strata is None else [strata]
    require_columns(frame, [*feature_columns, *group_columns, y_pred, *extra], where="`data`")
    labels = frame[group_columns[0]] if len(group_columns) == 1 else group_labels(frame, group_columns)
    return _fairness_through_awareness_arrays(
        frame[feature_columns],
        labels.to_numpy(),
        frame[y_pred].to_numpy(),
        covariance=covariance,
        strata=None if strata is None else frame[strata].to_numpy(),
        rtol=rtol,
        alternative=alternative,
    )
