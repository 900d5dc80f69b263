"""Determinism: two whole runs of the tiny configuration write byte-identical tables, notebooks and figures.

The two runs differ in everything that must not matter: the folder they run in, and ``PYTHONHASHSEED`` (0
and 4242), which changes the iteration order of sets of strings; every random choice takes its seed from the
config.
Compared: every CSV, Markdown, TSV, parquet, executed notebook (``.ipynb``: no papermill times, no random cell
ids) and figure (PNG, PDF: no dates) under ``results/<experiment>/`` and ``data/interim/<experiment>/`` except
the run records (``logs/``, ``benchmarks/``: times and host names).
"""

from __future__ import annotations

import pytest
import tiny_workflow as tw


@pytest.mark.e2e
@pytest.mark.slow  # two full tiny-workflow runs (about 8 CPU-minutes): after make test, in .ci/run
def test_two_runs_write_byte_identical_tables(tmp_path_factory):
    first = tw.reference_run(tmp_path_factory)  # PYTHONHASHSEED=0
    second = tw.copy_tree(tmp_path_factory.mktemp("second"))
    tw.run(second, "--cores", "2", PYTHONHASHSEED="4242")

    suffixes = (*tw.TABLE_SUFFIXES, ".ipynb", ".png", ".pdf")
    files = tw.table_files(first, suffixes=suffixes)
    assert files == tw.table_files(second, suffixes=suffixes)
    # the run wrote every stage's tables: COMPAS (paper A), the NIJ predictions, the judged table
    experiment = f"results/{tw.EXPERIMENT}"
    for expected in (
        f"{experiment}/compas/propublica_violent/tables/equal_confusion_tests.csv",
        f"{experiment}/nij/clean/predictions/predictions.parquet",
        f"{experiment}/published-vs-reproduced.csv",
        f"{experiment}/compas/propublica_violent/notebooks/paper_a_equal_confusion.ipynb",
        f"{experiment}/compas/propublica_violent/figures/sex_residuals.pdf",
    ):
        assert expected in files
    a, b = tw.digests(first, files), tw.digests(second, files)
    differ = [p for p in files if a[p] != b[p]]
    assert differ == [], f"{len(differ)} of {len(files)} files differ between the two runs"
