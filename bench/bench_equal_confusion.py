"""Equal confusion test at scale: 10^8 people as integer codes, vs pandas + scipy and vs one bincount pass.

Ours: :meth:`fairstats.ContingencyTable.from_codes` (chunked ``np.bincount``) then
:func:`fairstats.equal_confusion_test` on the table (chi-squared, Cramér's V, adjusted residuals, Cochran).
Peer: ``pandas.crosstab`` + ``scipy.stats.chi2_contingency`` on the same codes (run on all rows when the
machine's available memory allows it, otherwise on fewer rows, said in the summary). Floors: one
``np.bincount`` over the combined code ``group * r + cell`` already in ``intp`` (counting only), and the
one-liner ``np.bincount(group.astype(intp) * r + cell)`` (combining and counting). Memory beyond the input
is traced (``tracemalloc``, which sees numpy's allocations). Streaming: the same rows written to a parquet
file in row groups (zstd, 2^20 rows each), then :func:`fairstats.equal_confusion_test` of
:meth:`fairstats.ContingencyTable.from_parquet` (DuckDB's GROUP BY over the file,
:meth:`fairstats.Counts.from_parquet`) in a fresh process, beside its floor (reading the file's record batches
with pyarrow and doing nothing with them); its peak resident memory beyond the resident memory before the call
is measured there (Linux ``VmHWM`` after a reset through ``/proc/self/clear_refs``).

The data: q = 6 intersectional groups (3 races x 2 sexes, unequal sizes), binary truth and prediction with
group-dependent base rates and error rates, drawn from the config seed. Input: ``int8`` group codes and
``int8`` cell codes (2 x 10^8 bytes).

Goals (issue 7): >= 10x the peer, <= 2x the floor, memory beyond the input O(groups x cells).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import (  # noqa: E402
    ROOT,
    best_time,
    config_seed,
    detail,
    emit,
    mem_available_bytes,
    parser,
    row,
    traced_peak,
)

from fairstats import ContingencyTable, equal_confusion_test  # noqa: E402

NAME = "equal_confusion"
GROUPS = [f"{race} - {sex}" for race in ("Black", "Hispanic", "White") for sex in ("Female", "Male")]
GROUP_SHARES = np.array([0.08, 0.40, 0.03, 0.12, 0.07, 0.30])
BASE_RATE = np.array([0.40, 0.55, 0.35, 0.45, 0.30, 0.42])  # P(y = 1) per group
TPR = np.array([0.70, 0.72, 0.60, 0.62, 0.55, 0.58])  # P(yhat = 1 | y = 1)
FPR = np.array([0.25, 0.30, 0.18, 0.20, 0.15, 0.17])  # P(yhat = 1 | y = 0)
#: Peak bytes per row of pandas.crosstab + chi2_contingency on int8 codes (measured: 0.65 GiB at 10^7 rows).
PEER_BYTES_PER_ROW = 70
#: Memory left free for the other users of the machine when deciding the peer's size.
HEADROOM = 6 * 2**30
#: Streaming goal: peak resident memory beyond the baseline, whatever the file size.
STREAM_LIMIT = 256 * 2**20
#: Memory goal of the code path: a fixed buffer plus O(q r), independent of n.
MEMORY_LIMIT = 2**20


def make_codes(n: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Group codes, y_true, y_pred (int8) and cell codes (int8) for n people, drawn in chunks."""
    rng = np.random.default_rng(seed)
    group = np.empty(n, np.int8)
    y_true = np.empty(n, np.int8)
    y_pred = np.empty(n, np.int8)
    cum = np.cumsum(GROUP_SHARES)
    cum[-1] = 1.0
    step = 10_000_000
    for start in range(0, n, step):
        m = min(step, n - start)
        g = np.searchsorted(cum, rng.random(m), side="right").astype(np.int8)
        t = rng.random(m) < BASE_RATE[g]
        p = rng.random(m) < np.where(t, TPR[g], FPR[g])
        group[start : start + m], y_true[start : start + m], y_pred[start : start + m] = g, t, p
    return group, y_true, y_pred, ContingencyTable.binary_cell_codes(y_true, y_pred=y_pred)


def ours(group: np.ndarray, cells: np.ndarray):
    table = ContingencyTable.from_codes(group, cells, groups=GROUPS, group="race_sex")
    return equal_confusion_test(table)


def peer(group: np.ndarray, cells: np.ndarray):
    from scipy.stats import chi2_contingency

    table = pd.crosstab(group, cells)
    return table, chi2_contingency(table.to_numpy(), correction=False)


def floor_count_only(combined: np.ndarray, size: int) -> np.ndarray:
    return np.bincount(combined, minlength=size)


def time_count_only(group: np.ndarray, cells: np.ndarray, r: int, size: int) -> tuple[float, np.ndarray]:
    """Best of 5 of the counting-only floor; the combined intp code (8 bytes a row) is freed after."""
    combined = group.astype(np.intp) * r + cells
    seconds, counts, _ = best_time(lambda: floor_count_only(combined, size), repeat=5)
    return seconds, counts


