"""The audit's own writer (fairstats.auditing.writing): one-line messages, atomic writes with ordinary
permissions, Markdown tables, reproducible figures and the one file hash (issue 38, item 3: the wing no longer
writes with the compendium's helpers)."""

import hashlib
import os

import matplotlib.pyplot as plt
import pandas as pd
import pytest

from fairstats.auditing.writing import (
    atomic_write_text,
    file_sha256,
    one_line,
    save_figure,
    set_style,
    to_markdown,
)


def test_one_line_joins_every_run_of_whitespace():
    assert one_line("a\n  b\tc\r\n") == "a b c"
    assert one_line(ValueError("x\ny")) == "x y"


def test_atomic_write_leaves_no_partial_file_on_error(tmp_path):
    target = tmp_path / "out.txt"
    with pytest.raises(TypeError):
        atomic_write_text(target, 12345)  # not text: the write fails
    assert not target.exists()
    assert list(tmp_path.iterdir()) == []


def test_atomic_write_gives_ordinary_permissions(tmp_path):
    umask = os.umask(0o022)
    try:
        path = atomic_write_text(tmp_path / "t.txt", "x")
    finally:
        os.umask(umask)
    assert path.stat().st_mode & 0o777 == 0o644
    assert path.read_text() == "x"


def test_to_markdown_rounds_escapes_and_leaves_missing_blank():
    text = to_markdown(pd.DataFrame({"group": ["a|b", "c"], "x": [1 / 3, float("nan")]}), digits=2)
    assert text.splitlines()[:2] == ["| group | x |", "| --- | --- |"]
    assert "| a\\|b | 0.33 |" in text and "| c |  |" in text


def test_file_sha256_is_hashlib_s_digest_of_the_bytes(tmp_path):
    path = tmp_path / "data.bin"
    payload = os.urandom(3 << 20)  # more than one 1 MiB block
    path.write_bytes(payload)
    assert file_sha256(path) == hashlib.sha256(payload).hexdigest()


def test_save_figure_writes_the_same_bytes_twice(tmp_path):
    def figure():
        set_style()
        fig, ax = plt.subplots()
        ax.plot([0, 1], [1, 0])
        return fig

    first = save_figure(figure(), tmp_path / "a" / "fig")
    second = save_figure(figure(), tmp_path / "b" / "fig.png")
    assert first.suffix == ".png" and first.with_suffix(".pdf").exists()
    assert first.read_bytes() == second.read_bytes()
    assert first.with_suffix(".pdf").read_bytes() == second.with_suffix(".pdf").read_bytes()
    plt.close("all")
