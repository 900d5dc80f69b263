r"""Which subgroup? A search over conjunctions of attribute values, with family-wise error control.

:func:`subgroup_search` compares every subgroup defined by one to three attribute values (``sex = Female``,
``sex = Female & age_cat = Less than 25``, ...) of at least ``min_size`` people (and at least ``min_size``
outside it) with the rest of the people, on each chosen rate (false positive rate, false negative rate,
share predicted favourable, ...; the definitions of :data:`fairstats.metrics.METRIC_DEFINITIONS`), by the
pooled two-proportion z statistic. The best of many subgroups looks significant by chance; the p-values are
therefore adjusted over the whole search (every subgroup and every metric) by Westfall and Young's step-down
max-T permutation method.

Everything works from counts. The rows are aggregated once into cells: attribute tuple x confusion cell
(TP, FP, FN, TN). Permuting the attribute labels jointly against the (``y_true``, ``y_pred``) pairs keeps the
size of every attribute tuple and the total of every confusion cell, and the permuted cell table is then
multiple hypergeometric given those two margins: a random contingency table with fixed margins, drawn by
``scipy.stats.random_table`` (Patefield's algorithm). That is exactly the permutation distribution, not an
approximation (tests/unit/test_search.py checks it against permuting rows), and its cost grows with the
number of attribute tuples and subgroups, not with the number of people.
"""

from __future__ import annotations

import itertools
import numbers
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from scipy import sparse

from fairstats._deprecation import renamed_keywords
from fairstats._resampling import fixed_margin_tables, max_t_pvalues, n_resamples_iv, rng_iv
from fairstats._result import Result
from fairstats._rows import CELLS, METRIC_DEFINITIONS, binary_labels_iv
from fairstats._validation import checked_frame, level_iv
from fairstats.counts import as_rows
from fairstats.outcomes import UndefinedTestWarning

if TYPE_CHECKING:  # matplotlib is imported when a figure is drawn (fairstats[audit])
    from matplotlib.figure import Figure


__all__ = [
    "SEARCH_COLUMNS",
    "SEARCH_METRICS",
    "SubgroupSearchResult",
    "subgroup_search",
]

#: Columns of :meth:`SubgroupSearchResult.to_frame` (and of ``subgroups.csv``), in this order.
SEARCH_COLUMNS: tuple[str, ...] = (
    "subgroup",
    "n",
    "metric",
    "estimate",
    "statistic",
    "pvalue",
    "pvalue_adjusted",
    "verdict",
)


def _cell_set(expression: str) -> tuple[int, ...]:
    """``"tp + fp"`` -> indices into :data:`CELLS`; ``"n"`` -> every cell."""
    if expression == "n":
        return tuple(range(len(CELLS)))
    return tuple(CELLS.index(term.strip()) for term in expression.split("+"))


#: The rates a search can compare: those of :data:`fairstats.metrics.METRIC_DEFINITIONS` that are proportions
#: of confusion cells (numerator cells inside the denominator cells); metric -> (numerator, denominator).
SEARCH_METRICS: dict[str, tuple[tuple[int, ...], tuple[int, ...]]] = {
    name: (_cell_set(num), _cell_set(den))
    for name, (num, den, _) in METRIC_DEFINITIONS.items()
    if set(num.replace("+", " ").split()) <= set(CELLS)
    and (den == "n" or set(den.replace("+", " ").split()) <= set(CELLS))
    and set(_cell_set(num)) < set(_cell_set(den))
}

#: Rows of one permutation chunk are kept below this many table entries (memory, not speed).
_CHUNK_ENTRIES = 4_000_000
#: Relative tolerance of ``|t*| >= |t|`` (as :func:`fairstats.confusion._permutation_pvalue`).
_TIE = 1.0 - 64 * np.finfo(float).eps