def floor_one_liner(group: np.ndarray, cells: np.ndarray, r: int) -> np.ndarray:
    return np.bincount(group.astype(np.intp) * r + cells, minlength=len(GROUPS) * r)


def write_parquet(path: Path, group: np.ndarray, y_true: np.ndarray, y_pred: np.ndarray) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    step = 1 << 20
    schema = pa.schema(
        [("race_sex", pa.dictionary(pa.int8(), pa.string())), ("y_true", pa.int8()), ("y_pred", pa.int8())]
    )
    dictionary = pa.array(GROUPS)
    with pq.ParquetWriter(path, schema, compression="zstd") as writer:
        for start in range(0, group.size, step):
            sl = slice(start, start + step)
            batch = pa.record_batch(
                [pa.DictionaryArray.from_arrays(group[sl], dictionary), y_true[sl], y_pred[sl]], schema=schema
            )
            writer.write_batch(batch, row_group_size=step)


STREAM_SCRIPT = textwrap.dedent(
    """
    import json, sys, time
    import duckdb, narwhals, pyarrow.parquet  # imported before measuring (the library imports them lazily)
    from fairstats import ContingencyTable, equal_confusion_test

    def status(key):
        with open("/proc/self/status") as handle:
            for line in handle:
                if line.startswith(key + ":"):
                    return int(line.split()[1]) * 1024

    path, batch = sys.argv[1], int(sys.argv[2])
    times, extra, reads = [], [], []
    for _ in range(2):
        start = time.perf_counter()  # the floor: reading the same batches, no counting
        for _batch in pyarrow.parquet.ParquetFile(path).iter_batches(
            batch_size=batch, columns=["race_sex", "y_true", "y_pred"]
        ):
            pass
        reads.append(time.perf_counter() - start)
        with open("/proc/self/clear_refs", "w") as handle:
            handle.write("5")  # reset the peak resident set size (VmHWM) to the current one
        base = status("VmRSS")
        start = time.perf_counter()
        table = ContingencyTable.from_parquet(path, group="race_sex", y_true="y_true", y_pred="y_pred")
        res = equal_confusion_test(table)
        times.append(time.perf_counter() - start)
        extra.append(status("VmHWM") - base)
    print(json.dumps({"times": times, "reads": reads, "peak_rss_beyond_baseline": extra,
                      "statistic": res.statistic,
                      "observed": res.observed.to_numpy().tolist(), "groups": list(res.observed.index),
                      "cells": list(res.observed.columns)}))
    """
)


