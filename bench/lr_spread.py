"""How far the paper preset's logistic regression moves with floating-point set-ups on one machine (issue 16).

The paper preset's LR stops at L-BFGS's 100-iteration cap on an unscaled matrix, so where it stops depends
on floating-point details (BLAS kernels and threads). This refits ONLY that model across the 250 folds, each
set-up in its own process (``OPENBLAS_CORETYPE`` must be set before NumPy loads OpenBLAS), with the
compendium's crossval functions, and writes

``results/default/nij/paper/tables/lr_spread.csv`` (+ ``.md``)
    first row ``committed`` (the committed predictions; their machine is not recorded), then one per set-up:
    ``setup, openblas_coretype, threads, openblas_architecture, not_converged, accuracy, n_exact,
    n_predictions_differ, statistic_paper_formula, pvalue_paper_formula, statistic_corrected,
    pvalue_corrected``:
    Table I LR accuracy (mean over folds), folds whose number of correct predictions equals the authors',
    out-of-fold predictions that differ from the committed ones, and Table II (group fairness, LR) as printed
    (paper formula) and corrected (Nadeau & Bengio). The ranges in ``config/verify.yaml`` (``make verify``)
    and the published-vs-reproduced note for LR come from this table.

Usage (heavy: ~3 CPU-minutes per set-up, far more with 2 threads on a loaded machine; run it niced, in the
background)::

    nice -n 10 python bench/lr_spread.py                      # every set-up below
    nice -n 10 python bench/lr_spread.py --setups default-1 haswell-1
    nice -n 10 python bench/lr_spread.py --keep /tmp/lr --resume  # after an interruption: only the rest

Needs ``data/interim/default/nij/table.parquet`` (made by
``snakemake --cores 1 data/interim/default/nij/table.parquet``) and the committed predictions
``results/default/nij/paper/predictions/predictions.parquet``.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
TABLE = ROOT / "data/interim/default/nij/table.parquet"
COMMITTED = ROOT / "results/default/nij/paper/predictions/predictions.parquet"
AUTHORS = (
    ROOT
    / "data/raw/paper-b-authors"
    / ("Fairness Metrics - All Predicted Outcome Binary Metrics from Verma Paper.csv")
)
OUT = ROOT / "results/default/nij/paper/tables/lr_spread.csv"
CONFIG = ROOT / "config/config.yaml"  # its `seed` (the LR has no randomness; kept as the workflow passes it)

#: name -> (OPENBLAS_CORETYPE or None for OpenBLAS's own choice, BLAS threads). The core types are those this
#: AMD EPYC (AVX-512; OpenBLAS's own choice is SkylakeX) can run, from AVX-512 down to SSE3.
SETUPS: dict[str, tuple[str | None, int]] = {
    "default-1": (None, 1),  # what the workflow does (crossval caps BLAS at 1 thread)
    "default-2": (None, 2),
    "haswell-1": ("Haswell", 1),
    "haswell-2": ("Haswell", 2),
    "zen-1": ("Zen", 1),
    "sandybridge-1": ("SandyBridge", 1),
    "prescott-1": ("Prescott", 1),  # generic x86-64 kernels
}


def evaluate(lr: pd.DataFrame) -> dict[str, object]:
    """Table I and Table II numbers of the paper preset's LR predictions ``lr``, and how many of its
    out-of-fold predictions differ from the committed ones."""
    from compendium.paper_b.battery import run_battery
    from compendium.paper_b.fold_accuracy import (
        compare_fold_accuracy,
        fold_accuracy,
        read_authors_fold_accuracy,
    )
    from compendium.paper_b.predictions import read_predictions

    committed = read_predictions(COMMITTED)
    committed = committed[committed["model"].astype(str) == "lr"].reset_index(drop=True)
    if not np.array_equal(committed["ID"].to_numpy(), lr["ID"].to_numpy()):
        raise ValueError(f"{COMMITTED}: the LR rows are not in the refit's order (ID)")
    agreement = compare_fold_accuracy(fold_accuracy(lr), read_authors_fold_accuracy(AUTHORS)).summary
    battery = run_battery(lr, favorable=0, alpha=0.05)
    table_ii = battery[(battery["table"] == "II") & (battery["model"] == "lr")].iloc[0]
    return {
        "accuracy": float(agreement["mean_accuracy"].iloc[0]),
        "n_exact": int(agreement["n_exact"].iloc[0]),
        "n_predictions_differ": int((lr["y_pred"].to_numpy() != committed["y_pred"].to_numpy()).sum()),
        "statistic_paper_formula": float(table_ii["statistic_paper_formula"]),
        "pvalue_paper_formula": float(table_ii["pvalue_paper_formula"]),
        "statistic_corrected": float(table_ii["statistic_corrected"]),
        "pvalue_corrected": float(table_ii["pvalue_corrected"]),
    }


def measure(threads: int, keep: Path | None = None) -> dict[str, object]:
    """Refit the paper preset's LR on all folds with ``threads`` BLAS threads; the row of this set-up.

    With ``keep``, the refit's predictions are also written there (parquet, as the workflow writes them).
    """
    import yaml
    from threadpoolctl import threadpool_info

    from compendium.data.nij import design_matrix, flip_race
    from compendium.paper_b.crossval import assign_folds, fit_predict_folds
    from compendium.paper_b.models import PRESET_FEATURES, make_model
    from compendium.paper_b.predictions import write_predictions

    seed = yaml.safe_load(CONFIG.read_text())["seed"]
    features = PRESET_FEATURES["paper"]
    dm = design_matrix(pd.read_parquet(TABLE), features=features)
    fold = assign_folds(dm.y_true, dm.group, scheme="paper", fold=dm.fold)
    result = fit_predict_folds(
        dm.X,
        dm.y_true,
        fold,
        group=dm.group,
        ID=dm.ID,
        model=make_model("lr", preset="paper", seed=seed),
        name="lr",
        counterfactual=functools.partial(flip_race, features=features),
        favorable=0,
        n_threads=threads,
        progress=False,
    )
    if keep is not None:
        write_predictions(result, keep)
    blas = [i for i in threadpool_info() if i.get("internal_api") == "openblas"]
    return {
        "openblas_architecture": ",".join(sorted({str(i.get("architecture")) for i in blas})),
        "not_converged": len(result.settings["models"]["lr"]["not_converged"]),
        **evaluate(result.predictions),
    }


def committed_row() -> dict[str, object]:
    """The row of the committed run (its machine's set-up is not recorded), from the committed predictions."""
    from compendium.paper_b.predictions import read_predictions

    predictions = read_predictions(COMMITTED)
    lr = predictions[predictions["model"].astype(str) == "lr"].reset_index(drop=True)
    not_converged = predictions.attrs["fairstats"]["models"]["lr"]["not_converged"]
    return {
        "setup": "committed",
        "openblas_coretype": "",
        "threads": predictions.attrs["fairstats"]["n_threads"],
        "openblas_architecture": "",
        "not_converged": len(not_converged),
        **evaluate(lr),
    }


def run_setup(name: str, keep_dir: Path | None = None) -> dict[str, object]:
    """Run :func:`measure` for set-up ``name`` in a fresh interpreter with its environment."""
    coretype, threads = SETUPS[name]
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_CORETYPE"}
    if coretype is not None:
        env["OPENBLAS_CORETYPE"] = coretype
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "row.json"
        keep = [] if keep_dir is None else ["--keep", str(keep_dir / f"lr_{name}.parquet")]
        subprocess.run(
            [sys.executable, __file__, "--worker", str(threads), str(out), *keep],
            env=env,
            check=True,
            cwd=ROOT,
        )
        row = json.loads(out.read_text())
    return {"setup": name, "openblas_coretype": coretype or "", "threads": threads, **row}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--setups", nargs="+", choices=list(SETUPS), default=list(SETUPS))
    parser.add_argument("--out", type=Path, default=OUT, help="CSV to write (a .md rendering beside it)")
    parser.add_argument("--keep", type=Path, help="folder for each set-up's predictions and row")
    parser.add_argument(
        "--resume", action="store_true", help="with --keep: reuse the rows of set-ups already measured there"
    )
    parser.add_argument("--worker", nargs=2, metavar=("THREADS", "JSON"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        row = measure(int(args.worker[0]), keep=args.keep)
        Path(args.worker[1]).write_text(json.dumps(row))
        return 0
    from compendium.publish.reporting import write_table

    rows = [committed_row()]
    for name in args.setups:
        saved = None if args.keep is None else args.keep / f"row_{name}.json"
        if args.resume and saved is not None and saved.is_file():
            rows.append(json.loads(saved.read_text()))  # measured by an earlier, interrupted run
        else:
            rows.append(run_setup(name, args.keep))
            if saved is not None:
                saved.write_text(json.dumps(rows[-1]))
        print(json.dumps(rows[-1]), flush=True)
    frame = pd.DataFrame(rows)
    write_table(
        frame,
        args.out,
        digits=4,
        title="Paper preset, logistic regression: Tables I and II under floating-point set-ups (one machine)",
    )
    print(frame.to_string(index=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