@dataclass(frozen=True, eq=False)
class SubgroupSearchResult(Result):
    """Result of :func:`subgroup_search`.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per (subgroup, metric), by ``|statistic|`` descending (the order of the adjusted
        p-values), undefined rows last:
        :data:`SEARCH_COLUMNS` (``subgroup`` label, ``n`` people in it, ``metric``, ``estimate`` = rate in
        the subgroup minus rate in the rest, ``statistic`` = pooled two-proportion z, ``pvalue`` =
        permutation p-value of this comparison alone, ``pvalue_adjusted`` = Westfall-Young step-down max-T
        over the whole search, ``verdict``), then ``rate_subgroup``, ``rate_rest``, ``n_rest``,
        ``denominator_subgroup``, ``denominator_rest``, ``depth``, ``note`` (why a row is undefined) and
        ``tp, fp, fn, tn`` (the subgroup's cells).
    group : tuple of str
        The columns searched (``attributes`` before fairstats 0.3: a deprecated alias until 0.4).
    metrics : tuple of str
        The metrics compared.
    max_depth, min_size : int
        The search's settings.
    n : int
        Number of people.
    n_subgroups : int
        Subgroups of at least ``min_size`` people with at least ``min_size`` outside.
    n_tests : int
        Defined comparisons: the family the adjustment covers.
    n_resamples : int
        Permutations drawn.
    alpha : float
        Level of the verdicts.
    totals : tuple of int
        Everyone's ``tp, fp, fn, tn`` (a subgroup's rest is this minus the subgroup).
    favorable : object
        The favourable label (the "positive" class of the cells).
    """

    table: pd.DataFrame
    group: tuple[str, ...]
    metrics: tuple[str, ...]
    max_depth: int
    min_size: int
    n: int
    n_subgroups: int
    n_tests: int
    n_resamples: int
    alpha: float
    totals: tuple[int, ...]
    favorable: object = 1

    _omit = ("table",)

    @property
    def attributes(self) -> tuple[str, ...]:
        """Deprecated alias of :attr:`group` (until fairstats 0.4)."""
        warnings.warn(
            "`attributes` of fairstats.SubgroupSearchResult is deprecated since fairstats 0.3 and goes in "
            "0.4: use `group`",
            DeprecationWarning,
            stacklevel=2,
        )
        return self.group

    def to_frame(self) -> pd.DataFrame:
        """The tidy table: :data:`SEARCH_COLUMNS` only, a copy."""
        return self.table[list(SEARCH_COLUMNS)].copy()

    def plot(self, top: int = 10, *, title: str | None = None) -> Figure:
        """Dot plot of the ``top`` comparisons: rate in the subgroup (black: disparity; grey: not) and in
        the rest (open), joined by a line; returns the matplotlib Figure (needs ``fairstats[audit]``).

        Labels are data strings shown as plain text (:func:`fairstats._text.display_text`, no mathtext).
        """
        import matplotlib.pyplot as plt

        from fairstats._format import PLAIN, figure_text

        if isinstance(top, bool) or not isinstance(top, numbers.Integral) or top < 1:
            raise ValueError(f"`top` must be a positive integer, got {top!r}")
        rows = self.table[self.table["verdict"] != "undefined"].head(int(top))
        labels = [f"{figure_text(s)} [{m}]" for s, m in zip(rows["subgroup"], rows["metric"], strict=True)]
        y = np.arange(len(rows))
        fig, ax = plt.subplots(figsize=(8, 0.45 * max(len(rows), 1) + 1.6))
        inside, rest = rows["rate_subgroup"].to_numpy(float), rows["rate_rest"].to_numpy(float)
        found = (rows["verdict"] == "disparity").to_numpy()
        ax.hlines(y, np.minimum(inside, rest), np.maximum(inside, rest), color="grey", lw=1)
        ax.scatter(rest, y, color="white", edgecolor="black", zorder=3, label="rest")
        ax.scatter(inside[found], y[found], color="black", zorder=3, label="subgroup (disparity)")
        ax.scatter(inside[~found], y[~found], color="lightgrey", edgecolor="black", zorder=3,
                   label="subgroup (inconclusive)")  # fmt: skip
        ax.set_yticks(y)
        ax.set_yticklabels(labels, **PLAIN)
        ax.invert_yaxis()
        ax.set_xlabel("rate")
        ax.legend(loc="best", fontsize=8)
        what = f"Top {len(rows)} subgroups against the rest"
        ax.set_title(title or f"{what} (disparity: Westfall-Young adjusted p < {self.alpha:g})", fontsize=10)
        return fig

    def residuals(self, top: int = 3) -> pd.DataFrame:
        """Paper A's post hoc residual analysis inside the ``top`` distinct subgroups of :attr:`table`.

        For each subgroup the 2 x 4 table (subgroup, rest) x (TP, FN, FP, TN) and its adjusted standardized
        residuals (:func:`fairstats.equal_confusion_test` of the table): which confusion cell makes the
        subgroup stand out. Columns ``subgroup, side, cell, observed, expected, residual, flag_strict,
        flag_bonferroni``. A subgroup whose table has an empty cell or side is left out, with a named
        :class:`~fairstats.UndefinedTestWarning`.
        """
        from fairstats._contingency import ContingencyTable
        from fairstats.confusion import equal_confusion_test

        if isinstance(top, bool) or not isinstance(top, numbers.Integral) or top < 0:
            raise ValueError(f"`top` must be a non-negative integer, got {top!r}")
        defined = self.table[self.table["verdict"] != "undefined"]
        names = list(dict.fromkeys(defined["subgroup"]))[: int(top)]
        order = ("tp", "fn", "fp", "tn")  # paper A's order TP, FN, FP, TN
        frames = []
        for name in names:
            row = defined[defined["subgroup"] == name].iloc[0]
            inside = np.array([int(row[c]) for c in order])
            rest = np.array([self.totals[CELLS.index(c)] for c in order]) - inside
            observed = pd.DataFrame(
                [inside, rest], index=pd.Index(["subgroup", "rest"], name="side"),
                columns=pd.Index([c.upper() for c in order], name="cell"),
            )  # fmt: skip
            try:
                res = equal_confusion_test(ContingencyTable.from_observed(observed), permutation="never")
            except ValueError as err:
                warnings.warn(
                    f"subgroup {name!r}: residuals not computed ({err})", UndefinedTestWarning, stacklevel=2
                )
                continue
            tidy = res.to_frame().rename(columns={"group": "side"})
            tidy.insert(0, "subgroup", name)
            frames.append(
                tidy[["subgroup", "side", "cell", "observed", "expected", "residual", "flag_strict",
                      "flag_bonferroni"]]
            )  # fmt: skip
        if not frames:
            return pd.DataFrame(
                columns=["subgroup", "side", "cell", "observed", "expected", "residual", "flag_strict",
                         "flag_bonferroni"]
            )  # fmt: skip
        return pd.concat(frames, ignore_index=True)