def stream(path: Path, batch: int) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", STREAM_SCRIPT, str(path), str(batch)],
        check=True,
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    cli = parser(NAME, __doc__.splitlines()[0])
    cli.add_argument("--n", type=float, default=1e8, help="rows (default 1e8)")
    cli.add_argument("--peer-n", type=float, default=None, help="rows for the peer (default: n if it fits)")
    args = cli.parse_args()
    n = 1_000_000 if args.quick else int(args.n)
    seed = config_seed()
    q, r = len(GROUPS), 4
    group, y_true, y_pred, cells = make_codes(n, seed)
    input_bytes = group.nbytes + cells.nbytes
    print(f"equal confusion: {n:,} rows, {q} groups x {r} cells, input {input_bytes / 2**20:.0f} MiB")
    b = "equal_confusion"
    details = [detail(b, "rows", n, "rows"), detail(b, "input_bytes", input_bytes, "bytes")]

    # ours and the floors, side by side
    ours_s, result, ours_times = best_time(lambda: ours(group, cells), repeat=5)
    ours_peak, _ = traced_peak(lambda: ours(group, cells))
    one_liner_s, counts_one_liner, _ = best_time(lambda: floor_one_liner(group, cells, r), repeat=3)
    one_liner_peak, _ = traced_peak(lambda: floor_one_liner(group, cells, r))
    count_s, counts_floor = time_count_only(group, cells, r, q * r)
    ours_counts = result.observed.to_numpy().ravel()
    same_floor = np.array_equal(ours_counts, counts_floor) and np.array_equal(ours_counts, counts_one_liner)
    details += [
        detail(b, "ours_times", [round(t, 6) for t in ours_times], "s"),
        detail(b, "ours_peak_traced_beyond_input", ours_peak, "bytes"),
        detail(b, "one_liner_floor_peak_traced", one_liner_peak, "bytes"),
        detail(b, "ours_equals_floor_counts", same_floor),
        detail(b, "statistic", result.statistic),
        detail(b, "cramers_v", result.cramers_v),
    ]

    # the peer, on all rows when it fits in the available memory (else fewer rows, said explicitly)
    available = mem_available_bytes() or 0
    peer_n = int(args.peer_n) if args.peer_n else n
    while peer_n > 1_000_000 and PEER_BYTES_PER_ROW * peer_n + HEADROOM > available:
        peer_n //= 10
    details += [
        detail(b, "mem_available_at_peer", available, "bytes"),
        detail(b, "peer_rows", peer_n, "rows"),
    ]
    g_peer, c_peer = group[:peer_n], cells[:peer_n]
    peer_s, (peer_table, peer_chi2), _ = best_time(lambda: peer(g_peer, c_peer), repeat=1)
    peer_peak, _ = traced_peak(lambda: peer(g_peer, c_peer))
    if peer_n == n:
        ours_at_peer_s, ours_at_peer = ours_s, result
    else:
        ours_at_peer_s, ours_at_peer, _ = best_time(lambda: ours(g_peer, c_peer), repeat=5)
    same_peer = bool(
        np.array_equal(peer_table.to_numpy(), ours_at_peer.observed.to_numpy())
        and np.isclose(peer_chi2.statistic, ours_at_peer.statistic, rtol=1e-9)
    )
    details += [
        detail(b, "peer_peak_traced", peer_peak, "bytes"),
        detail(b, "peer_equals_ours", same_peer),
    ]

    # streaming over a parquet file in row groups
    batch = 1 << 20
    with tempfile.TemporaryDirectory(prefix="fairstats-bench-") as tmp:
        path = Path(tmp) / "people.parquet"
        write_s, _, _ = best_time(lambda: write_parquet(path, group, y_true, y_pred), repeat=1)
        file_bytes = path.stat().st_size
        streamed = stream(path, batch)
    stream_s = min(streamed["times"])
    stream_extra = max(streamed["peak_rss_beyond_baseline"])
    same_stream = bool(
        np.array_equal(np.asarray(streamed["observed"]), result.observed.to_numpy())
        and streamed["groups"] == list(result.observed.index)
        and streamed["cells"] == list(result.observed.columns)
    )
    details += [
        detail(b, "parquet_bytes", file_bytes, "bytes"),
        detail(b, "parquet_write_s", write_s, "s"),
        detail(b, "stream_batch_rows", batch, "rows"),
        detail(b, "stream_times", [round(t, 6) for t in streamed["times"]], "s"),
        detail(b, "stream_read_only_times", [round(t, 6) for t in streamed["reads"]], "s"),
        detail(b, "stream_peak_rss_beyond_baseline_per_run", streamed["peak_rss_beyond_baseline"], "bytes"),
        detail(b, "stream_peak_rss_beyond_baseline", stream_extra, "bytes"),
        detail(b, "stream_equals_in_memory", same_stream),
    ]

    peer_what = "pandas.crosstab + scipy chi2_contingency"
    if peer_n != n:
        need = PEER_BYTES_PER_ROW * n / 2**30
        peer_what += f" (peer and ours at {peer_n:.0e} rows: the peer at {n:.0e} needs ~{need:.0f} GiB)"
    size = f"{n:.0e} rows"
    rows = [
        row(
            f"equal confusion: codes, {size}",
            ours_s=ours_at_peer_s,
            reference=peer_what,
            reference_s=peer_s,
            floor=False,
            goal=">= 10x faster than the peer, same table",
            met=peer_s / ours_at_peer_s >= 10 and same_peer,
        ),
        row(
            f"equal confusion: codes, {size}",
            ours_s=ours_s,
            reference="floor: one np.bincount over the combined intp code (counting only)",
            reference_s=count_s,
            floor=True,
            goal=f"<= 2x the floor; memory beyond input <= {MEMORY_LIMIT // 2**10} KiB, independent of n",
            met=ours_s / count_s <= 2 and ours_peak <= MEMORY_LIMIT and same_floor,
        ),
        row(
            f"equal confusion: codes, {size}",
            ours_s=ours_s,
            reference="floor: np.bincount(group.astype(intp) * r + cell) one-liner",
            reference_s=one_liner_s,
            floor=True,
            goal="<= 2x the floor",
            met=ours_s / one_liner_s <= 2 and same_floor,
        ),
        row(
            f"equal confusion: parquet counted by DuckDB, {size}",
            ours_s=stream_s,
            reference=f"floor: reading the file's record batches ({batch:,} rows) with pyarrow, no counting",
            reference_s=min(streamed["reads"]),
            floor=True,
            goal=f"same table as in memory; peak RSS beyond baseline <= {STREAM_LIMIT // 2**20} MiB",
            met=same_stream and stream_extra <= STREAM_LIMIT,
        ),
    ]
    emit(args.json, rows, details)
    print(
        f"memory beyond input: ours {ours_peak / 2**10:.0f} KiB, one-liner {one_liner_peak / 2**20:.0f} MiB, "
        f"peer {peer_peak / 2**20:.0f} MiB at {peer_n:,} rows; streaming {stream_extra / 2**20:.0f} MiB RSS "
        f"for a {file_bytes / 2**20:.0f} MiB file"
    )


if __name__ == "__main__":
    main()
