"""``fairstats audit`` at any size: rows, groups, engines (issue 14).

Four comparisons, each measured side by side in this run:

1. **Rows.** The audit (one grouping of 6 groups, binary labels, 999 resamples) of a parquet file of
   2 x 10^7 rows against the same audit of 2 x 10^5 rows; each audit a fresh ``fairstats audit`` process,
   wall time and peak resident memory (``ru_maxrss`` of that child, ``os.wait4``). Goal: <= 4x the time,
   peak RSS < 1.5 GiB. The 2 x 10^7-row file, read into pandas, would need the peak RSS measured for
   ``pandas.read_parquet`` (reported as a detail).
2. **Groups.** The audit of 20,000 people in 2,000 groups of 10 against 10 groups of 2,000 (CSV, 999
   resamples), each a fresh ``fairstats audit`` process, run three times interleaved, best of each.
   Goal: <= 5x.
3. **Counting engines.** :meth:`fairstats.Counts.from_frame` of 10^7 in-memory rows (group, y_true, y_pred)
   by DuckDB and by polars, against the floor of one ``np.bincount`` over integer codes already in memory.
   Reported (no goal): the engines count strings and labels, the floor only pre-made codes.
4. **Spark.** :meth:`fairstats.Counts.from_frame` of a 10^7-row parquet file read by Spark in local mode
   against pandas (``read_parquet`` then the same counting), session start-up excluded. Reported, no goal.

Data from the config seed; ``--quick`` runs every step at 1/100 of the size. ``--comparisons groups`` (a
comma-separated subset of rows, groups, engines, spark) runs only those, for a quick look at one goal; the
committed results come from all four (``bench/run.py --only audit_scale``), since the summary expects
every row.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import ROOT, best_time, config_seed, detail, emit, parser, row  # noqa: E402

BENCH = "audit_scale"
GROUPS = np.array(["A - F", "A - M", "B - F", "B - M", "C - F", "C - M"])
GROUP_P = np.array([0.3, 0.25, 0.15, 0.12, 0.1, 0.08])
FAIRSTATS = [sys.executable, "-m", "fairstats"]


def _chunk(rng: np.random.Generator, n: int) -> pa.Table:
    g = rng.choice(len(GROUPS), n, p=GROUP_P)
    y = (rng.random(n) < 0.3 + 0.05 * (g % 3)).astype(np.int8)
    p = np.where(rng.random(n) < 0.8 - 0.04 * g, y, 1 - y).astype(np.int8)
    return pa.table({"group": pa.array(GROUPS[g]), "y": y, "p": p})


def write_people(path: Path, n: int, rng: np.random.Generator, chunk: int = 2_000_000) -> None:
    with pq.ParquetWriter(path, _chunk(rng, 1).schema, compression="zstd") as writer:
        for start in range(0, n, chunk):
            writer.write_table(_chunk(rng, min(chunk, n - start)))


def timed_child(cmd: list[str]) -> tuple[float, int, int]:
    """Wall time, peak RSS (bytes) and exit status of one child process."""
    start = time.perf_counter()
    process = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed: {process.stderr.read().decode()[-2000:]}")
    return seconds, usage.ru_maxrss * 1024, process.returncode


def audit_cmd(source: str, out: Path, groups: str = "group", *, n_resamples: int = 999) -> list[str]:
    return [
        *FAIRSTATS, "audit", source, "--group", groups, "--y-true", "y", "--y-pred", "p",
        "--n-resamples", str(n_resamples), "--out", str(out),
    ]


def rows_comparison(tmp: Path, rng, quick: bool, rows: list, details: list) -> None:
    small_n, big_n = (2_000, 200_000) if quick else (200_000, 20_000_000)
    small, big = tmp / "small.parquet", tmp / "big.parquet"
    write_people(small, small_n, rng)
    write_people(big, big_n, rng)
    small_s, small_rss, _ = timed_child(audit_cmd(str(small), tmp / "audit-small"))
    big_s, big_rss, _ = timed_child(audit_cmd(str(big), tmp / "audit-big"))
    same = (tmp / "audit-small" / "tests.csv").read_text().splitlines()[0] == (
        tmp / "audit-big" / "tests.csv"
    ).read_text().splitlines()[0]
    pandas_s, pandas_rss, _ = timed_child(
        [sys.executable, "-c", f"import pandas as pd; pd.read_parquet({str(big)!r})"]
    )
    limit = 1.5 * 2**30
    rows.append(
        row(
            f"audit: parquet {big_n:,} rows vs {small_n:,} rows (6 groups, 999 resamples)",
            ours_s=big_s,
            reference=f"audit of {small_n:,} rows",
            reference_s=small_s,
            floor=True,
            goal="<= 4x the time, peak RSS < 1.5 GiB",
            met=big_s <= 4 * small_s and big_rss < limit,
        )
    )
    details += [
        detail(BENCH, "rows_small", small_n, "rows"),
        detail(BENCH, "rows_big", big_n, "rows"),
        detail(BENCH, "parquet_big_bytes", big.stat().st_size, "bytes"),
        detail(BENCH, "audit_small_peak_rss", small_rss, "bytes"),
        detail(BENCH, "audit_big_peak_rss", big_rss, "bytes"),
        detail(BENCH, "pandas_read_parquet_big_peak_rss", pandas_rss, "bytes"),
        detail(BENCH, "pandas_read_parquet_big_s", pandas_s, "s"),
        detail(BENCH, "tables_have_same_columns", same),
    ]


#: Runs of each side of the groups comparison (interleaved; the best of each is compared).
GROUPS_REPEAT = 3


def groups_comparison(tmp: Path, rng, quick: bool, rows: list, details: list) -> None:
    many, size = (200, 10) if quick else (2_000, 10)
    n = many * size
    for name, q in (("many", many), ("few", 10)):
        g = np.repeat(np.arange(q), n // q)
        y = rng.integers(0, 2, n)
        p = np.where(rng.random(n) < 0.75, y, 1 - y)
        frame = pd.DataFrame({"group": [f"g{i:04d}" for i in g], "y": y, "p": p})
        frame.to_csv(tmp / f"{name}.csv", index=False)
    times: dict[str, list[float]] = {"many": [], "few": []}
    for _ in range(GROUPS_REPEAT):  # interleaved, best of each: a burst of other users' load hits both
        for name in times:
            times[name].append(timed_child(audit_cmd(str(tmp / f"{name}.csv"), tmp / f"audit-{name}"))[0])
    many_s, few_s = min(times["many"]), min(times["few"])
    rows.append(
        row(
            f"audit: {many:,} groups of {size} vs 10 groups of {n // 10:,} (999 resamples)",
            ours_s=many_s,
            reference=f"10 groups of {n // 10:,}",
            reference_s=few_s,
            floor=True,
            goal="<= 5x the time",
            met=many_s <= 5 * few_s,
        )
    )
    details += [
        detail(BENCH, "groups_people", n, "people"),
        detail(BENCH, "groups_many_times", times["many"], "s"),
        detail(BENCH, "groups_few_times", times["few"], "s"),
        detail(BENCH, "groups_report_md_bytes", (tmp / "audit-many" / "report.md").stat().st_size, "bytes"),
    ]


def engines_comparison(rng, quick: bool, rows: list, details: list) -> None:
    import duckdb
    import polars as pl

    from fairstats import Counts

    n = 100_000 if quick else 10_000_000
    table = _chunk(rng, n)
    codes = pd.Index(GROUPS).get_indexer(table["group"].to_numpy(zero_copy_only=False)).astype(np.intp)
    cell = (2 * (1 - table["y"].to_numpy().astype(np.intp)) + 1 - table["p"].to_numpy().astype(np.intp))
    floor_s, floor_counts, _ = best_time(lambda: np.bincount(codes * 4 + cell, minlength=24), repeat=3)
    columns = ["group", "y", "p"]
    frames = {"DuckDB": duckdb.connect().from_arrow(table), "polars": pl.from_arrow(table)}
    for name, frame in frames.items():
        ours_s, counts, _ = best_time(lambda f=frame: Counts.from_frame(f, columns=columns), repeat=3)
        same = sorted(counts.table["n"].tolist()) == sorted(int(c) for c in floor_counts if c)
        rows.append(
            row(
                f"counting {n:,} in-memory rows: Counts.from_frame on a {name} frame",
                ours_s=ours_s,
                reference="one np.bincount over integer codes in memory",
                reference_s=floor_s,
                floor=True,
                goal="report (same counts)",
                met=same,
            )
        )
        details.append(detail(BENCH, f"{name}_counts_equal_bincount", same))


SPARK_SCRIPT = """
import json, sys, time, warnings
warnings.simplefilter("ignore")
import pandas as pd
from pyspark.sql import SparkSession
from fairstats import Counts
path = sys.argv[1]
spark = (SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false")
         .config("spark.sql.shuffle.partitions", "4").getOrCreate())
