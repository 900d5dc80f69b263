"""Table writing (compendium.publish.reporting): full-precision CSV, rounded Markdown, atomic writes."""

import pandas as pd
import pytest

from compendium.publish.reporting import atomic_write_text, to_markdown, write_table


def test_write_table_writes_csv_at_full_precision_and_rounded_markdown(tmp_path):
    frame = pd.DataFrame({"group": ["a|b"], "statistic": [1 / 3]})
    path = write_table(frame, tmp_path / "t.csv", digits=2)
    assert pd.read_csv(path)["statistic"].item() == pytest.approx(1 / 3, rel=1e-15)
    md = (tmp_path / "t.md").read_text()
    assert "0.33" in md and "0.333" not in md and "a\\|b" in md


def test_atomic_write_leaves_no_partial_file_on_error(tmp_path):
    target = tmp_path / "out.txt"
    with pytest.raises(TypeError):
        atomic_write_text(target, 12345)  # not text: the write fails
    assert not target.exists()
    assert list(tmp_path.iterdir()) == []


def test_to_markdown_blank_for_missing():
    assert "|  |" in to_markdown(pd.DataFrame({"x": [float("nan")]}))


def test_atomic_write_gives_ordinary_permissions(tmp_path):
    import os

    umask = os.umask(0o022)
    try:
        path = atomic_write_text(tmp_path / "t.txt", "x")
    finally:
        os.umask(umask)
    assert path.stat().st_mode & 0o777 == 0o644
