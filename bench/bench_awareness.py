"""Fairness through awareness: every NIJ person's nearest other-race neighbour (Mahalanobis), vs cdist.

Ours: :func:`fairstats.awareness.mahalanobis_whitening` (pooled within-race covariance, once) then the exact
nearest-neighbour search :func:`fairstats.awareness.nearest_other_group` (one float32 product per pair of
groups, float64 refinement of every candidate within the rounding bound). Reference: brute force
``scipy.spatial.distance.cdist(x_block, x_other_race, "mahalanobis", VI=precision)`` in blocks, argmin per
row. At ~3 µs per pair, brute force over all 2 x 14,801 x 10,949 pairs takes about a quarter of an hour on
this machine, so by default it runs on a seeded sample of people of each race (``--sample``) and its time is
scaled to all pairs (time per pair x number of pairs, said in the summary); ``--sample 0`` runs it on
everybody. Neighbours are compared exactly on the people brute force ran on.

Features: the NIJ ``clean`` design matrix (:func:`compendium.data.nij.design_matrix`, 25,750 x 140, no ID or
row positions) of the authors' 250 fold files.

BLAS threads: ours runs with one BLAS thread (``--blas-threads``, as the training pipeline does). On this
shared machine the load is usually above the two cores, and OpenBLAS's default two threads then spin-wait for
each other: the same search takes two to three times longer (``scipy.linalg.eigh`` of the 138 x 138
correlation matrix in the whitening went from milliseconds to over a second, so the library now runs it with
one BLAS thread whatever the setting). The library-default timings and the CPU seconds are recorded in
``details.csv`` beside the one-thread ones.

Goal (issue 7): identical neighbours, <= 3 s.
"""

from __future__ import annotations

import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import ROOT, best_time, config_seed, detail, emit, parser, row  # noqa: E402

from compendium.data.nij import design_matrix, read_paper_folds  # noqa: E402
from fairstats.awareness import (  # noqa: E402
    SingularCovarianceWarning,
    mahalanobis_whitening,
    nearest_other_group,
)

NAME = "awareness"
FOLDS = ROOT / "data" / "raw" / "nij-paper-folds"


def ours(X, race):
    whitening = mahalanobis_whitening(X, group=race)
    return nearest_other_group(X, race, whitening=whitening)


def timed(fn, *, repeat: int, blas_threads: int):
    """Best wall time, the wall times, the CPU seconds of the best call, and the last result."""
    from threadpoolctl import threadpool_limits

    walls, cpus, result = [], [], None
    for _ in range(repeat):
        with threadpool_limits(limits=blas_threads or None):
            wall, cpu = time.perf_counter(), time.process_time()
            result = fn()
            walls.append(time.perf_counter() - wall)
            cpus.append(time.process_time() - cpu)
    best = int(np.argmin(walls))
    return walls[best], walls, cpus[best], result


def brute_force(x: np.ndarray, race: np.ndarray, queries: np.ndarray, vi: np.ndarray, *, block: int = 64):
    """cdist(..., "mahalanobis") from each query to every person of the other race; argmin per row."""
    from scipy.spatial.distance import cdist

    neighbor = np.empty(len(queries), dtype=np.intp)
    distance = np.empty(len(queries))
    pairs = 0
    for label in np.unique(race[queries]):
        rows = np.flatnonzero(race[queries] == label)
        others = np.flatnonzero(race != label)
        for start in range(0, len(rows), block):
            sel = rows[start : start + block]
            d = cdist(x[queries[sel]], x[others], "mahalanobis", VI=vi)
            j = d.argmin(axis=1)
            neighbor[sel] = others[j]
            distance[sel] = d[np.arange(len(sel)), j]
            pairs += d.size
    return neighbor, distance, pairs


