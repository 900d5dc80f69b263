"""Subgroup search at scale (issue 17 B): 3 attributes of 5 values each, depth 2, 999 permutations.

Two comparisons, measured side by side in this run:

1. **Time.** :func:`fairstats.subgroup_search` (rates fpr, fnr, ppr; 90 subgroups, 270 comparisons) on
   10^6 rows of a pandas frame against the same search on 10^5 rows. Goal: <= 5 s for 10^6 rows. The
   permutations are drawn as random tables with the attribute-tuple x cell margins, so only the one
   counting pass grows with the rows.
2. **Memory.** Peak memory traced during the search (``tracemalloc``; numpy's arrays included) from the
   counts of 10^6 people against the counts of 10^5 people (:class:`fairstats.Counts`, 500 cells either
   way). Goal: <= 1.5x (the permutation phase does not grow with the people). The traced peak of the
   search from rows (its counting pass holds a few integer arrays of the rows' length) is a detail.

Data from the config seed; ``--quick`` runs at 1/100 of the size.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import best_time, config_seed, detail, emit, parser, row, traced_peak  # noqa: E402

from fairstats import Counts, subgroup_search  # noqa: E402

BENCH = "subgroup_search"
ATTRIBUTES = ["a", "b", "c"]
N_RESAMPLES = 999


def people(n: int, rng: np.random.Generator) -> pd.DataFrame:
    values = np.array([f"v{i}" for i in range(5)], dtype=object)
    frame = pd.DataFrame({a: values[rng.integers(0, 5, n)] for a in ATTRIBUTES})
    y = rng.integers(0, 2, n)
    planted = ((frame["a"] == "v1") & (frame["b"] == "v2")).to_numpy()
    frame["y"] = y
    frame["p"] = (rng.random(n) < np.where(planted & (y == 0), 0.45, 0.3)).astype(np.int64)
    return frame


def search(data):
    return subgroup_search(data, group=ATTRIBUTES, y_true="y", y_pred="p", max_depth=2, min_size=30,
                           n_resamples=N_RESAMPLES, rng=config_seed())  # fmt: skip


def main() -> None:
    args = parser(BENCH, __doc__.splitlines()[0]).parse_args()
    rng = np.random.default_rng(config_seed())
    small_n, big_n = (1_000, 10_000) if args.quick else (100_000, 1_000_000)
    small, big = people(small_n, rng), people(big_n, rng)
    small_s, res_small, _ = best_time(lambda: search(small), repeat=2)
    big_s, res_big, big_times = best_time(lambda: search(big), repeat=2)
    counts_small = Counts.from_frame(small, columns=[*ATTRIBUTES, "y", "p"])
    counts_big = Counts.from_frame(big, columns=[*ATTRIBUTES, "y", "p"])
    peak_small, _ = traced_peak(lambda: search(counts_small))
    peak_big, _ = traced_peak(lambda: search(counts_big))
    peak_rows_big, _ = traced_peak(lambda: search(big))
    rows = [
        row(
            f"subgroup search: {big_n:,} rows vs {small_n:,} (3 x 5 values, depth 2, {N_RESAMPLES} perms)",
            ours_s=big_s,
            reference=f"search of {small_n:,} rows",
            reference_s=small_s,
            floor=True,
            goal="<= 5 s for 10^6 rows",
            met=big_s <= 5,
        ),
        {
            "benchmark": f"subgroup search memory: counts of {big_n:,} vs {small_n:,} people (traced peak)",
            "ours_s": float("nan"),
            "reference": "traced peak bytes, ratio = big / small",
            "reference_s": float("nan"),
            "ratio": peak_big / peak_small,
            "goal": "traced peak <= 1.5x (memory independent of rows)",
            "met": bool(peak_big <= 1.5 * peak_small),
        },
    ]
    top = res_big.table.iloc[0]
    details = [
        detail(BENCH, "rows_small", small_n, "rows"),
        detail(BENCH, "rows_big", big_n, "rows"),
        detail(BENCH, "subgroups", res_big.n_subgroups),
        detail(BENCH, "comparisons", res_big.n_tests),
        detail(BENCH, "cells_counted_big", len(counts_big.table), "rows of counts"),
        detail(BENCH, "search_big_times", ", ".join(f"{t:.3f}" for t in big_times), "s"),
        detail(BENCH, "traced_peak_counts_small", peak_small, "bytes"),
        detail(BENCH, "traced_peak_counts_big", peak_big, "bytes"),
        detail(BENCH, "traced_peak_rows_big", peak_rows_big, "bytes"),
        detail(BENCH, "top_subgroup_big", f"{top['subgroup']} [{top['metric']}]"),
        detail(BENCH, "top_pvalue_adjusted_big", float(top["pvalue_adjusted"])),
        detail(BENCH, "same_subgroups_small_big", bool(res_small.n_subgroups == res_big.n_subgroups)),
    ]
    emit(args.json, rows, details)


if __name__ == "__main__":
    main()