# --------------------------------------------------------------------------------------------------------
# input checks
# --------------------------------------------------------------------------------------------------------


def _integer_iv(value: object, name: str, low: int, high: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"`{name}` must be an integer, got {value!r}")
    if value < low or (high is not None and value > high):
        bounds = f"from {low} to {high}" if high is not None else f"at least {low}"
        raise ValueError(f"`{name}` must be {bounds}, got {value!r}")
    return int(value)


def _search_iv(attributes, y_true, y_pred, metrics, max_depth, min_size, n_resamples, alpha):
    if isinstance(attributes, str):
        attributes = [attributes]
    if (
        not isinstance(attributes, Sequence)
        or not attributes
        or not all(isinstance(a, str) for a in attributes)
    ):
        raise TypeError(f"`group` must be a non-empty list of column names, got {attributes!r}")
    attributes = list(attributes)
    dup = next((a for i, a in enumerate(attributes) if a in attributes[:i]), None)
    if dup is not None:
        raise ValueError(f"`group`: column {dup!r} is given twice")
    for name, value in (("y_true", y_true), ("y_pred", y_pred)):
        if not isinstance(value, str):
            raise TypeError(f"`{name}` must be a column name (str), got {value!r}")
        if value in attributes:
            raise ValueError(f"`{name}` column {value!r} is also a `group` column searched over")
    if isinstance(metrics, str):
        metrics = [metrics]
    metrics = list(dict.fromkeys(metrics))
    if not metrics:
        raise ValueError("`metrics` is empty; choose from " + ", ".join(SEARCH_METRICS))
    for m in metrics:
        if m not in SEARCH_METRICS:
            raise ValueError(f"`metrics`: unknown metric {m!r}; choose from {', '.join(SEARCH_METRICS)}")
    max_depth = _integer_iv(max_depth, "max_depth", 1, 3)
    min_size = _integer_iv(min_size, "min_size", 1)
    n_resamples = n_resamples_iv(n_resamples)
    return attributes, metrics, max_depth, min_size, n_resamples, level_iv(alpha, "alpha")


