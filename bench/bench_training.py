"""Training stage: the workflow's wall time vs the bare fit + predict calls of the same models and folds.

Ours: ``snakemake --cores 1`` running ``train_fold_chunk`` (one job per preset x model, the sample of test
folds as one chunk, like one chunk of a real run) and ``gather_predictions``, in a copy of the working tree,
after the NIJ table has been built (not timed). Reference (the floor): in one Python process, for the same
presets, models and folds, the sum of the bare estimator calls the pipeline makes -- ``fit`` on the 249 other
folds, then ``predict_proba`` and ``predict`` on the test fold and on its race-flipped copy -- each timed
alone with ``time.perf_counter`` and one BLAS thread, as in the pipeline. Everything else (Snakemake's
scheduling, Python start-up and imports, reading the table, building the design matrix, slicing rows, writing
and gathering parquet, the progress bar) is the pipeline's overhead.

Sample: ``--folds`` test folds spread evenly over the 250 (default: ``nij.chunk_size`` of the config, i.e. one
full chunk per model, so the per-job start-up weighs as much as in a real run).

Goal (issue 4 / 7): overhead under 10 %, i.e. pipeline / bare <= 1.10.

Both wall time and CPU time (``time.process_time`` for the bare calls; ``getrusage(RUSAGE_CHILDREN)`` for
Snakemake and its jobs) are measured: on a machine shared with other work the wall times of the two sides,
taken one after the other, see different loads, while CPU time does not.

Writes ``results/bench/training.json`` (rows, details, environment; see ``_common.py``) and
``results/bench/training.csv`` (per preset and model: folds, bare seconds, the job's seconds from Snakemake's
``benchmark:`` file; the ``all`` row: totals and the whole stage; overheads as fractions).
"""

from __future__ import annotations

import functools
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import ROOT, detail, emit, parser, row  # noqa: E402

sys.path.insert(0, str(ROOT / "tests" / "workflow"))
import tiny_workflow as tw  # noqa: E402

NAME = "training"
EXPERIMENT = "benchtraining"
GOAL = 1.10


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def snakemake(cwd: Path, targets: list[str], *, cores: int) -> tuple[float, float]:
    """Run Snakemake on ``targets``; return its wall time and the CPU time of it and its jobs (s)."""
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    cmd = [
        sys.executable,
        "-m",
        "snakemake",
        *targets,
        "--cores",
        str(cores),
        "--configfile",
        "config/bench.yaml",
    ]
    cpu_start, start = _children_cpu(), time.perf_counter()
    res = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    wall, cpu = time.perf_counter() - start, _children_cpu() - cpu_start
    if res.returncode != 0:
        sys.exit(f"snakemake failed:\n{res.stdout[-3000:]}\n{res.stderr[-3000:]}")
    return wall, cpu


def bare_times(table: pd.DataFrame, *, presets, models, folds, seed: int) -> pd.DataFrame:
    """Wall and CPU seconds of the bare fit + predict calls per (preset, model, fold)."""
    from sklearn.base import clone
    from threadpoolctl import threadpool_limits

    from compendium.data.nij import design_matrix, flip_race
    from compendium.paper_b.crossval import training_rows
    from compendium.paper_b.models import PRESET_FEATURES, make_model

    records = []
    for preset in presets:
        features = PRESET_FEATURES[preset]
        dm = design_matrix(table, features=features)
        fold = dm.fold.to_numpy(dtype=np.int64)
        flip = functools.partial(flip_race, features=features)
        for name in models:
            model = make_model(name, preset=preset, seed=seed)
            for t in folds:
                train = training_rows(fold, t)
                X_train, y_train = dm.X.iloc[train], dm.y_true.to_numpy()[train]
                X_test = dm.X[fold == t]
                X_flip = flip(X_test)
                fitted = clone(model)
                with threadpool_limits(limits=1), warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # the paper LR's ConvergenceWarning, once per fold
                    cpu_start, start = time.process_time(), time.perf_counter()
                    fitted.fit(X_train, y_train)
                    fitted.predict_proba(X_test)
                    fitted.predict(X_test)
                    fitted.predict_proba(X_flip)
                    fitted.predict(X_flip)
                    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu_start
                records.append(
                    {"preset": preset, "model": name, "fold": int(t), "seconds": seconds, "cpu_s": cpu}
                )
    return pd.DataFrame(records)


