"""Training stage: ``snakemake --cores 2`` vs ``--cores 1`` on the same fan-out (goal: speed-up >= 1.7).

Each run happens in its own copy of the working tree (as a fresh clone has it;
``tests/compendium/workflow/tiny_workflow``) with the paper preset, random forest and XGBoost, six of the 250
test folds in chunks of one: 12 ``train_fold_chunk`` jobs, each fitting on the other 249 folds. The NIJ table
is built before the clock starts; the timed command is the training and gathering of the predictions.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _common import ROOT, detail, emit, parser, row  # noqa: E402

sys.path.insert(0, str(ROOT / "tests" / "workflow"))
import tiny_workflow as tw  # noqa: E402
import yaml  # noqa: E402


def _prepare(dest: Path, *, folds: list[int]) -> list[str]:
    tw.copy_tree(dest)
    config = tw.tiny_config()
    config["nij"].update(presets=["paper"], models=["rf", "xgb"], test_folds=folds, chunk_size=1)
    (dest / tw.CONFIG).write_text(yaml.safe_dump(config, sort_keys=False))
    res = tw.run(dest, "--cores", "2", f"data/interim/{tw.EXPERIMENT}/nij/table.parquet")
    if res.returncode:
        raise SystemExit(res.stdout + res.stderr)
    return [f"results/{tw.EXPERIMENT}/nij/paper/predictions/predictions.parquet"]


def _timed(dest: Path, targets: list[str], cores: int) -> float:
    start = time.perf_counter()
    res = tw.run(dest, "--cores", str(cores), *targets)
    elapsed = time.perf_counter() - start
    if res.returncode:
        raise SystemExit(res.stdout + res.stderr)
    return elapsed


def main() -> None:
    args = parser("cores", __doc__.splitlines()[0]).parse_args()
    folds = [0, 1] if args.quick else [0, 1, 2, 3, 4, 5]
    times = {}
    with tempfile.TemporaryDirectory(prefix="bench-cores-") as tmp:
        for cores in (1, 2):
            dest = Path(tmp) / f"cores{cores}"
            targets = _prepare(dest, folds=folds)
            times[cores] = _timed(dest, targets, cores)
            shutil.rmtree(dest)
    speedup = times[1] / times[2]
    name = "training: --cores 2 vs --cores 1"
    rows = [
        row(
            name,
            ours_s=times[2],
            reference=f"--cores 1, same {2 * len(folds)} train_fold_chunk jobs (rf, xgb) + gather",
            reference_s=times[1],
            floor=False,
            goal="speed-up >= 1.7",
            met=speedup >= 1.7,
        )
    ]
    details = [detail(name, "jobs", 2 * len(folds)), detail(name, "speed-up", speedup)]
    emit(args.json, rows, details)


if __name__ == "__main__":
    main()