# --------------------------------------------------------------------------------------------------------
# counts
# --------------------------------------------------------------------------------------------------------


def _tuple_cells(frame: pd.DataFrame, weight, attributes, y_true, y_pred, favorable):
    """Attribute tuples (codes, value labels) and their cell counts, shape (n_tuples, 4) in CELLS order."""
    true_fav = binary_labels_iv(frame, y_true, favorable, "y_true")
    pred_fav = binary_labels_iv(frame, y_pred, favorable, "y_pred")
    cell = np.where(pred_fav, np.where(true_fav, 0, 1), np.where(true_fav, 2, 3))  # tp, fp, fn, tn
    codes, labels = [], []
    for column in attributes:
        c, u = pd.factorize(frame[column], sort=True)
        codes.append(c)
        labels.append([str(v) for v in u])
    dims = [len(u) for u in labels]
    if np.prod(np.array(dims, dtype=float)) < 2.0**62:
        key = np.ravel_multi_index(codes, dims)
        keys, inverse = np.unique(key, return_inverse=True)
        tuples = np.column_stack(np.unravel_index(keys, dims))
    else:  # too many combinations for one integer key: sort the code rows themselves
        tuples, inverse = np.unique(np.column_stack(codes), axis=0, return_inverse=True)
    inverse = np.asarray(inverse).ravel()
    table = np.bincount(inverse * 4 + cell, weights=weight, minlength=4 * len(tuples))
    table = np.rint(table).astype(np.int64).reshape(len(tuples), 4)
    present = table.sum(axis=1) > 0  # counted input: a key with 0 people cannot occur, but be exact
    return tuples[present], table[present], labels


def _subgroups(tuples, sizes, attributes, labels, max_depth, min_size, n):
    """Membership (sparse, subgroups x tuples), labels and depths of the subgroups large enough."""
    rows, cols, names, depths = [], [], [], []
    count = 0
    for depth in range(1, max_depth + 1):
        for combo in itertools.combinations(range(len(attributes)), depth):
            values, inverse = np.unique(tuples[:, list(combo)], axis=0, return_inverse=True)
            inverse = np.asarray(inverse).ravel()
            size = np.bincount(inverse, weights=sizes, minlength=len(values))
            for s, value in enumerate(values):
                if size[s] < min_size or n - size[s] < min_size:
                    continue
                members = np.flatnonzero(inverse == s)
                rows.append(np.full(len(members), count))
                cols.append(members)
                names.append(
                    " & ".join(f"{attributes[a]} = {labels[a][v]}" for a, v in zip(combo, value, strict=True))
                )
                depths.append(depth)
                count += 1
    if count == 0:
        return None, names, depths
    r, c = np.concatenate(rows), np.concatenate(cols)
    member = sparse.csr_matrix((np.ones(len(r)), (r, c)), shape=(count, len(tuples)))
    return member, names, depths


