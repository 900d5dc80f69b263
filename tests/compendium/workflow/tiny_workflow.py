"""A small configuration of the whole workflow, run in a copy of the working tree.

Shared by the reliability tests (``test_kill_resume.py``, ``test_determinism.py``) and the Slurm check
(``tests/cluster/cluster_check.py``). The copy holds what a fresh clone holds (git-tracked and not-ignored
files, without ``results/``), so a run never touches the real ``results/`` or ``data/interim/``.

The configuration is the default one with a different experiment name and a small NIJ part: the ``clean``
preset, two fast models (LR, LDA), two of the paper's 250 test folds in chunks of one (so 2 models x 2
chunks = 4 ``train_fold_chunk`` jobs, each fitting on the other 249 folds), and few permutation and bootstrap
resamples.
"""

from __future__ import annotations

import base64
import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import yaml
from repo_paths import ROOT

EXPERIMENT = "tiny"
CONFIG = "config/tiny.yaml"
#: Files whose bytes must not depend on the run: tables (CSV, Markdown) and data (parquet).
TABLE_SUFFIXES = (".csv", ".md", ".parquet", ".tsv")
#: Folders under results/<experiment>/ that hold run records, not results (times, host names, paths).
RUN_RECORDS = ("logs", "benchmarks")


def tracked_files() -> list[str]:
    """Paths a fresh clone has: git-tracked and untracked-but-not-ignored, minus results/."""
    out = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    return sorted(p for p in out.split("\0") if p and not p.startswith("results/"))


def copy_clone(dest: Path) -> Path:
    """Copy the working tree to ``dest`` as a fresh clone has it (without ``results/``)."""
    dest.mkdir(parents=True, exist_ok=True)
    for rel in tracked_files():
        src = ROOT / rel
        if src.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, dest / rel)
    return dest


def copy_tree(dest: Path) -> Path:
    """:func:`copy_clone` to ``dest`` and write the tiny config there."""
    copy_clone(dest)
    write_config(dest)
    return dest


def tiny_config() -> dict:
    config = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    config["experiment"] = EXPERIMENT
    config["published_vs_reproduced"] = f"results/{EXPERIMENT}/published-vs-reproduced.csv"
    config["compas"]["n_resamples"] = 199
    config["inference"]["n_resamples"] = 199
    config["nij"].update(
        source="paper",
        fold_scheme="paper",
        presets=["clean"],
        models=["lr", "lda"],
        test_folds=[0, 1],
        chunk_size=1,
    )
    return config


def write_config(root: Path) -> Path:
    path = root / CONFIG
    path.write_text(yaml.safe_dump(tiny_config(), sort_keys=False))
    return path


def snakemake_argv(*args: str) -> list[str]:
    return [sys.executable, "-m", "snakemake", "--configfile", CONFIG, *args]


def run_env(**extra: str) -> dict[str, str]:
    """The environment of a workflow run: this interpreter's bin first (papermill, python), agg backend."""
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["MPLBACKEND"] = "Agg"
    env.update(extra)
    return env


def run(root: Path, *args: str, timeout: float = 900, **env: str) -> subprocess.CompletedProcess:
    """Run snakemake in ``root`` with the tiny config; fail the calling test with the log on error."""
    res = subprocess.run(
        snakemake_argv(*args), cwd=root, capture_output=True, text=True, timeout=timeout, env=run_env(**env)
    )
    if res.returncode != 0:
        raise AssertionError(f"snakemake {' '.join(args)} failed in {root}:\n{res.stdout}\n{res.stderr}")
    return res


def chunk_files(root: Path) -> list[Path]:
    """The train_fold_chunk outputs (one parquet file per model x chunk of test folds)."""
    return sorted((root / "data" / "interim" / EXPERIMENT / "nij").glob("*/predictions/chunks/*.parquet"))


def table_files(root: Path, *, suffixes: tuple[str, ...] = TABLE_SUFFIXES) -> list[str]:
    """Relative paths of every table and data file the run wrote (results, interim), run records excluded;
    ``suffixes`` widens it (e.g. to executed notebooks and figures)."""
    out = []
    for base in (root / "results" / EXPERIMENT, root / "data" / "interim" / EXPERIMENT):
        for path in base.rglob("*"):
            rel = path.relative_to(root)
            if path.is_file() and path.suffix in suffixes and not _is_run_record(rel):
                out.append(rel.as_posix())
    return sorted(out)


def _is_run_record(rel: Path) -> bool:
    parts = rel.parts
    return len(parts) > 2 and parts[0] == "results" and parts[2] in RUN_RECORDS


def digests(root: Path, paths: list[str]) -> dict[str, str]:
    return {p: hashlib.sha256((root / p).read_bytes()).hexdigest() for p in paths}


def incomplete_outputs(root: Path) -> set[str]:
    """Outputs Snakemake has marked incomplete: jobs started and not yet recorded as finished.

    Snakemake keeps one marker per output under ``.snakemake/incomplete/``, named by the url-safe base64 of
    the output path (long names split into sub-folders whose names start with ``@``; see
    snakemake/persistence/file.py), created when the job starts and removed once Snakemake has recorded the
    job as finished. An output file that exists without a marker is a finished job's.
    """
    base = root / ".snakemake" / "incomplete"
    if not base.is_dir():
        return set()
    out = set()
    for marker in base.rglob("*"):
        if marker.is_file():
            encoded = "".join(part.removeprefix("@") for part in marker.relative_to(base).parts)
            try:
                out.add(base64.urlsafe_b64decode(encoded).decode())
            except ValueError:
                continue  # not a marker (Snakemake keeps nothing else there today)
    return out


_REFERENCE: dict[tuple[str, ...], Path] = {}


def reference_run(tmp_path_factory, *targets: str) -> Path:
    """An uninterrupted run (``PYTHONHASHSEED=0``) that made ``targets`` (none: the whole workflow).

    Runs are kept for the session: a run of the whole workflow serves any targets, so that the tests of one
    pytest session share it; a failed run is not kept (each test then reports the failure itself).
    """
    for key in ((), targets):
        if key in _REFERENCE:
            return _REFERENCE[key]
    root = copy_tree(tmp_path_factory.mktemp("reference"))
    run(root, "--cores", "2", *targets, PYTHONHASHSEED="0")
    _REFERENCE[targets] = root
    return root
