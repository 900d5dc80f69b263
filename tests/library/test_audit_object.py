"""fairstats.audit(...) -> Audit, the audit in memory (issue 22): its tables equal, value for value, the CSV
files that `fairstats audit` writes for the same data given as a file; save() writes that folder."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import fairstats
from fairstats.auditing import Audit, AuditError, cli
from fairstats.auditing.folder import MANIFEST

OPTIONS = {"n_resamples": 99, "rng": 3}


@pytest.fixture(scope="module")
def compas(compas_violent) -> pd.DataFrame:
    return compas_violent[["sex", "race", "y_true", "y_pred"]].reset_index(drop=True)


@pytest.fixture(scope="module")
def both(compas, tmp_path_factory):
    """The same audit in memory and by the command line on the frame written as a CSV file."""
    folder = tmp_path_factory.mktemp("audit")
    path = folder / "compas.csv"
    compas.to_csv(path, index=False)
    out = folder / "out"
    argv = ["audit", str(path), "--group", "sex", "--group", "race", "--y-true", "y_true",
            "--y-pred", "y_pred", "--favorable", "0", "--n-resamples", "99", "--seed", "3", "--out", str(out)]
    assert cli.main(argv) == 0
    result = fairstats.audit(compas, group=["sex", "race"], y_true="y_true", y_pred="y_pred", favorable=0,
                             **OPTIONS)  # fmt: skip
    return result, out


def _as_written(frame: pd.DataFrame, folder: Path, name: str) -> pd.DataFrame:
    """``frame`` through the same CSV round trip as the file (so that both sides have the same dtypes)."""
    path = folder / f"{name}-memory.csv"
    frame.to_csv(path, index=False, lineterminator="\n")
    return pd.read_csv(path)


@pytest.mark.parametrize("name", ["tests", "equal_confusion", "residuals"])
def test_tables_in_memory_equal_the_csv_files(both, tmp_path, name):
    result, out = both
    assert isinstance(result, Audit)
    written = pd.read_csv(out / f"{name}.csv")
    memory = getattr(result, name)
    assert list(memory.columns) == list(written.columns)
    assert len(memory) == len(written) > 0
    pd.testing.assert_frame_equal(_as_written(memory, tmp_path, name), written, check_exact=True)


def test_tests_hold_the_same_numbers_before_any_file(both):
    result, out = both
    written = pd.read_csv(out / "tests.csv")
    for column in ("pvalue", "estimate", "ci_low", "ci_high"):
        np.testing.assert_array_equal(result.tests[column].to_numpy(float), written[column].to_numpy(float))
    assert result.tests["verdict"].tolist() == written["verdict"].tolist()
    assert result.equal_confusion["grouping"].tolist() == ["sex", "race", "sex x race"]
    assert [g.name for g in result.groupings] == ["sex", "race", "sex x race"]
    assert result.groupings[2].columns == ("sex", "race") and len(result.groupings[0].labels) == 2


def test_save_writes_the_folder_the_cli_writes(both, tmp_path):
    result, out = both
    summary = result.save(tmp_path / "saved")
    names = sorted(p.name for p in (tmp_path / "saved").iterdir())
    assert names == sorted(p.name for p in out.iterdir())
    assert MANIFEST in names
    for name in ("tests.csv", "equal_confusion.csv", "residuals.csv", "tests.md"):
        assert (tmp_path / "saved" / name).read_bytes() == (out / name).read_bytes(), name
    assert summary.endswith(f"report: {tmp_path / 'saved' / 'report.html'}")
    assert result.summary().splitlines() == summary.splitlines()[:-1]


def test_save_refuses_a_folder_it_did_not_write(both, tmp_path):
    result, _ = both
    (tmp_path / "mine.txt").write_text("keep me")
    with pytest.raises(AuditError, match="mine.txt"):
        result.save(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine.txt"]


def test_repr_html_escapes_data_strings():
    frame = pd.DataFrame({"g": ["<b>x</b>", "y"] * 40, "t": [0, 1, 1, 0] * 20, "p": [0, 1, 0, 1] * 20})
    result = fairstats.audit(frame, group="g", y_true="t", y_pred="p", **OPTIONS)
    html = result._repr_html_()
    assert "<b>x</b>" not in html and "&lt;b&gt;x&lt;/b&gt;" in html


def test_options_are_checked_once_where_they_enter(compas):
    with pytest.raises(AuditError, match=r"--n-resamples: must be an integer from 99 to 1,000,000 .*got 5"):
        fairstats.audit(compas, group="race", y_true="y_true", y_pred="y_pred", n_resamples=5)
    with pytest.raises(AuditError, match=r"--alpha: must be strictly between 0 and 1, got 1.5"):
        fairstats.audit(compas, group="race", y_true="y_true", y_pred="y_pred", alpha=1.5)
    with pytest.raises(AuditError, match="'race' is also given as --group"):
        fairstats.audit(compas, group="race", y_true="race", y_pred="y_pred")
    with pytest.raises(AuditError, match="--group: column 'Race' not found in the data; did you mean 'race'"):
        fairstats.audit(compas, group="Race", y_true="y_true", y_pred="y_pred", favorable=0, **OPTIONS)


def test_counts_give_the_same_tables_as_rows(compas):
    counts = fairstats.Counts.from_frame(compas, columns=["sex", "race", "y_true", "y_pred"])
    rows = fairstats.audit(compas, group="race", y_true="y_true", y_pred="y_pred", favorable=0, **OPTIONS)
    counted = fairstats.audit(counts, group="race", y_true="y_true", y_pred="y_pred", favorable=0, **OPTIONS)
    pd.testing.assert_frame_equal(rows.equal_confusion, counted.equal_confusion)
    np.testing.assert_allclose(rows.tests["estimate"], counted.tests["estimate"], rtol=1e-12)


def test_rng_is_the_seed_and_seed_its_old_name_until_0_4():
    """``rng`` (the seed's name in every resampling function) is the command line's --seed: an integer, which
    the report records; ``seed`` (before 0.3) warns and gives the same audit; a Generator is refused, since
    the report could not record it."""
    frame = pd.DataFrame({"g": ["a", "b"] * 60, "t": [0, 1, 1, 0] * 30, "p": [0, 1, 0, 1, 1, 1] * 20})
    args = {"group": "g", "y_true": "t", "y_pred": "p", "n_resamples": 99}
    new = fairstats.audit(frame, rng=11, **args)
    assert new.options.seed == 11 and new.to_dict()["options"]["rng"] == 11
    assert "rng=11" in new.command
    with pytest.warns(DeprecationWarning, match=r"`seed` of fairstats.audit .* use `rng`$"):
        old = fairstats.audit(frame, seed=11, **args)
    pd.testing.assert_frame_equal(old.tests, new.tests)
    other = fairstats.audit(frame, rng=12, **args)
    assert not other.tests["ci_low"].equals(new.tests["ci_low"])  # the seed changes the bootstrap's draws
    with pytest.raises(TypeError, match="got both `seed` .* and `rng`"):
        fairstats.audit(frame, seed=11, rng=11, **args)
    with pytest.raises(AuditError, match="--seed: must be a non-negative integer, got a Generator: the"):
        fairstats.audit(frame, rng=np.random.default_rng(11), **args)