spark.sparkContext.setLogLevel("ERROR")
columns = ["group", "y", "p"]
Counts.from_frame(spark.read.parquet(path), columns=columns)  # warm-up (JIT, caches)
times = {"spark": [], "pandas": []}
for _ in range(2):
    start = time.perf_counter(); spark_counts = Counts.from_frame(spark.read.parquet(path), columns=columns)
    times["spark"].append(time.perf_counter() - start)
    start = time.perf_counter(); pandas_counts = Counts.from_frame(pd.read_parquet(path), columns=columns)
    times["pandas"].append(time.perf_counter() - start)
same = spark_counts.table["n"].tolist() == pandas_counts.table["n"].tolist()
spark.stop()
print(json.dumps({"spark": min(times["spark"]), "pandas": min(times["pandas"]), "same": same}))
"""


def spark_comparison(tmp: Path, rng, quick: bool, rows: list, details: list) -> None:
    import json

    n = 100_000 if quick else 10_000_000
    path = tmp / "spark.parquet"
    write_people(path, n, rng)
    result = subprocess.run(
        [sys.executable, "-c", SPARK_SCRIPT, str(path)], cwd=ROOT, capture_output=True, text=True, check=True
    )
    measured = json.loads(result.stdout.strip().splitlines()[-1])
    rows.append(
        row(
            f"counting a {n:,}-row parquet file: Spark local[2] vs pandas",
            ours_s=measured["spark"],
            reference="pandas.read_parquet + Counts.from_frame",
            reference_s=measured["pandas"],
            floor=True,
            goal="report (same counts)",
            met=bool(measured["same"]),
        )
    )
    details.append(detail(BENCH, "spark_counts_equal_pandas", measured["same"]))


COMPARISONS = ("rows", "groups", "engines", "spark")


def main() -> None:
    cli = parser(BENCH, __doc__.splitlines()[0])
    cli.add_argument(
        "--comparisons", default=",".join(COMPARISONS),
        help=f"comma-separated subset of {', '.join(COMPARISONS)} (default: all)",
    )
    args = cli.parse_args()
    chosen = [c for c in args.comparisons.split(",") if c]
    unknown = sorted(set(chosen) - set(COMPARISONS))
    if unknown or not chosen:
        cli.error(f"--comparisons: unknown {unknown}; choose from {list(COMPARISONS)}")
    # one generator per comparison (spawned from the config seed): a comparison's data do not depend on
    # which others run
    seeds = np.random.SeedSequence(config_seed()).spawn(len(COMPARISONS))
    rng = {name: np.random.default_rng(seed) for name, seed in zip(COMPARISONS, seeds, strict=True)}
    rows: list = []
    details: list = []
    with tempfile.TemporaryDirectory(prefix="fairstats-bench-audit-") as folder:
        tmp = Path(folder)
        if "rows" in chosen:
            rows_comparison(tmp, rng["rows"], args.quick, rows, details)
        if "groups" in chosen:
            groups_comparison(tmp, rng["groups"], args.quick, rows, details)
        if "engines" in chosen:
            engines_comparison(rng["engines"], args.quick, rows, details)
        if "spark" in chosen:
            spark_comparison(tmp, rng["spark"], args.quick, rows, details)
    emit(args.json, rows, details)


if __name__ == "__main__":
    main()
