"""The workflow runs unchanged under Snakemake's Slurm executor and gives the same results as a local run.

Run by ``make test-cluster`` only, after ``.ci/slurm/start.sh`` has started a single-node Slurm on this
machine (root needed, see ``.ci/slurm/``):

    bash .ci/slurm/start.sh && python -m pytest tests/cluster/cluster_check.py; bash .ci/slurm/stop.sh

Plain ``pytest`` (``make test``) does not collect this file: its name does not match ``test_*.py``, and pytest
collects a file of another name only when it is named on the command line, as ``make test-cluster`` does.

The whole workflow on the tiny configuration of the reliability tests
(``tests/compendium/workflow/tiny_workflow.py``:
every stage, with 2 models x 2 chunks of training jobs) runs twice in copies of the working tree: once with
local cores, once with ``--profile profiles/slurm`` (the profile shipped for real clusters) plus the flags a
cluster without job accounting needs. Every table and data file must be byte-identical, and every job must
have gone through ``sbatch``.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys

from repo_paths import ROOT

sys.path.insert(0, str(ROOT / "tests" / "compendium" / "workflow"))
import tiny_workflow as tw  # noqa: E402

#: On a cluster without sacct (no accounting daemon), as on the single node of .ci/slurm/.
NO_ACCOUNTING = ["--slurm-status-command", "squeue", "--slurm-no-account"]
#: Poll Slurm often: the jobs are seconds long here (the plugin's defaults suit jobs of minutes).
FAST_POLL = ["--slurm-init-seconds-before-status-checks", "2", "--seconds-between-status-checks", "3"]


def _slurm_is_up() -> str:
    for tool in ("sbatch", "squeue", "sinfo"):
        assert shutil.which(tool), f"{tool} not found: run `bash .ci/slurm/start.sh` (or `make test-cluster`)"
    res = subprocess.run(["sinfo", "-h", "-o", "%P %a %t"], capture_output=True, text=True, timeout=30)
    assert res.returncode == 0, f"sinfo failed (start Slurm: `bash .ci/slurm/start.sh`): {res.stderr}"
    return res.stdout.strip()


def test_slurm_run_equals_local_run(tmp_path_factory):
    nodes = _slurm_is_up()
    assert re.search(r"\bup\b.*\b(idle|mix|alloc)\b", nodes), f"no partition up with a usable node: {nodes!r}"

    local = tw.reference_run(tmp_path_factory)
    cluster = tw.copy_tree(tmp_path_factory.mktemp("slurm"))
    res = tw.run(cluster, "--profile", "profiles/slurm", *NO_ACCOUNTING, *FAST_POLL, "--jobs", "4")
    log = res.stdout + res.stderr

    # Every job went through sbatch: one Slurm job id per Snakemake job, and its sbatch log was kept.
    submitted = re.findall(r"has been submitted with SLURM jobid (\d+)", log)
    planned = re.search(r"^total\s+(\d+)$", log, flags=re.MULTILINE)
    assert planned, "no job statistics in the log"
    n_jobs = int(planned.group(1))
    # rule `all` only collects its inputs; Snakemake runs such a target-only job on the submitting host
    n_submitted = len(set(submitted))
    assert n_submitted >= n_jobs - 1 > 4, f"{n_submitted} Slurm jobs for {n_jobs} Snakemake jobs"
    chunk_logs = sorted((cluster / ".snakemake" / "slurm_logs" / "rule_train_fold_chunk").rglob("*.log"))
    assert len(chunk_logs) == 4, chunk_logs  # 2 models x 2 chunks, each its own sbatch job

    files = tw.table_files(local)
    assert files == tw.table_files(cluster)
    assert f"results/{tw.EXPERIMENT}/nij/clean/predictions/predictions.parquet" in files
    a, b = tw.digests(local, files), tw.digests(cluster, files)
    differ = [p for p in files if a[p] != b[p]]
    assert differ == [], f"{len(differ)} of {len(files)} files differ between the Slurm and the local run"