def _z(sub: np.ndarray, totals: np.ndarray, metrics: Sequence[str]) -> tuple[np.ndarray, ...]:
    r"""Pooled two-proportion z of every subgroup against its rest, for every metric.

    ``sub`` holds subgroup cell counts, shape (..., 4); ``totals`` everyone's. Returns (z, rate in subgroup,
    rate in rest, denominator in subgroup, denominator in rest), each of shape (..., n_metrics); z is NaN
    where undefined (an empty denominator on either side, or a pooled rate of 0 or 1).
    """
    zs, r1s, r2s, d1s, d2s = [], [], [], [], []
    for m in metrics:
        num, den = SEARCH_METRICS[m]
        x1 = sub[..., list(num)].sum(axis=-1)
        n1 = sub[..., list(den)].sum(axis=-1)
        x, nd = totals[list(num)].sum(), totals[list(den)].sum()
        x2, n2 = x - x1, nd - n1
        with np.errstate(divide="ignore", invalid="ignore"):
            r1, r2 = x1 / n1, x2 / n2
            pooled = x / nd if nd else np.nan
            z = (r1 - r2) / np.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
        z = np.where((n1 > 0) & (n2 > 0) & (0 < pooled) & (pooled < 1), z, np.nan)
        zs.append(z)
        r1s.append(r1)
        r2s.append(r2)
        d1s.append(n1)
        d2s.append(n2)
    return tuple(np.stack(v, axis=-1) for v in (zs, r1s, r2s, d1s, d2s))


# --------------------------------------------------------------------------------------------------------
# the search
# --------------------------------------------------------------------------------------------------------


