"""Executed notebooks are written without papermill's run-specific noise (times, random cell ids)."""

import nbformat
import pytest

from compendium.publish.executed_notebook import main, normalise, normalise_notebook


def _executed(seconds: float, injected_id: str) -> nbformat.NotebookNode:
    """A notebook as papermill writes it: times in notebook and cell metadata, a random id on its own cell."""
    nb = nbformat.v4.new_notebook()
    stamp = f"2026-11-29T18:57:{seconds:09.6f}+00:00"
    nb.metadata["papermill"] = {
        "duration": seconds,
        "start_time": stamp,
        "end_time": stamp,
        "parameters": {"alpha": 0.05},
        "version": "2.7.0",
    }
    params = nbformat.v4.new_code_cell("alpha: float = 0.1", id="params")
    params.metadata["tags"] = ["parameters"]
    injected = nbformat.v4.new_code_cell("alpha = 0.05", id=injected_id)
    injected.metadata["tags"] = ["injected-parameters"]
    work = nbformat.v4.new_code_cell("print(alpha)", id="work", execution_count=3)
    work.outputs = [nbformat.v4.new_output("stream", name="stdout", text="0.05\n")]
    for cell in (params, injected, work):
        cell.metadata["papermill"] = {"duration": seconds, "start_time": stamp, "status": "completed"}
        cell.metadata["execution"] = {"iopub.execute_input": stamp}
    nb.cells = [params, injected, work]
    return nb


def test_two_runs_give_the_same_bytes(tmp_path):
    paths = []
    for k, (seconds, cell_id) in enumerate([(1.5, "1a2b3c4d"), (7.25, "9f8e7d6c")]):
        path = tmp_path / f"run{k}.ipynb"
        nb = _executed(seconds, cell_id)
        if k == 1:  # a busier kernel flushed the same printed text in two pieces
            nb.cells[2].outputs = [
                nbformat.v4.new_output("stream", name="stdout", text="0."),
                nbformat.v4.new_output("stream", name="stdout", text="05\n"),
            ]
        nbformat.write(nb, path)
        normalise_notebook(path)
        paths.append(path)
    assert paths[0].read_bytes() == paths[1].read_bytes()
    text = paths[0].read_text()
    for noise in ("start_time", "end_time", "duration", "iopub", "1a2b3c4d"):
        assert noise not in text
    nb = nbformat.read(paths[0], as_version=4)
    nbformat.validate(nb)
    # kept: ids of the notebook's own cells, outputs, execution counts, parameters, status
    assert [c.id for c in nb.cells] == ["params", "injected-parameters", "work"]
    assert nb.cells[2].outputs[0].text == "0.05\n" and nb.cells[2].execution_count == 3
    assert nb.metadata.papermill.parameters == {"alpha": 0.05}
    assert nb.cells[2].metadata.papermill.status == "completed"


def test_normalising_twice_changes_nothing(tmp_path):
    path = tmp_path / "nb.ipynb"
    nbformat.write(_executed(2.0, "abcdef12"), path)
    normalise_notebook(path)
    once = path.read_bytes()
    normalise_notebook(path)
    assert path.read_bytes() == once


def test_an_id_taken_by_the_notebook_is_not_reused():
    nb = _executed(1.0, "abcdef12")
    nb.cells[0].id = "injected-parameters"  # the author's own cell already has that id
    ids = [c.id for c in normalise(nb).cells]
    assert ids == ["injected-parameters", "injected-parameters-2", "work"]


def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys):
    bad = tmp_path / "not-a-notebook.ipynb"
    bad.write_text("{ no json")
    with pytest.raises(ValueError, match="not-a-notebook.ipynb.*not a Jupyter notebook"):
        normalise_notebook(bad)
    assert main([str(bad)]) == 2
    assert "not a Jupyter notebook" in capsys.readouterr().err
    assert bad.read_text() == "{ no json"  # left as it was
    assert main([str(tmp_path / "missing.ipynb")]) == 2


def test_every_cell_of_the_source_notebooks_has_a_fixed_id():
    # a cell without an id gets a random one when the notebook is read (nbformat 4.5), so two runs of the
    # workflow would write different notebooks (tests/compendium/workflow/test_determinism.py, slow)
    import json

    from repo_paths import ROOT

    sources = sorted((ROOT / "notebooks").rglob("*.ipynb"))
    assert sources
    missing = [
        f"{path.relative_to(ROOT)} cell {i}"
        for path in sources
        for i, cell in enumerate(json.loads(path.read_text(encoding="utf-8"))["cells"])
        if not cell.get("id")
    ]
    assert missing == []