def main() -> None:
    cli = parser(NAME, __doc__.splitlines()[0])
    cli.add_argument(
        "--sample", type=int, default=200, help="people per race for brute force (0 = everybody)"
    )
    cli.add_argument(
        "--blas-threads", type=int, default=1, help="BLAS threads for ours (0 = library default)"
    )
    args = cli.parse_args()
    table = read_paper_folds(FOLDS)
    if args.quick:
        table = table.iloc[:3000]
    dm = design_matrix(table, features="clean")
    X = dm.X
    race = dm.group.astype(str).to_numpy()
    n_black, n_white = int((race == "BLACK").sum()), int((race == "WHITE").sum())
    all_pairs = 2 * n_black * n_white
    print(f"awareness: {len(X):,} people ({n_black:,} Black, {n_white:,} White) x {X.shape[1]} features")

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SingularCovarianceWarning)
        ours_s, ours_times, ours_cpu, result = timed(
            lambda: ours(X, race), repeat=3, blas_threads=args.blas_threads
        )
        default_s, _, default_cpu, _ = timed(lambda: ours(X, race), repeat=2, blas_threads=0)
        whitening = mahalanobis_whitening(X, group=race)

    rng = np.random.default_rng(config_seed())
    if args.sample and not args.quick:
        per_race = [
            rng.choice(np.flatnonzero(race == r), args.sample, replace=False) for r in ("BLACK", "WHITE")
        ]
        queries = np.sort(np.concatenate(per_race))
    elif args.quick:
        queries = np.sort(rng.choice(len(X), 100, replace=False))
    else:
        queries = np.arange(len(X))
    x = X.to_numpy(dtype=float)
    ref_measured_s, (bf_neighbor, bf_distance, pairs), _ = best_time(
        lambda: brute_force(x, race, queries, whitening.precision), repeat=1
    )
    ref_s = ref_measured_s / pairs * all_pairs
    same = bool(np.array_equal(bf_neighbor, result.neighbor[queries]))
    max_rel = float(np.max(np.abs(bf_distance - result.distance[queries]) / np.maximum(bf_distance, 1e-300)))
    scaled = len(queries) != len(X)
    reference = (
        f"cdist 'mahalanobis' brute force in blocks, measured on {len(queries)} people "
        f"({pairs:,} pairs, {ref_measured_s:.1f} s), scaled to all {all_pairs:,} pairs"
        if scaled
        else f"cdist 'mahalanobis' brute force in blocks, all {all_pairs:,} pairs"
    )
    people = f"{len(X):,} people x {X.shape[1]} features"
    if args.blas_threads:
        people += f", {args.blas_threads} BLAS thread" + ("s" if args.blas_threads > 1 else "")
    rows = [
        row(
            f"awareness: awareness.nearest_other_group + whitening, {people}",
            ours_s=ours_s,
            reference=reference,
            reference_s=ref_s,
            floor=False,
            goal="identical neighbours, <= 3 s",
            met=same and ours_s <= 3,
        ),
    ]
    b = "awareness"
    details = [
        detail(b, "people", len(X), "people"),
        detail(b, "features", X.shape[1], "columns"),
        detail(b, "whitening_rank", whitening.rank, "dimensions"),
        detail(b, "dropped_columns", list(whitening.dropped_columns)),
        detail(b, "blas_threads_ours", args.blas_threads or "library default"),
        detail(b, "ours_times", [round(t, 6) for t in ours_times], "s"),
        detail(b, "ours_cpu_s", ours_cpu, "s"),
        detail(b, "ours_default_blas_s", default_s, "s"),
        detail(b, "ours_default_blas_cpu_s", default_cpu, "s"),
        detail(b, "brute_force_people", len(queries), "people"),
        detail(b, "brute_force_pairs", pairs, "pairs"),
        detail(b, "brute_force_measured_s", ref_measured_s, "s"),
        detail(b, "brute_force_s_per_pair", ref_measured_s / pairs, "s"),
        detail(b, "ours_equals_brute_force_on_sample", same),
        detail(b, "max_relative_distance_difference_vs_cdist", max_rel),
        detail(b, "people_with_tied_neighbours", int((result.n_ties > 1).sum()), "people"),
    ]
    emit(args.json, rows, details)


if __name__ == "__main__":
    main()