def main() -> None:
    cli = parser(NAME, __doc__.splitlines()[0])
    cli.add_argument("--folds", type=int, default=None, help="test folds in the sample (default: chunk_size)")
    cli.add_argument("--presets", nargs="+", default=["paper"], choices=["paper", "clean"])
    cli.add_argument(
        "--models", nargs="+", default=["lr", "lda", "rf", "xgb"], choices=["lr", "lda", "rf", "xgb"]
    )
    cli.add_argument(
        "--csv", type=Path, default=None, help="per-model table (CSV; default: beside --json, .csv)"
    )
    cli.add_argument("--keep", action="store_true", help="keep the working copy (printed) for inspection")
    args = cli.parse_args()
    args.csv = args.csv or args.json.with_suffix(".csv")
    config = yaml.safe_load((ROOT / "config/config.yaml").read_text())
    n_folds = args.folds or (2 if args.quick else config["nij"]["chunk_size"])
    models = ["lda", "xgb"] if args.quick else args.models
    folds = sorted({int(round(x)) for x in np.linspace(0, 249, n_folds)})
    seed = int(config["seed"])

    work = Path(tempfile.mkdtemp(prefix="bench_training_"))
    try:
        tw.copy_clone(work)
        bench_config = dict(config, experiment=EXPERIMENT)
        bench_config["nij"] = dict(
            config["nij"], presets=args.presets, models=models, test_folds=folds, chunk_size=len(folds)
        )
        (work / "config/bench.yaml").write_text(yaml.safe_dump(bench_config, sort_keys=False))
        table_path = f"data/interim/{EXPERIMENT}/nij/table.parquet"
        snakemake(work, [table_path], cores=1)  # the data stage: not part of the training stage
        targets = [f"results/{EXPERIMENT}/nij/{p}/predictions/predictions.parquet" for p in args.presets]
        print(
            f"training stage: {len(args.presets)} preset(s) x {len(models)} models x {len(folds)} folds ..."
        )
        pipeline_s, pipeline_cpu = snakemake(work, targets, cores=1)
        jobs = []
        for p in args.presets:
            for m in models:
                tsv = work / f"results/{EXPERIMENT}/benchmarks/nij/{p}/train_fold_chunk/{m}_000.tsv"
                job = pd.read_csv(tsv, sep="\t").iloc[0]
                jobs.append(
                    {"preset": p, "model": m, "job_s": float(job["s"]), "job_cpu_s": float(job["cpu_time"])}
                )
        print("bare fit + predict calls ...")
        table = pd.read_parquet(work / table_path)
        bare = bare_times(table, presets=args.presets, models=models, folds=folds, seed=seed)
    finally:
        if args.keep:
            print(f"working copy kept: {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)

    per_model = (
        bare.groupby(["preset", "model"], sort=False)
        .agg(n_folds=("fold", "size"), bare_s=("seconds", "sum"), bare_cpu_s=("cpu_s", "sum"))
        .reset_index()
        .merge(pd.DataFrame(jobs), on=["preset", "model"])
    )
    bare_s, bare_cpu = float(bare["seconds"].sum()), float(bare["cpu_s"].sum())
    total = {"preset": "all", "model": "all", "n_folds": len(folds), "bare_s": bare_s, "bare_cpu_s": bare_cpu}
    total |= {"job_s": float(per_model["job_s"].sum()), "job_cpu_s": float(per_model["job_cpu_s"].sum())}
    total |= {"pipeline_s": pipeline_s, "pipeline_cpu_s": pipeline_cpu}
    table_out = pd.concat([per_model, pd.DataFrame([total])], ignore_index=True)
    table_out["overhead_wall"] = table_out["pipeline_s"].fillna(table_out["job_s"]) / table_out["bare_s"] - 1
    table_out["overhead_cpu"] = (
        table_out["pipeline_cpu_s"].fillna(table_out["job_cpu_s"]) / table_out["bare_cpu_s"] - 1
    )

    from compendium.publish.reporting import write_table

    write_table(
        table_out,
        args.csv,
        digits=3,
        title="Training stage vs bare fit + predict, one core (per model: the job; all: the whole stage)",
    )
    goal = f"pipeline <= {GOAL:.2f}x the bare fits (overhead < 10 %)"
    rows = [
        row(
            NAME,
            ours_s=pipeline_s,
            reference="bare fit+predict (wall)",
            reference_s=bare_s,
            floor=True,
            goal=goal,
            met=pipeline_s / bare_s <= GOAL,
        ),
        row(
            f"{NAME}_cpu",
            ours_s=pipeline_cpu,
            reference="bare fit+predict (CPU time)",
            reference_s=bare_cpu,
            floor=True,
            goal=goal + "; CPU time, insensitive to other users' load",
            met=pipeline_cpu / bare_cpu <= GOAL,
        ),
    ]
    details = [
        detail(NAME, "test_folds", folds),
        detail(NAME, "presets", args.presets),
        detail(NAME, "models", models),
        detail(NAME, "cores", 1),
        detail(NAME, "overhead_wall", pipeline_s / bare_s - 1, "fraction"),
        detail(NAME, "overhead_cpu", pipeline_cpu / bare_cpu - 1, "fraction"),
    ]
    details += [
        detail(
            NAME,
            f"{r.preset}/{r.model}",
            {"bare_s": r.bare_s, "job_s": r.job_s, "bare_cpu_s": r.bare_cpu_s, "job_cpu_s": r.job_cpu_s},
            "s",
        )
        for r in per_model.itertuples()
    ]
    print(table_out.to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    emit(args.json, rows, details)


if __name__ == "__main__":
    main()
