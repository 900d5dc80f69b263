r"""Paper B's fairness through awareness (Tables XXI-XXV) as the authors computed it; why it pairs at random.

The authors' script ``Counterfactual Rater and Nearest Neighbor Rater.py`` (commit f53b889; read, not copied)
pairs every test person with the "nearest" person of the other race **in the same fold**, by a "Mahalanobis"
distance whose covariance matrix is that of the two vectors being compared:

.. math::

    V = \operatorname{cov}\begin{pmatrix} x^T \\ y^T \end{pmatrix}, \qquad
    d(x, y) = \sqrt{(x - y)^T V^{+} (x - y)},

with :math:`V^{+}` the Moore-Penrose pseudo-inverse (``numpy.linalg.pinv``). With two observations the
sample covariance (denominator n - 1 = 1) is :math:`V = \tfrac12 e e^T`, :math:`e = x - y`: rank one, so
:math:`V^{+} = 2 e e^T / \lVert e \rVert^4` and

.. math::

    d(x, y)^2 = e^T \frac{2 e e^T}{\lVert e \rVert^4} e = 2 \quad\text{for every } x \ne y.

**Every pair of distinct people is at distance** :math:`\sqrt 2`. The search (first candidate strictly below
the best so far, candidates in file order) therefore returns whichever candidate's floating-point error in
the SVD of :math:`V` happens to be most negative: the "nearest neighbour" is decided by rounding, and it
changes with the order in which the two vectors are stacked (rarely with the BLAS thread count). Rounding is
not a uniform draw, though: run on every fold, the search comes within a few per cent of the printed counts,
which a uniformly random other-race neighbour does not (``awareness_exact_search.csv`` beside
``awareness_random_neighbour.csv``).

This module gives the distance (:func:`authors_distance`), the exact search (:func:`authors_neighbours`; one
137 x 137 SVD per pair, about 5,000 per fold: an opt-in rule, not the default workflow), its run on a chunk of
folds in the authors' set-up (:func:`exact_search_chunk`) and the printed tables' counts from its neighbours
(:func:`exact_search_counts`), the search under several floating-point set-ups (:func:`compare_setups`) and
how far a set-up moves the neighbours and the counts (:func:`setup_sensitivity`), and the seeded Monte Carlo
of the printed 2x2 counts when the neighbour is a uniformly random other-race person of the same fold
(:func:`random_neighbour_counts`), the reference the printed counts are measured against.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from compendium.data.nij import design_matrix
from compendium.paper_b.as_published import mcnemar_midp_as_published
from compendium.paper_b.authors_procedure import REFIT_SWAPPED, refit_matrix
from fairstats.mcnemar import mcnemar_midp

__all__ = [
    "COUNT_TABLE_OF_MODEL",
    "awareness_mcnemar",
    "authors_distance",
    "authors_neighbours",
    "awareness_matrix",
    "compare_setups",
    "exact_search_chunk",
    "exact_search_counts",
    "printed_awareness_cells",
    "random_neighbour_counts",
    "setup_gaps",
    "setup_gaps_summary",
    "setup_sensitivity",
    "summarise_random_counts",
]

#: The printed awareness count table of each model (Tables XXI-XXIV).
COUNT_TABLE_OF_MODEL = {"lr": "XXI", "lda": "XXII", "rf": "XXIII", "xgb": "XXIV"}


def authors_distance(x: np.ndarray, y: np.ndarray, *, stack: str = "xy") -> float:
    r"""The authors' distance: Mahalanobis with the pseudo-inverted covariance of the two stacked vectors.

    Parameters
    ----------
    x, y : numpy.ndarray, shape (p,)
        Two feature vectors.
    stack : {"xy", "yx"}, keyword-only
        Stack ``x`` above ``y`` (the authors' order) or the other way round. Both give the same matrix in
        exact arithmetic; in floating point they differ in the last bits (a second "set-up").

    Returns
    -------
    float
        :math:`\sqrt{e^T V^+ e}`, which is :math:`\sqrt 2` up to rounding for every ``x != y`` and 0 for
        ``x == y`` (see the module docstring).
    """
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError(f"`x` and `y` must be vectors of one length, got shapes {x.shape} and {y.shape}")
    if stack not in ("xy", "yx"):
        raise ValueError(f"`stack` must be 'xy' or 'yx', got {stack!r}")
    e = x - y
    pair = np.vstack([x, y] if stack == "xy" else [y, x])
    v = np.cov(pair.T)
    return float(np.sqrt(e @ np.linalg.pinv(v) @ e))


def awareness_matrix(table: pd.DataFrame) -> pd.DataFrame:
    """The vectors the authors compare: the refit design without ``Race_BLACK`` (so ID and row kept).

    Returns the paper design matrix of ``table`` without both race dummies, columns in file order, plus the
    columns ``fold`` and ``black`` (1 = Black) in front.
    """
    dm = design_matrix(table, features="paper")
    X = refit_matrix(dm)
    black = X[REFIT_SWAPPED].to_numpy()
    head = pd.DataFrame({"fold": dm.fold.to_numpy(dtype=np.int64), "black": black}, index=X.index)
    return pd.concat([head, X.drop(columns=[REFIT_SWAPPED]).astype(np.float64)], axis=1)


def authors_neighbours(
    X: np.ndarray, black: np.ndarray, *, stack: str = "xy", n_threads: int = 1
) -> tuple[np.ndarray, np.ndarray]:
    """The authors' exact search within one fold.

    For each person in order, every person of the other race in order (never the person itself) is a
    candidate; a candidate replaces the current choice when its distance is strictly below the best so far
    (starting from 1e7). As in the authors' loop, the choice is not reset between people, so a person whose
    candidates all fail the comparison (e.g. NaN distances) keeps the previous person's neighbour.

    Parameters
    ----------
    X : numpy.ndarray, shape (n, p)
        The fold's vectors (:func:`awareness_matrix` without ``fold`` and ``black``).
    black : numpy.ndarray of 0/1, shape (n,)
        Race of each row.
    stack : {"xy", "yx"}, keyword-only
        Order of the stacked pair (:func:`authors_distance`).
    n_threads : int, keyword-only
        BLAS threads (``threadpoolctl``) during the search.

    Returns
    -------
    neighbour : numpy.ndarray of int, shape (n,)
        Position (in the fold) of each person's chosen neighbour.
    distance : numpy.ndarray of float, shape (n,)
        The chosen neighbour's distance.
    """
    X = np.asarray(X, dtype=np.float64)
    black = np.asarray(black)
    if X.ndim != 2 or len(black) != len(X):
        raise ValueError(f"`X` must be (n, p) with n = len(black) = {len(black)}, got shape {X.shape}")
    n = len(X)
    neighbour = np.zeros(n, dtype=np.int64)
    distance = np.full(n, np.nan)
    index = 0
    with threadpool_limits(limits=int(n_threads)):
        for i in range(n):
            best = 1e7
            for j in range(n):
                if black[j] == black[i] or i == j:
                    continue
                d = authors_distance(X[i], X[j], stack=stack)
                if d < best:
                    best, index = d, j
            neighbour[i] = index
            distance[i] = best if best < 1e7 else np.nan
    return neighbour, distance


def compare_setups(
    matrix: pd.DataFrame,
    folds: Sequence[int],
    setups: Sequence[tuple[str, int]] = (("xy", 1), ("xy", 2), ("yx", 1)),
) -> pd.DataFrame:
    """Run the exact search on ``folds`` under several floating-point set-ups; one row per person and set-up.

    Parameters
    ----------
    matrix : pandas.DataFrame
        :func:`awareness_matrix` of the NIJ table.
    folds : sequence of int
        The folds to search.
    setups : sequence of (stack, n_threads)
        Set-ups; the first is the reference (the authors' order, one BLAS thread).

    Returns
    -------
    pandas.DataFrame
        ``fold, position, ID, black, setup, neighbour_ID, distance, distance_minus_sqrt2, same_as_first``.
    """
    rows = []
    for fold in folds:
        sub = matrix[matrix["fold"] == fold]
        if sub.empty:
            raise ValueError(f"`folds`: fold {fold!r} has no rows")
        X = sub.drop(columns=["fold", "black"]).to_numpy()
        black = sub["black"].to_numpy()
        ids = sub["ID"].to_numpy(dtype=np.int64)
        first = None
        for stack, threads in setups:
            nb, dist = authors_neighbours(X, black, stack=stack, n_threads=threads)
            first = nb if first is None else first
            rows.append(
                pd.DataFrame(
                    {
                        "fold": fold,
                        "position": np.arange(len(sub)),
                        "ID": ids,
                        "black": black,
                        "setup": f"stack={stack} threads={threads}",
                        "neighbour_ID": ids[nb],
                        "distance": dist,
                        "distance_minus_sqrt2": dist - np.sqrt(2.0),
                        "same_as_first": nb == first,
                    }
                )
            )
    return pd.concat(rows, ignore_index=True)


#: Columns of one chunk of the exact search (:func:`exact_search_chunk`).
EXACT_SEARCH_COLUMNS = ["fold", "position", "ID", "black", "neighbour_ID", "distance"]


def exact_search_chunk(matrix: pd.DataFrame, folds: Sequence[int]) -> pd.DataFrame:
    """The authors' exact search in their set-up on ``folds``: one row per person.

    The set-up is the authors' script's: their feature set (:func:`awareness_matrix`), file order within
    the fold, the pair stacked as (person, candidate), strict ``<``, float64, one BLAS thread (the OpenBLAS
    kernels are the workflow's declared ``openblas_coretype``). The search does not depend on the model.

    Parameters
    ----------
    matrix : pandas.DataFrame
        :func:`awareness_matrix` of the NIJ table.
    folds : sequence of int
        Test folds to search.

    Returns
    -------
    pandas.DataFrame
        ``fold, position, ID, black, neighbour_ID, distance`` (:data:`EXACT_SEARCH_COLUMNS`).
    """
    frames = []
    for fold in folds:
        sub = matrix[matrix["fold"] == fold]
        if sub.empty:
            raise ValueError(f"`folds`: fold {fold!r} has no rows")
        ids = sub["ID"].to_numpy(dtype=np.int64)
        black = sub["black"].to_numpy()
        X = sub.drop(columns=["fold", "black"]).to_numpy()
        nb, dist = authors_neighbours(X, black, stack="xy", n_threads=1)
        frames.append(
            pd.DataFrame(
                {
                    "fold": int(fold),
                    "position": np.arange(len(sub)),
                    "ID": ids,
                    "black": black.astype(np.int64),
                    "neighbour_ID": ids[nb],
                    "distance": dist,
                }
            )
        )
    return pd.concat(frames, ignore_index=True)[EXACT_SEARCH_COLUMNS]


def printed_awareness_cells(published: pd.DataFrame) -> pd.DataFrame:
    """The printed cells of Tables XXI-XXIV: ``table, group, original, neighbor, published``.

    ``published`` is :func:`compendium.paper_b.authors.read_published_b`; the printed rows are the neighbour's
    prediction and the columns the person's own (as in Tables XVI-XIX).
    """
    part = published[published["table"].isin(list(COUNT_TABLE_OF_MODEL.values()))]
    return pd.DataFrame(
        {
            "table": part["table"].to_numpy(),
            "group": np.where(part["row"].str.startswith("Unprotected"), "White", "Black"),
            "original": part["column"].str.rsplit("=", n=1).str[1].astype(int).to_numpy(),
            "neighbor": part["row"].str.rsplit("=", n=1).str[1].astype(int).to_numpy(),
            "published": part["published"].astype(int).to_numpy(),
        }
    )


def exact_search_counts(
    neighbours: pd.DataFrame,
    refits: pd.DataFrame,
    printed: pd.DataFrame | None = None,
    *,
    unprotected: str = "WHITE",
) -> pd.DataFrame:
    """Tables XXI-XXIV from the exact search's neighbours and the authors' refit predictions.

    Parameters
    ----------
    neighbours : pandas.DataFrame
        :func:`exact_search_chunk` of every fold searched (gathered chunks).
    refits : pandas.DataFrame
        The authors' refit predictions (``model, ID, race, y_pred``), one per person and model.
    printed : pandas.DataFrame, optional
        :func:`printed_awareness_cells`; ``None`` leaves out the ``published`` column.
    unprotected : str, keyword-only
        The unprotected group's value of ``race``.

    Returns
    -------
    pandas.DataFrame
        ``model, table, group, original, neighbor, n, published``: per model, group (White, Black) and
        cell, the people of the searched folds with that own and neighbour prediction, beside the printed
        count (which covers all 250 folds; compare only when every fold is searched).
    """
    missing = set(neighbours["neighbour_ID"]) - set(neighbours["ID"])
    if missing:
        raise ValueError(f"`neighbours`: neighbour ID {min(missing)!r} is not a searched person")
    rows = []
    for model, table in COUNT_TABLE_OF_MODEL.items():
        part = refits[refits["model"].astype(str) == model]
        if part.empty:
            continue
        pred = part.set_index("ID")["y_pred"].astype(np.int64)
        white = part.set_index("ID")["race"].astype(str).eq(unprotected)
        own = pred.loc[neighbours["ID"]].to_numpy()
        other = pred.loc[neighbours["neighbour_ID"]].to_numpy()
        is_white = white.loc[neighbours["ID"]].to_numpy()
        for w, label in ((True, "White"), (False, "Black")):
            cells = np.bincount(own[is_white == w] * 2 + other[is_white == w], minlength=4)
            for k, (o, nb) in enumerate(((0, 0), (0, 1), (1, 0), (1, 1))):
                rows.append((model, table, label, o, nb, int(cells[k])))
    out = pd.DataFrame(rows, columns=["model", "table", "group", "original", "neighbor", "n"])
    if printed is None:
        return out
    keys = ["table", "group", "original", "neighbor"]
    return out.merge(printed, on=keys, how="left", validate="one_to_one")


def setup_sensitivity(
    setups: pd.DataFrame, every_fold: pd.DataFrame, refits: pd.DataFrame, *, n_folds_total: int = 250
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """How much the exact search's neighbours and Tables XXI-XXIV's counts move with the set-up.

    Parameters
    ----------
    setups : pandas.DataFrame
        :func:`compare_setups` on a sample of folds (its first set-up is the authors').
    every_fold : pandas.DataFrame
        :func:`exact_search_chunk` rows of (at least) the same folds, from the run on every fold.
    refits : pandas.DataFrame
        The authors' refit predictions (:func:`exact_search_counts`).
    n_folds_total : int, keyword-only
        Folds of the printed tables, to put a change on the sample on the printed tables' scale.

    Returns
    -------
    summary : pandas.DataFrame
        Per set-up: ``setup, folds, people, same_neighbour_as_first, share_changed, same_as_every_fold_run,
        min_distance_minus_sqrt2, max_distance_minus_sqrt2``; ``same_as_every_fold_run`` counts the people
        whose neighbour equals that of the run on every fold (for the first set-up, a check that the two
        runs agree).
    counts : pandas.DataFrame
        Per set-up and cell of Tables XXI-XXIV: ``model, table, group, original, neighbor, setup, n,
        n_first, change, change_fold_mean, change_fold_sd, projected_change_low, projected_change_high``:
        the count on the sample, the first set-up's, their difference, its mean and standard deviation over
        the sampled folds, and the range that difference would have over ``n_folds_total`` folds
        (N x mean +- 1.96 sqrt(N) x sd, folds taken as independent draws).
    """
    folds = sorted(int(f) for f in setups["fold"].unique())
    reference = every_fold[every_fold["fold"].isin(folds)].set_index(["fold", "ID"])["neighbour_ID"]
    missing = set(folds) - {int(f) for f in every_fold["fold"]}
    if missing:
        raise ValueError(f"`every_fold`: fold {min(missing)!r} of `setups` was not searched")
    order = list(dict.fromkeys(setups["setup"]))
    summary_rows, frames = [], []
    first = None
    for setup in order:
        part = setups[setups["setup"] == setup]
        keyed = part.set_index(["fold", "ID"])["neighbour_ID"]
        same_run = keyed.eq(reference.loc[keyed.index])
        summary_rows.append(
            {
                "setup": setup,
                "folds": len(folds),
                "people": len(part),
                "same_neighbour_as_first": int(part["same_as_first"].sum()),
                "share_changed": 1 - float(part["same_as_first"].mean()),
                "same_as_every_fold_run": int(same_run.sum()),
                "min_distance_minus_sqrt2": float(part["distance_minus_sqrt2"].min()),
                "max_distance_minus_sqrt2": float(part["distance_minus_sqrt2"].max()),
            }
        )
        per_fold = pd.concat(
            [exact_search_counts(part[part["fold"] == f], refits).assign(fold=f) for f in folds],
            ignore_index=True,
        )
        first = per_fold["n"].to_numpy() if first is None else first
        frames.append(per_fold.assign(setup=setup, n_first=first, change=per_fold["n"].to_numpy() - first))
    keys = ["model", "table", "group", "original", "neighbor", "setup"]
    counts = (
        pd.concat(frames, ignore_index=True)
        .groupby(keys, sort=False)
        .agg(
            n=("n", "sum"),
            n_first=("n_first", "sum"),
            change=("change", "sum"),
            change_fold_mean=("change", "mean"),
            change_fold_sd=("change", "std"),
        )
        .reset_index()
    )
    # over n_folds_total independent folds: total change ~ N m +- 1.96 sqrt(N) s (normal approximation)
    half = 1.96 * np.sqrt(n_folds_total) * counts["change_fold_sd"].fillna(0.0)
    counts["projected_change_low"] = n_folds_total * counts["change_fold_mean"] - half
    counts["projected_change_high"] = n_folds_total * counts["change_fold_mean"] + half
    return pd.DataFrame(summary_rows), counts


def awareness_mcnemar(exact_counts: pd.DataFrame, *, alpha: float = 0.05) -> pd.DataFrame:
    """Table XXV from the exact search's counts: K, N-K, the mid-p of Eq. 3 and the printed formula's p.

    Parameters
    ----------
    exact_counts : pandas.DataFrame
        :func:`exact_search_counts` (``model, table, group, original, neighbor, n``).
    alpha : float, keyword-only
        The test's level (the paper's: 0.05).

    Returns
    -------
    pandas.DataFrame
        One row per model and group: ``table`` (``"XXV"``), ``model, test, metric, alternative, alpha, group,
        n`` (the group's people), ``k`` (own prediction 1, neighbour's 0), ``n_minus_k`` (own 0, neighbour's
        1), ``pvalue`` (:func:`fairstats.mcnemar.mcnemar_midp`, the paper's Eq. 3), ``pvalue_as_published``
        (:func:`compendium.paper_b.as_published.mcnemar_midp_as_published`, the formula behind the printed
        p-values) and ``source`` (``"authors-procedure"``).
    """
    rows = []
    cells = exact_counts.set_index(["model", "group", "original", "neighbor"])["n"].sort_index()
    for model in dict.fromkeys(exact_counts["model"]):
        for group in ("White", "Black"):
            k, nk = int(cells.loc[(model, group, 1, 0)]), int(cells.loc[(model, group, 0, 1)])
            rows.append(
                {
                    "table": "XXV",
                    "model": model,
                    "test": "fairness_through_awareness",
                    "metric": "prediction_vs_neighbor",
                    "alternative": "two-sided",
                    "alpha": float(alpha),
                    "group": group,
                    "n": int(cells.loc[(model, group)].sum()),
                    "k": k,
                    "n_minus_k": nk,
                    "pvalue": mcnemar_midp(k, nk).pvalue,
                    "pvalue_as_published": mcnemar_midp_as_published(k, nk).pvalue,
                    "source": "authors-procedure",
                }
            )
    columns = [
        "table",
        "model",
        "test",
        "metric",
        "alternative",
        "alpha",
        "group",
        "n",
        "k",
        "n_minus_k",
        "pvalue",
        "pvalue_as_published",
        "source",
    ]
    return pd.DataFrame(rows, columns=columns)


def setup_gaps(exact_counts: pd.DataFrame, setup_counts: pd.DataFrame) -> pd.DataFrame:
    """Per printed cell of Tables XXI-XXIV and per other set-up tried: the gap and what that set-up moves.

    Parameters
    ----------
    exact_counts : pandas.DataFrame
        :func:`exact_search_counts` of the search on every fold in the authors' set-up, with ``published``.
    setup_counts : pandas.DataFrame
        The ``counts`` of :func:`setup_sensitivity` (its first set-up is the authors').

    Returns
    -------
    pandas.DataFrame
        One row per cell and other set-up: ``model, table, group, original, neighbor, published, n`` (the
        search in the authors' set-up), ``gap`` (printed - n) and ``gap_share`` (gap / n), ``setup``,
        ``change_low, change_high`` (the range by which that set-up would move n over the 250 folds,
        projected from the sampled folds), ``gap_in_range`` (the gap lies in it: the set-up can move our count
        to the printed one) and ``direction``: ``"towards"`` (the range reaches the gap's side of 0: the
        set-up can move our count towards the printed one), ``"away"`` (the range lies strictly on the other
        side), ``"still"`` (the set-up does not move this count on the sampled folds), ``"no gap"``.
    """
    keys = ["model", "table", "group", "original", "neighbor"]
    first = setup_counts["setup"].iloc[0]
    other = setup_counts[setup_counts["setup"] != first][
        [*keys, "setup", "projected_change_low", "projected_change_high"]
    ].rename(columns={"projected_change_low": "change_low", "projected_change_high": "change_high"})
    out = exact_counts[[*keys, "published", "n"]].merge(other, on=keys, how="inner", validate="one_to_many")
    out["gap"] = out["published"] - out["n"]
    out["gap_share"] = out["gap"] / out["n"]
    out["gap_in_range"] = (out["change_low"] <= out["gap"]) & (out["gap"] <= out["change_high"])
    gap_sign = np.sign(out["gap"])
    still = (out["change_low"] == 0) & (out["change_high"] == 0)
    away = ((gap_sign > 0) & (out["change_high"] < 0)) | ((gap_sign < 0) & (out["change_low"] > 0))
    out["direction"] = np.select([gap_sign == 0, still, away], ["no gap", "still", "away"], default="towards")
    order = ["model", "table", "group", "original", "neighbor", "published", "n", "gap", "gap_share", "setup"]
    return out[[*order, "change_low", "change_high", "gap_in_range", "direction"]]


def setup_gaps_summary(gaps: pd.DataFrame) -> pd.DataFrame:
    """Per printed cell: its gap and what every set-up tried shows about it (:func:`setup_gaps`).

    Returns
    -------
    pandas.DataFrame
        ``model, table, group, original, neighbor, published, n, gap, gap_share``, ``in_range_of`` (the
        set-ups whose range holds the gap, ``"; "``-joined, ``""`` for none) and ``no_setup_towards``
        (there is a gap, and every set-up tried moves our count away from the printed one or not at all).
    """
    keys = ["model", "table", "group", "original", "neighbor", "published", "n", "gap", "gap_share"]
    rows = []
    for key, g in gaps.groupby(keys, sort=False):
        rows.append(
            {
                **dict(zip(keys, key, strict=True)),
                "in_range_of": "; ".join(g.loc[g["gap_in_range"], "setup"]),
                "no_setup_towards": bool(g["direction"].isin(["away", "still"]).all()),
            }
        )
    return pd.DataFrame(rows, columns=[*keys, "in_range_of", "no_setup_towards"])


def random_neighbour_counts(
    refits: pd.DataFrame, *, n_draws: int, seed: int, unprotected: str = "WHITE"
) -> pd.DataFrame:
    """Monte Carlo of Tables XXI-XXIV when each person's neighbour is a uniformly random other-race person of
    the same fold (what a search among equal distances amounts to).

    Parameters
    ----------
    refits : pandas.DataFrame
        The authors' refit predictions (:func:`compendium.paper_b.authors_procedure.refit_fold_chunk`,
        gathered):
        ``model, fold, ID, race, y_pred``; every model predicts the same people.
    n_draws : int, keyword-only
        Monte Carlo draws (each draws one neighbour per person, shared by the four models as in the
        authors' loop).
    seed : int, keyword-only
        Seed of ``numpy.random.default_rng``.
    unprotected : str, keyword-only
        The unprotected group's value of ``race`` (the other is protected).

    Returns
    -------
    pandas.DataFrame
        One row per draw, model, group and cell: ``draw, model, table, group (White/Black), original,
        neighbor, n``.
    """
    if isinstance(n_draws, bool) or not isinstance(n_draws, int | np.integer) or n_draws < 1:
        raise ValueError(f"`n_draws` must be a positive integer, got {n_draws!r}")
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise ValueError(f"`seed` must be a non-negative integer, got {seed!r}")
    models = [m for m in COUNT_TABLE_OF_MODEL if m in set(refits["model"].astype(str))]
    first = refits[refits["model"].astype(str) == models[0]].sort_values(["fold", "ID"], kind="stable")
    ids = first["ID"].to_numpy()
    fold = first["fold"].to_numpy()
    white = (first["race"].astype(str) == unprotected).to_numpy()
    preds = np.vstack(
        [
            refits[refits["model"].astype(str) == m]
            .set_index("ID")
            .loc[ids, "y_pred"]
            .to_numpy(dtype=np.int64)
            for m in models
        ]
    )
    # candidates: for each person, the positions of the other race in the same fold
    order = np.lexsort((~white, fold))  # per fold: Black first, then White (positions into `ids`)
    starts, counts = {}, {}
    for f in np.unique(fold):
        for w in (False, True):
            pos = order[(fold[order] == f) & (white[order] == w)]
            starts[(f, w)], counts[(f, w)] = pos, len(pos)
    cand = [starts[(fold[i], not white[i])] for i in range(len(ids))]
    n_cand = np.array([len(c) for c in cand])
    if (n_cand == 0).any():
        raise ValueError(f"fold {fold[np.argmax(n_cand == 0)]!r} has people of one race only")
    offsets = np.concatenate([[0], np.cumsum(n_cand)[:-1]])
    flat = np.concatenate(cand)
    rng = np.random.default_rng(int(seed))
    out = []
    for draw in range(int(n_draws)):
        pick = flat[offsets + np.floor(rng.random(len(ids)) * n_cand).astype(np.int64)]
        for mi, model in enumerate(models):
            own, other = preds[mi], preds[mi][pick]
            for w, label in ((True, "White"), (False, "Black")):
                mask = white == w
                cells = np.bincount(own[mask] * 2 + other[mask], minlength=4)
                for k, (o, nb) in enumerate(((0, 0), (0, 1), (1, 0), (1, 1))):
                    out.append((draw, model, COUNT_TABLE_OF_MODEL[model], label, o, nb, int(cells[k])))
    return pd.DataFrame(out, columns=["draw", "model", "table", "group", "original", "neighbor", "n"])


def summarise_random_counts(draws: pd.DataFrame, printed: pd.DataFrame) -> pd.DataFrame:
    """Where each printed count of Tables XXI-XXIV falls in the Monte Carlo distribution.

    Parameters
    ----------
    draws : pandas.DataFrame
        :func:`random_neighbour_counts`.
    printed : pandas.DataFrame
        ``table, group, original, neighbor, published`` (the printed cells).

    Returns
    -------
    pandas.DataFrame
        Per cell: ``mean, sd, q025, q975, published, z`` (``(published - mean) / sd``) and
        ``pvalue_mc`` (two-sided: twice the smaller share of draws at or beyond the printed count, with the
        +1 correction of Davison & Hinkley 1997, eq. 4.11).
    """
    keys = ["model", "table", "group", "original", "neighbor"]
    g = draws.groupby(keys)["n"]
    summary = g.agg(mean="mean", sd="std", q025=lambda s: s.quantile(0.025), q975=lambda s: s.quantile(0.975))
    summary = summary.reset_index().merge(printed, on=["table", "group", "original", "neighbor"], how="left")
    pvalues = []
    for _, r in summary.iterrows():
        n = draws.loc[
            (draws["model"] == r["model"])
            & (draws["group"] == r["group"])
            & (draws["original"] == r["original"])
            & (draws["neighbor"] == r["neighbor"]),
            "n",
        ].to_numpy()
        lo = (np.sum(n <= r["published"]) + 1) / (len(n) + 1)
        hi = (np.sum(n >= r["published"]) + 1) / (len(n) + 1)
        pvalues.append(min(1.0, 2 * min(lo, hi)))
    summary["z"] = (summary["published"] - summary["mean"]) / summary["sd"]
    summary["pvalue_mc"] = pvalues
    return summary
