"""Kill and resume: the NIJ training stage, SIGKILLed at several points, resumes to the uninterrupted result.

A run of the tiny configuration (``tiny_workflow.py``: 2 models x 2 chunks of test folds) is killed with
SIGKILL - snakemake and every job it started, as a power loss or the OOM killer would - while the NIJ table is
being rebuilt, while a training chunk is being fitted after another one has finished, and while the chunks are
being gathered. After each kill the user's recovery is run: ``snakemake --unlock`` (the kill leaves the lock),
then the same command with ``--rerun-incomplete``. The final files must be byte-identical to an uninterrupted
run, and no chunk that Snakemake had recorded as finished at a kill may be fitted again (same inode and mtime:
the chunk writer replaces its file atomically, so a refit always makes a new inode).
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
import tiny_workflow as tw

TABLE = f"data/interim/{tw.EXPERIMENT}/nij/table.parquet"
PREDICTIONS = f"results/{tw.EXPERIMENT}/nij/clean/predictions/predictions.parquet"
N_CHUNKS = 4  # 2 models x 2 chunks (tiny_workflow.tiny_config)


@dataclass(frozen=True)
class Snapshot:
    finished: dict[str, tuple[int, int]]  # chunk path -> (inode, mtime_ns), for chunks recorded as finished
    in_progress: frozenset[str]  # outputs of jobs started and not finished


def _snapshot(root: Path) -> Snapshot:
    in_progress = frozenset(tw.incomplete_outputs(root))
    finished = {}
    for path in tw.chunk_files(root):
        rel = path.relative_to(root).as_posix()
        if rel not in in_progress:
            st = path.stat()
            finished[rel] = (st.st_ino, st.st_mtime_ns)
    return Snapshot(finished, in_progress)


def _kill_when(root: Path, ready, *, timeout: float = 300) -> Snapshot:
    """Start the resumable run, SIGKILL its whole process group as soon as ``ready(snapshot)``; return the
    snapshot taken right after the kill."""
    proc = subprocess.Popen(
        tw.snakemake_argv("--cores", "1", "--rerun-incomplete", PREDICTIONS),
        cwd=root,
        env=tw.run_env(PYTHONHASHSEED="0"),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + timeout
    try:
        while not ready(_snapshot(root)):
            if proc.poll() is not None:
                pytest.fail(f"the run ended (exit {proc.returncode}) before reaching the kill point")
            if time.monotonic() > deadline:
                pytest.fail("the kill point was not reached in time")
            time.sleep(0.02)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    return _snapshot(root)


@pytest.mark.e2e
@pytest.mark.slow  # a training run killed and resumed (about 2 CPU-minutes): after make test, in .ci/run
def test_killed_training_resumes_without_refitting_finished_chunks(tmp_path_factory):
    reference = tw.reference_run(tmp_path_factory, PREDICTIONS)  # the whole run if another test made it
    root = tw.copy_tree(tmp_path_factory.mktemp("killed"))

    kill_points = {
        "rebuilding the NIJ table": lambda s: TABLE in s.in_progress,
        "fitting a chunk after one finished": lambda s: (
            len(s.finished) >= 1 and any("/chunks/" in p for p in s.in_progress)
        ),
        "gathering the chunks": lambda s: len(s.finished) == N_CHUNKS and PREDICTIONS in s.in_progress,
    }
    finished: dict[str, tuple[int, int]] = {}
    for point, ready in kill_points.items():
        snap = _kill_when(root, ready)
        assert snap.in_progress, f"killed while {point}, yet no job was in progress"
        # A chunk finished before an earlier kill is still the same file.
        for chunk, stamp in finished.items():
            assert snap.finished.get(chunk) == stamp, f"{chunk} was fitted again after the kill ({point})"
        finished.update(snap.finished)
        tw.run(root, "--unlock")
    assert len(finished) == N_CHUNKS, "the kill points should have seen every chunk finish"

    final = tw.run(root, "--cores", "1", "--rerun-incomplete", PREDICTIONS, PYTHONHASHSEED="0")
    log = final.stdout + final.stderr
    for chunk, stamp in finished.items():
        st = (root / chunk).stat()
        assert (st.st_ino, st.st_mtime_ns) == stamp, f"{chunk} was fitted again by the final run"
        assert f"output: {chunk}" not in log, f"the final run planned a job for the finished {chunk}"
    assert "rule train_fold_chunk:" not in log  # every chunk had finished before the last kill
    assert tw.incomplete_outputs(root) == set()

    compared = [PREDICTIONS, TABLE, *(p.relative_to(root).as_posix() for p in tw.chunk_files(root))]
    assert len(compared) == 2 + N_CHUNKS
    assert tw.digests(root, compared) == tw.digests(reference, compared)
