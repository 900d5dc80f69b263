"""Shared helpers of the benchmarks: timing, memory, the config seed, and the rows each benchmark reports.

Every ``bench/bench_<name>.py`` is a script that measures its comparisons side by side in one process and
ends with :func:`emit`: one JSON file (``--json PATH``, default ``results/bench/<name>.json``) holding

``rows``
    one per comparison, with the summary columns :data:`SUMMARY_COLUMNS` (``ratio`` = reference time / our
    time, or our time / floor time for a floor comparison, as ``goal`` states; ``met`` true/false);
``details``
    tidy ``benchmark, measure, value, unit`` records (sizes, memory, repeats, equality checks);
``environment``
    what was measured on (filled by :func:`environment`).

``bench/run.py`` runs the scripts and assembles ``results/bench/summary.csv``. Timings are the best of
``repeat`` runs (``time.perf_counter``), the usual way to read a noisy shared machine.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "results" / "bench"
SUMMARY_COLUMNS = ["benchmark", "ours_s", "reference", "reference_s", "ratio", "goal", "met"]


def config_seed() -> int:
    """The master seed of ``config/config.yaml`` (every random choice of a benchmark derives from it)."""
    import yaml

    with open(ROOT / "config" / "config.yaml", encoding="utf-8") as handle:
        return int(yaml.safe_load(handle)["seed"])


def best_time(fn: Callable[[], object], *, repeat: int) -> tuple[float, object, list[float]]:
    """Best wall time of ``repeat`` calls of ``fn``, the last call's result, and every time."""
    times = []
    result = None
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return min(times), result, times


def traced_peak(fn: Callable[[], object]) -> tuple[int, object]:
    """Peak bytes allocated by ``fn`` through Python's and numpy's allocators (``tracemalloc``), beyond
    what was allocated before the call, and its result. Arrow's own memory pool is not traced: see
    :func:`arrow_peak`."""
    gc.collect()
    tracemalloc.start()
    try:
        before, _ = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        result = fn()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return max(peak - before, 0), result


def arrow_peak(fn: Callable[[], object]) -> tuple[int, object]:
    """Peak bytes of pyarrow's default memory pool during ``fn`` (a fresh pool peak is not available, so
    the pool must be empty before the call; returns the pool's max since process start otherwise)."""
    import pyarrow as pa

    pool = pa.default_memory_pool()
    base = pool.bytes_allocated()
    result = fn()
    return max(pool.max_memory() - base, 0), result


def rss_peak_bytes() -> int:
    """Peak resident set size of this process so far (``ru_maxrss``)."""
    import resource

    scale = 1 if sys.platform == "darwin" else 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale


def mem_available_bytes() -> int | None:
    """``MemAvailable`` of ``/proc/meminfo`` (None where there is none)."""
    try:
        with open("/proc/meminfo", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def row(
    benchmark: str,
    *,
    ours_s: float,
    reference: str,
    reference_s: float,
    floor: bool,
    goal: str,
    met: bool,
) -> dict[str, object]:
    """One summary row; ``ratio`` = reference / ours, or ours / floor when ``floor``."""
    ratio = ours_s / reference_s if floor else reference_s / ours_s
    return {
        "benchmark": benchmark,
        "ours_s": float(ours_s),
        "reference": reference,
        "reference_s": float(reference_s),
        "ratio": float(ratio),
        "goal": goal,
        "met": bool(met),
    }


def detail(benchmark: str, measure: str, value: object, unit: str = "") -> dict[str, object]:
    return {"benchmark": benchmark, "measure": measure, "value": value, "unit": unit}


def environment() -> dict[str, object]:
    """Machine and versions the numbers were measured on."""
    import numpy
    import pandas
    import pyarrow
    import scipy

    versions = {"python": platform.python_version(), "numpy": numpy.__version__, "pandas": pandas.__version__}
    versions |= {"scipy": scipy.__version__, "pyarrow": pyarrow.__version__}
    for name in ("fairlearn", "sklearn", "statsmodels", "xgboost", "fairstats"):
        try:
            versions[name] = __import__(name).__version__
        except ImportError:
            versions[name] = "not installed"
    cpu = platform.processor() or ""
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as handle:
            for line in handle:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    memory = None
    try:
        memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        pass
    return {
        "platform": platform.platform(),
        "cpu": cpu,
        "cores_logical": os.cpu_count(),
        "cores_usable": usable,
        "memory_bytes": memory,
        "load_average_1_5_15": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
        "versions": versions,
    }


def parser(name: str, description: str) -> argparse.ArgumentParser:
    cli = argparse.ArgumentParser(prog=f"bench_{name}.py", description=description)
    cli.add_argument(
        "--json", type=Path, default=RESULTS / f"{name}.json", help="where to write the rows (JSON)"
    )
    cli.add_argument("--quick", action="store_true", help="small sizes: check that the script runs")
    return cli


def emit(path: Path, rows: list[dict], details: list[dict]) -> None:
    """Write the benchmark's rows, details and environment to ``path`` (JSON, atomically) and print rows."""
    from compendium.publish.reporting import atomic_write_text

    payload = {"rows": rows, "details": details, "environment": environment()}
    atomic_write_text(path, json.dumps(payload, indent=2, default=float) + "\n")
    for r in rows:
        status = "met" if r["met"] else "MISSED"
        print(
            f"{r['benchmark']}: ours {r['ours_s']:.3f} s, {r['reference']} {r['reference_s']:.3f} s, "
            f"ratio {r['ratio']:.2f} ({r['goal']}: {status})"
        )
