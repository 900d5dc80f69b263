"""``make bench``: run the benchmarks, print the comparisons, write ``results/bench/``.

Each ``bench/bench_<name>.py`` runs in its own process (so that one benchmark's memory does not weigh on the
next) and writes ``results/bench/<name>.json`` (see ``bench/_common.py``). This harness then writes

``results/bench/summary.csv`` (+ ``summary.md``)
    one row per comparison: ``benchmark, ours_s, reference, reference_s, ratio, goal, met``; ``ratio`` is
    reference time / our time, or our time / floor time for a floor comparison, as ``goal`` says;
``results/bench/details.csv``
    ``benchmark, measure, value, unit``: sizes, memory, repeats, equality checks behind each row;
``results/bench/environment.txt``
    machine (CPU, cores, memory), versions, commit, and the load average when each benchmark ran.

Usage::

    python bench/run.py                       # everything (heavy: ~10 min on 2 cores)
    python bench/run.py --only battery        # re-run one benchmark, keep the others' last results
    python bench/run.py --collect             # rebuild the summary from the saved JSON files
    python bench/run.py --quick               # small sizes, into a temporary folder: does it all run?

A comparison that could not be measured appears in the summary with ``met = False`` and says why; a
benchmark script that fails makes the harness exit with status 1 after writing the rest.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _common import RESULTS, ROOT, SUMMARY_COLUMNS, environment  # noqa: E402

#: Benchmarks in summary order: name -> script (the issue's four comparisons).
BENCHMARKS: dict[str, str] = {
    "battery": "bench_battery.py",
    "equal_confusion": "bench_equal_confusion.py",
    "awareness": "bench_awareness.py",
    "training": "bench_training.py",
    "cores": "bench_cores.py",
    "import": "bench_import.py",
    "audit_scale": "bench_audit_scale.py",
    "subgroup_search": "bench_search.py",
    "monitor": "bench_monitor.py",
    "score_scale": "bench_score_scale.py",
    "csv_audit": "bench_csv_audit.py",
    "fixed_cost": "bench_fixed_cost.py",
}
#: Comparisons the issue asks of a benchmark, as (word that must appear in a row's goal, row if missing).
EXPECTED: dict[str, list[tuple[str, str, str]]] = {
    "training": [
        ("bare", "training: pipeline vs bare fits", "pipeline <= 1.10x the bare fits (overhead < 10 %)"),
    ],
    "cores": [("speed-up", "training: --cores 2 vs --cores 1", "speed-up >= 1.7")],
    "audit_scale": [
        ("4x", "audit: parquet 2x10^7 rows vs 2x10^5 rows", "<= 4x the time, peak RSS < 1.5 GiB"),
        ("5x", "audit: 2,000 groups of 10 vs 10 groups of 2,000", "<= 5x the time"),
    ],
    "monitor": [
        ("constant", "monitor: update of the last 100 vs the first 100 of 1,000 batches of 10,000",
         "<= 1.5x (constant cost per update)"),
    ],
    "score_scale": [
        ("2x", "score audit from parquet: 10^7 rows vs 10^5 rows", "time per row <= 2x, peak RSS <= 2 GiB"),
    ],
    "csv_audit": [
        ("3x", "audit: CSV 10^6 rows vs pyarrow's read + the fixed cost",
         "<= 1x (the time within 3x the read plus the fixed cost), memory <= 3x the file"),
    ],
    "fixed_cost": [
        ("0.3x", "audit in memory: COMPAS violent vs fairlearn MetricFrame",
         "<= 0.3x fairlearn, same group rates"),
        ("1x the import", "Audit.save(folder) vs the import floor", "<= 1x the import floor"),
        ("2x the import", "fairstats audit (whole process) vs the import floor", "<= 2x the import floor"),
        ("1.5x", "fairstats audit: 10^6 rows vs 4,020 rows",
         "<= 1.5x the time, peak RSS <= 1.25x (flat in rows)"),
        ("refused", "fairstats audit --group pair: 50,000 groups of 2 people",
         "refused with one line naming the column and its groups, or audited; <= 3x the 4,020 rows"),
    ],
}


def run_one(name: str, out: Path, *, quick: bool) -> tuple[int, float]:
    script = HERE / BENCHMARKS[name]
    if not script.is_file():
        return -1, 0.0
    cmd = [sys.executable, str(script), "--json", str(out / f"{name}.json"), *(["--quick"] if quick else [])]
    print(f"\n=== {name}: {' '.join(cmd[1:])}", flush=True)
    start = time.perf_counter()
    rc = subprocess.run(cmd, cwd=ROOT).returncode
    return rc, time.perf_counter() - start


def placeholder(benchmark: str, reason: str, goal: str = "") -> dict[str, object]:
    return {
        "benchmark": benchmark,
        "ours_s": math.nan,
        "reference": f"not measured: {reason}",
        "reference_s": math.nan,
        "ratio": math.nan,
        "goal": goal,
        "met": False,
    }


def collect(out: Path, status: dict[str, str]) -> tuple[pd.DataFrame, pd.DataFrame, dict[str, dict]]:
    rows, details, environments = [], [], {}
    for name in BENCHMARKS:
        path = out / f"{name}.json"
        if not path.is_file():
            rows.append(placeholder(name, status.get(name, "not run (no results yet)")))
            continue
        payload = json.loads(path.read_text(encoding="utf-8"))
        these = payload.get("rows", [])
        if name in status:  # this run failed: say so beside the last good numbers
            rows.append(placeholder(name, status[name]))
        rows.extend(these)
        for word, benchmark, goal in EXPECTED.get(name, []):
            if not any(word in str(r.get("goal", "")) for r in these):
                rows.append(placeholder(benchmark, f"{BENCHMARKS[name]} does not report it", goal))
        for d in payload.get("details", []):
            value = d.get("value")
            if isinstance(value, list | dict):
                value = json.dumps(value)
            details.append({**d, "value": value})
        environments[name] = payload.get("environment", {})
    summary = pd.DataFrame(rows, columns=SUMMARY_COLUMNS)
    summary["met"] = summary["met"].astype(bool)
    return summary, pd.DataFrame(details, columns=["benchmark", "measure", "value", "unit"]), environments


def environment_text(environments: dict[str, dict]) -> str:
    now = environment()
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    dirty = subprocess.run(
        ["git", "status", "--porcelain", "--", "src", "bench"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    memory = now.get("memory_bytes")
    lines = [
        "# Machine and software the benchmarks ran on (bench/run.py)",
        f"platform: {now['platform']}",
        f"cpu: {now['cpu']}",
        f"cores: {now['cores_logical']} logical, {now['cores_usable']} usable by this process "
        "(shared with other users: timings are best-of-n, ratios measured side by side)",
        f"memory: {memory / 2**30:.1f} GiB" if memory else "memory: unknown",
        f"commit: {commit}" + (" (src/ or bench/ with uncommitted changes)" if dirty else ""),
        "versions: " + ", ".join(f"{k} {v}" for k, v in now["versions"].items()),
        "",
        "# Load average (1, 5, 15 min) when each benchmark wrote its results",
    ]
    for name, env in environments.items():
        load = env.get("load_average_1_5_15")
        shown = ", ".join(f"{x:.2f}" for x in load) if load else "unknown"
        lines.append(f"{name}: {shown}")
    return "\n".join(lines) + "\n"


def show(summary: pd.DataFrame) -> str:
    def fmt(v: object) -> str:
        if isinstance(v, float):
            return "" if math.isnan(v) else f"{v:.3f}"
        return str(v)

    lines = []
    for r in summary.itertuples(index=False):
        verdict = "met" if r.met else "MISSED"
        lines.append(
            f"{r.benchmark}\n    ours {fmt(r.ours_s)} s | {r.reference}: {fmt(r.reference_s)} s"
            f" | ratio {fmt(r.ratio)} | goal: {r.goal} -> {verdict}"
        )
    return "\n".join(lines)


def main() -> int:
    cli = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    cli.add_argument("--only", default="", help=f"comma-separated subset of {', '.join(BENCHMARKS)}")
    cli.add_argument("--skip", default="", help="comma-separated benchmarks not to run")
    cli.add_argument("--collect", action="store_true", help="run nothing; rebuild the summary")
    cli.add_argument("--quick", action="store_true", help="small sizes, results into a temporary folder")
    cli.add_argument("--out", type=Path, default=None, help="results folder (default results/bench)")
    args = cli.parse_args()
    names = [n for n in (args.only.split(",") if args.only else BENCHMARKS) if n]
    skip = {n for n in args.skip.split(",") if n}
    unknown = sorted((set(names) | skip) - set(BENCHMARKS))
    if unknown:
        cli.error(f"unknown benchmark(s) {unknown}; choose from {list(BENCHMARKS)}")
    out = args.out or (Path(tempfile.mkdtemp(prefix="fairstats-bench-quick-")) if args.quick else RESULTS)
    out.mkdir(parents=True, exist_ok=True)

    status: dict[str, str] = {}
    failed = False
    if not args.collect:
        for name in names:
            if name in skip:
                continue
            rc, seconds = run_one(name, out, quick=args.quick)
            if rc == -1:
                status[name] = f"bench/{BENCHMARKS[name]} does not exist"
            elif rc != 0:
                status[name] = f"bench/{BENCHMARKS[name]} failed with exit status {rc} in this run"
                failed = True
            else:
                print(f"=== {name}: done in {seconds:.0f} s", flush=True)

    summary, details, environments = collect(out, status)
    from compendium.publish.reporting import atomic_write_text, write_table

    write_table(summary, out / "summary.csv", digits=3, title="Benchmarks (make bench)")
    write_table(details, out / "details.csv", markdown=False)
    atomic_write_text(out / "environment.txt", environment_text(environments))
    print("\n" + show(summary))
    print(f"\nwritten: {out / 'summary.csv'}, details.csv, environment.txt")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