@renamed_keywords(attributes="group")
def subgroup_search(
    data: object,
    *,
    group: str | Sequence[str],
    y_true: str,
    y_pred: str,
    metrics: str | Sequence[str] = ("fpr", "fnr", "ppr"),
    max_depth: int = 2,
    min_size: int = 30,
    favorable: object = 1,
    alpha: float = 0.05,
    n_resamples: int = 9999,
    rng: int | np.random.Generator | None = None,
) -> SubgroupSearchResult:
    r"""Search subgroups (conjunctions of attribute values) for rate disparities, with adjusted p-values.

    Parameters
    ----------
    data : pandas.DataFrame, fairstats.Counts or another engine's frame
        One row per person (or counts; see :class:`fairstats.Counts`).
    group : str or list of str, keyword-only
        Columns whose values define the subgroups (values are compared as they are and shown as text); was
        ``attributes`` (still accepted until fairstats 0.4, with a ``DeprecationWarning``).
    y_true, y_pred : str, keyword-only
        Columns of the true and the predicted label (binary).
    metrics : str or list of str, keyword-only
        Rates compared, from :data:`SEARCH_METRICS` (default: false positive rate, false negative rate,
        share predicted favourable).
    max_depth : int, keyword-only
        Largest number of attribute values in a subgroup's definition, 1 to 3 (default 2).
    min_size : int, keyword-only
        Smallest subgroup, and smallest rest, searched (default 30 people).
    favorable : 0 or 1, keyword-only
        Label of the favourable outcome (the "positive" of the cells; see :mod:`fairstats.metrics`).
    alpha : float, keyword-only
        Level of the verdicts (default 0.05).
    n_resamples : int, keyword-only
        Permutations (default 9999, as every resampling function of the library).
    rng : int, numpy.random.Generator or None, keyword-only
        Seed or generator of the permutations.

    Returns
    -------
    SubgroupSearchResult
        Every (subgroup, metric) with its estimate, z statistic, permutation p-value, adjusted p-value and
        verdict (``"disparity"``: adjusted p < ``alpha``; ``"inconclusive"``: not; ``"undefined"``: z
        cannot be computed, the ``note`` says why).

    Raises
    ------
    ValueError, TypeError
        A missing column or a missing value, non-binary labels, an unknown metric, ``max_depth`` outside
        1 to 3, ``min_size`` < 1, ``n_resamples`` < 1, ``alpha`` outside (0, 1), or no subgroup with at least
        ``min_size`` people inside and outside.

    Warns
    -----
    UndefinedTestWarning
        Some comparisons have no z statistic (an empty denominator in the subgroup or its rest, or a rate
        of 0 or 1 overall): their verdict is ``"undefined"``, never "not significant", and they are not part
        of the family.

    Notes
    -----
    For a metric with numerator cells :math:`x` and denominator cells :math:`d` (e.g. FPR: FP over
    FP + TN), subgroup :math:`S` and rest :math:`R`: :math:`\hat p_S = x_S / d_S`,
    :math:`\hat p_R = x_R / d_R`,
    pooled :math:`\hat p = (x_S + x_R) / (d_S + d_R)` and

    .. math:: z = \frac{\hat p_S - \hat p_R}{\sqrt{\hat p (1 - \hat p) (1 / d_S + 1 / d_R)}}

    (the pooled two-sample z test of Agresti, Categorical Data Analysis, 3rd ed., 2013, Sec. 3.1.3; the
    same as ``statsmodels.stats.proportion.proportions_ztest`` on the two counts, which the tests check).

    P-values come from permutations: the attribute labels are permuted jointly against the
    (``y_true``, ``y_pred``) pairs, which under the null hypothesis of no disparity in any subgroup (the
    attributes independent of the confusion cell) leaves the data's distribution unchanged. A permuted
    data set is drawn as a random table with the margins of the attribute-tuple x cell table (multiple
    hypergeometric; ``scipy.stats.random_table``, Patefield's algorithm), which is exactly the distribution
    of that table under row permutations. ``pvalue`` is :math:`(1 + \#\{b: |z^*_{jb}| \ge |z_j|\}) / (1 + B)`
    for each comparison alone. ``pvalue_adjusted`` is Westfall and Young's step-down max-T (1993,
    Algorithm 4.1 with :math:`(1 + \cdot)/(1 + B)` counts): with the defined comparisons ordered
    :math:`|z_{(1)}| \ge \dots \ge |z_{(m)}|`, :math:`u_{jb} = \max_{k \ge j} |z^*_{(k)b}|` and
    :math:`\tilde p_{(j)} = \max_{k \le j} (1 + \#\{b: u_{kb} \ge |z_{(k)}|\}) / (1 + B)`. It controls the
    family-wise error rate over all subgroups and metrics of the search under subset pivotality, which holds
    for the joint permutation of the attributes (Westfall & Young 1993, Sec. 2.8). A comparison undefined in
    a permuted table counts as :math:`|z^*| = 0` there. The set of subgroups searched (their sizes) is the
    same in every permutation, so the ``min_size`` rule does not bias the search.

    References
    ----------
    P. H. Westfall and S. S. Young, Resampling-Based Multiple Testing, Wiley, 1993, Algorithm 4.1 (step-down
    max-T adjusted p-values) and Sec. 2.8 (subset pivotality). W. M. Patefield, "Algorithm AS 159", Applied
    Statistics 30, 1981.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> df = pd.DataFrame({"a": rng.choice(["x", "y"], 400), "b": rng.choice(["u", "v"], 400),
    ...                    "y": rng.integers(0, 2, 400), "p": rng.integers(0, 2, 400)})
    >>> res = subgroup_search(df, group=["a", "b"], y_true="y", y_pred="p", n_resamples=99, rng=1)
    >>> list(res.to_frame().columns)
    ['subgroup', 'n', 'metric', 'estimate', 'statistic', 'pvalue', 'pvalue_adjusted', 'verdict']
    """
    attributes, metrics, max_depth, min_size, n_resamples, alpha = _search_iv(
        group, y_true, y_pred, metrics, max_depth, min_size, n_resamples, alpha
    )
    generator = rng_iv(rng)
    if favorable not in (0, 1):
        raise ValueError(f"`favorable` must be 0 or 1, got {favorable!r}")
    columns = [*attributes, y_true, y_pred]
    frame, weight = as_rows(data, columns)
    frame = checked_frame(frame, columns).frame
    tuples, table, labels = _tuple_cells(frame, weight, attributes, y_true, y_pred, favorable)
    totals = table.sum(axis=0)
    n = int(totals.sum())
    member, names, depths = _subgroups(
        tuples, table.sum(axis=1).astype(float), attributes, labels, max_depth, min_size, n
    )
    if member is None:
        raise ValueError(
            f"no subgroup of {', '.join(map(repr, attributes))} up to depth {max_depth} has at least "
            f"min_size = {min_size} people inside and outside it ({n:,} people); lower `min_size`"
        )
    sub = np.asarray(member @ table.astype(float))
    z, r1, r2, d1, d2 = _z(sub, totals, metrics)  # (n_subgroups, n_metrics)
    flat = z.ravel()
    defined = np.isfinite(flat)
    order = np.argsort(-np.where(defined, np.abs(flat), -1.0), kind="stable")[: int(defined.sum())]
    observed = np.abs(flat[order]) * _TIE

    chunk = max(1, min(n_resamples, _CHUNK_ENTRIES // max(1, 4 * max(len(table), member.shape[0]))))

    def permuted_z():
        """|z| of every defined comparison (in ``order``) under each permutation, a batch at a time."""
        draws = fixed_margin_tables(table.sum(axis=1), totals, n_resamples, generator, batch=chunk)
        for drawn in draws:  # (b, n_tuples, 4)
            b = drawn.shape[0]
            stacked = drawn.transpose(1, 0, 2).reshape(len(table), b * 4).astype(float)
            permuted = np.asarray(member @ stacked).reshape(member.shape[0], b, 4).transpose(1, 0, 2)
            zb = _z(permuted, totals, metrics)[0].reshape(b, -1)[:, order]
            yield np.nan_to_num(np.abs(zb), nan=0.0)

    p_marginal = np.full(flat.shape, np.nan)
    p_adjusted = np.full(flat.shape, np.nan)
    p_marginal[order], p_adjusted[order] = max_t_pvalues(observed, permuted_z(), n_resamples)

    n_sub, n_met = z.shape
    sizes = sub.sum(axis=1)
    note = np.full(flat.shape, "", dtype=object)
    for i in np.flatnonzero(~defined):
        s, m = divmod(i, n_met)
        if d1[s, m] == 0:
            note[i] = f"no case in the denominator of {metrics[m]} in the subgroup"
        elif d2[s, m] == 0:
            note[i] = f"no case in the denominator of {metrics[m]} outside the subgroup"
        else:
            note[i] = f"{metrics[m]} is 0 or 1 for everyone: no variance"
    verdict = np.where(~defined, "undefined", np.where(p_adjusted < alpha, "disparity", "inconclusive"))
    out = pd.DataFrame(
        {
            "subgroup": np.repeat(np.array(names, dtype=object), n_met),
            "n": np.repeat(np.rint(sizes).astype(np.int64), n_met),
            "metric": np.tile(np.array(metrics, dtype=object), n_sub),
            "estimate": (r1 - r2).ravel(),
            "statistic": flat,
            "pvalue": p_marginal,
            "pvalue_adjusted": p_adjusted,
            "verdict": verdict.astype(object),
            "rate_subgroup": r1.ravel(),
            "rate_rest": r2.ravel(),
            "n_rest": np.repeat(n - np.rint(sizes).astype(np.int64), n_met),
            "denominator_subgroup": np.rint(d1).astype(np.int64).ravel(),
            "denominator_rest": np.rint(d2).astype(np.int64).ravel(),
            "depth": np.repeat(np.array(depths, dtype=np.int64), n_met),
            "note": note,
            **{c: np.repeat(np.rint(sub[:, k]).astype(np.int64), n_met) for k, c in enumerate(CELLS)},
        }
    )
    rank = np.full(flat.shape, len(flat), dtype=np.int64)
    rank[order] = np.arange(len(order))
    out = out.iloc[np.argsort(rank, kind="stable")].reset_index(drop=True)
    if not defined.all():
        warnings.warn(
            f"{int((~defined).sum())} of {len(flat)} subgroup comparisons have no z statistic (an empty "
            "denominator, or a rate of 0 or 1 overall); their verdict is 'undefined'",
            UndefinedTestWarning,
            stacklevel=2,
        )
    return SubgroupSearchResult(
        table=out,
        group=tuple(attributes),
        metrics=tuple(metrics),
        max_depth=max_depth,
        min_size=min_size,
        n=n,
        n_subgroups=n_sub,
        n_tests=int(defined.sum()),
        n_resamples=n_resamples,
        alpha=alpha,
        totals=tuple(int(t) for t in totals),
        favorable=favorable,
    )
