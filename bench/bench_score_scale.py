"""A score audit from parquet at 10^5, 10^6 and 10^7 rows: O(n log n) time, bounded memory (issue 26).

The audit is the count-based part of what ``fairstats`` runs on a risk score with a binary outcome: the
counts of (group, outcome, score) from a parquet file (:meth:`fairstats.Counts.from_parquet`, DuckDB), then
:func:`fairstats.auc_tests` (AUC per group, DeLong) and :func:`fairstats.score_distribution_tests` (KS,
Mann–Whitney, Welch per outcome class). Four groups, outcome prevalence 0.3 to 0.5, a continuous float32
probability score: almost every score is distinct, the hard case (a decile score has 10 distinct values at
any size). :func:`fairstats.recalibration_tests` is left out: its statsmodels GLMs run on one row per
distinct score, so with 10^7 distinct scores they are linear in n but took 36 s and 1.8 GiB at 10^6
(IRLS copies of the design per iteration).

Each size runs in a fresh process (``os.wait4`` gives its peak RSS); the time is measured inside it, from
the parquet scan to the last table, imports excluded. Goal: time per row at 10^7 within 2x that at 10^5,
peak RSS at 10^7 <= 2 GiB. The 10^7 size runs once (``--quick``: 10^3, 10^4, 10^5).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import ROOT, config_seed, detail, emit, parser, row  # noqa: E402

BENCH = "score_scale"
LIMIT = 2 * 2**30

CHILD = r"""
import json, sys, time, warnings
import fairstats
path = sys.argv[1]
start = time.perf_counter()
counts = fairstats.Counts.from_parquet(path, columns=["group", "y", "score"])
counted = time.perf_counter()
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    auc = fairstats.auc_tests(counts, group="group", y_true="y", y_score="score")
    dist = fairstats.score_distribution_tests(counts, group="group", y_true="y", y_score="score")
end = time.perf_counter()
print(json.dumps({"seconds": end - start, "count_seconds": counted - start, "distinct": len(counts.table),
                  "auc": auc.groups["auc"].tolist(), "rows": len(dist.table)}))
"""


def write_people(path: Path, n: int, rng: np.random.Generator, chunk: int = 2_000_000) -> None:
    """``n`` people in row groups of ``chunk``: group 0..3, outcome y, float32 probability score."""
    writer = None
    try:
        for start in range(0, n, chunk):
            m = min(chunk, n - start)
            g = rng.integers(0, 4, m).astype(np.int8)
            logit = rng.normal(-0.8 + 0.2 * g, 1.2, m)
            p = (1 / (1 + np.exp(-logit))).astype(np.float32)
            y = (rng.random(m) < p).astype(np.int8)
            table = pa.table({"group": g, "y": y, "score": p})
            if writer is None:
                writer = pq.ParquetWriter(path, table.schema, compression="zstd")
            writer.write_table(table)
    finally:
        if writer is not None:
            writer.close()


def timed_child(path: Path) -> tuple[dict, int]:
    """Run the score audit of ``path`` in a fresh process: its JSON line and its peak RSS (``os.wait4``)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src") + os.pathsep + os.environ.get("PYTHONPATH", "")}
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        process = subprocess.Popen([sys.executable, "-c", CHILD, str(path)], cwd=ROOT, env=env, stdout=out,
                                   stderr=err)
        _, status, usage = os.wait4(process.pid, 0)
        if os.waitstatus_to_exitcode(status) != 0:
            err.seek(0)
            raise RuntimeError(f"score audit of {path} failed: {err.read().decode()[-2000:]}")
        out.seek(0)
        return json.loads(out.read().decode().strip().splitlines()[-1]), usage.ru_maxrss * 1024


def main() -> None:
    cli = parser(BENCH, __doc__.splitlines()[0])
    args = cli.parse_args()
    sizes = (1_000, 10_000, 100_000) if args.quick else (100_000, 1_000_000, 10_000_000)
    rng = np.random.default_rng([config_seed(), 26])
    rows, details, measured = [], [], {}
    with tempfile.TemporaryDirectory(prefix="fairstats-bench-score-") as tmp:
        for n in sizes:
            path = Path(tmp) / f"people-{n}.parquet"
            start = time.perf_counter()
            write_people(path, n, rng)
            written = time.perf_counter() - start
            result, peak = timed_child(path)
            measured[n] = (result, peak)
            print(f"{n:>12,} rows: {result['seconds']:.2f} s ({result['seconds'] / n * 1e6:.2f} us/row), "
                  f"{result['distinct']:,} distinct (group, y, score), peak RSS {peak / 2**30:.2f} GiB",
                  flush=True)
            details += [
                detail(BENCH, f"rows_{n}", n, "rows"),
                detail(BENCH, f"seconds_{n}", result["seconds"], "s"),
                detail(BENCH, f"count_seconds_{n}", result["count_seconds"], "s"),
                detail(BENCH, f"distinct_{n}", result["distinct"], "rows"),
                detail(BENCH, f"peak_rss_{n}", peak, "bytes"),
                detail(BENCH, f"write_seconds_{n}", written, "s"),
                detail(BENCH, f"parquet_bytes_{n}", path.stat().st_size, "bytes"),
            ]
            path.unlink()
    small, big = sizes[0], sizes[-1]
    (r_small, _), (r_big, peak_big) = measured[small], measured[big]
    per_small, per_big = r_small["seconds"] / small, r_big["seconds"] / big
    slope = float(np.polyfit(np.log(sizes), np.log([measured[n][0]["seconds"] for n in sizes]), 1)[0])
    details.append(detail(BENCH, "log_time_log_rows_slope", slope, ""))
    rows.append(
        row(
            f"score audit from parquet: time per row at {big:,} rows vs {small:,} rows",
            ours_s=per_big * big,
            reference=f"{small:,} rows, scaled to {big:,} (time per row x {big // small:,})",
            reference_s=per_small * big,
            floor=True,
            goal="time per row <= 2x, peak RSS <= 2 GiB",
            met=per_big <= 2 * per_small and peak_big <= LIMIT,
        )
    )
    emit(args.json, rows, details)


if __name__ == "__main__":
    main()
