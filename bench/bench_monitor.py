"""FairnessMonitor: 10^7 decisions in 1,000 batches; update time, last 100 vs first 100 (goal <= 1.5x).

The monitor keeps four counts per comparison, so an update should cost the same after 10^3 or 10^7 decisions.
Each batch (10,000 people in three groups, decisions and outcomes: three rates, two comparisons) is made from
the config seed before its update is timed; only ``update`` is timed. The median of the last 100 updates over
the median of the first 100 is the comparison. Beside it, the command line (``fairstats monitor``) is timed
adding 10 batch files to an empty state and to a state of 990 processed batches (its CSV is appended and its
figure drawn once per run; a detail, no goal). ``--quick``: 100 batches of 1,000, first and last 10.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
from _common import config_seed, detail, emit, parser, row

from fairstats import FairnessMonitor


def batch(rng: np.random.Generator, size: int) -> pd.DataFrame:
    group = rng.choice(np.array(["a", "b", "c"]), size=size, p=[0.5, 0.3, 0.2])
    rate = np.where(group == "c", 0.33, 0.3)
    decision = (rng.random(size) < rate).astype(np.int8)
    outcome = (rng.random(size) < 0.4).astype(np.int8)
    return pd.DataFrame({"g": group, "p": decision, "y": outcome})


def library(n_batches: int, size: int, seed: int) -> list[float]:
    rng = np.random.default_rng(seed)
    monitor = FairnessMonitor(group="g", y_pred="p", y_true="y", reference="a")
    times = []
    for _ in range(n_batches):
        data = batch(rng, size)
        start = time.perf_counter()
        monitor.update(data)
        times.append(time.perf_counter() - start)
    return times


def command_line(n_old: int, n_new: int, size: int, seed: int) -> tuple[float, float]:
    from fairstats.auditing.cli import main as fairstats_main

    def main(argv: list[str]) -> int:
        return fairstats_main(["monitor", *argv])

    rng = np.random.default_rng(seed + 1)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "batches"
        folder.mkdir()
        for i in range(n_old + n_new):
            batch(rng, size).to_csv(folder / f"batch{i:05d}.csv", index=False)
        names = sorted(folder.iterdir())
        args = ["--group", "g", "--y-pred", "p", "--y-true", "y", "--reference", "a"]
        empty = Path(tmp) / "empty"
        start = time.perf_counter()
        main([*map(str, names[n_old:]), *args, "--state", str(empty)])
        fresh = time.perf_counter() - start
        full = Path(tmp) / "full"
        main([*map(str, names[:n_old]), *args, "--state", str(full)])
        start = time.perf_counter()
        main([*map(str, names), *args, "--state", str(full)])
        later = time.perf_counter() - start
    return fresh, later


def main() -> None:
    args = parser("monitor", __doc__.splitlines()[0]).parse_args()
    n_batches, size, k = (100, 1_000, 10) if args.quick else (1_000, 10_000, 100)
    seed = config_seed()
    times = library(n_batches, size, seed)
    first, last = statistics.median(times[:k]), statistics.median(times[-k:])
    name = f"monitor: update of the last {k} vs the first {k} of {n_batches:,} batches of {size:,}"
    rows = [
        row(
            name,
            ours_s=last,
            reference=f"median update time of the first {k} batches",
            reference_s=first,
            floor=True,
            goal="<= 1.5x (constant cost per update)",
            met=last <= 1.5 * first,
        )
    ]
    details = [
        detail(name, "decisions", n_batches * size),
        detail(name, "total update time", sum(times), "s"),
        detail(name, "comparisons x rates per update", 2 * 3),
    ]
    n_old, n_new, cli_size = (90, 10, 200) if args.quick else (990, 10, 1_000)
    fresh, later = command_line(n_old, n_new, cli_size, seed)
    cli = f"fairstats monitor: add {n_new} batch files of {cli_size:,}"
    details += [
        detail(cli, "to an empty state", fresh, "s"),
        detail(cli, f"to a state of {n_old} processed batches", later, "s"),
        detail(cli, "ratio", later / fresh),
    ]
    emit(args.json, rows, details)


if __name__ == "__main__":
    main()
