"""Data are validated once where they enter the library (issue 13): the checked value passed inward is not
checked again, and one call of a layered function (outcome tests -> bootstrap -> group labels; the audit)
scans each of the user's columns for missing values once."""

from collections import Counter

import numpy as np
import pandas as pd
import pytest

import fairstats
from fairstats import _validation
from fairstats._validation import CheckedFrame, checked_frame


@pytest.fixture
def people() -> pd.DataFrame:
    rng = np.random.default_rng(3)
    n = 400
    return pd.DataFrame({"g": rng.choice(["a", "b"], n), "y": rng.integers(0, 2, n),
                         "p": rng.integers(0, 2, n), "s": rng.random(n), "fold": np.arange(n) % 5})


class _Scans:
    """Every scan for missing values (require_no_nan, wherever it is called from): (frame, columns)."""

    def __init__(self):
        self.calls: list[tuple[pd.DataFrame, list[str]]] = []

    def of(self, frame: pd.DataFrame) -> Counter:
        """How often each column of ``frame`` (this object, not a copy or a derived table) was scanned."""
        return Counter(c for data, columns in self.calls if data is frame for c in columns)


@pytest.fixture
def nan_scans(monkeypatch) -> _Scans:
    scans = _Scans()
    original = _validation.require_no_nan

    def counting(data, columns, *, where="data"):
        columns = list(columns)
        scans.calls.append((data, columns))
        return original(data, columns, where=where)

    monkeypatch.setattr(_validation, "require_no_nan", counting)
    return scans


def test_checked_frame_checks_and_remembers(people):
    checked = checked_frame(people, ["g", "y"])
    assert isinstance(checked, CheckedFrame) and checked.frame is people
    assert checked.complete == {"g", "y"}
    assert checked_frame(checked, ["y", "g"]) is checked  # nothing new to check: the same value
    more = checked_frame(checked, ["p"])
    assert more.complete == {"g", "y", "p"} and more.frame is people


def test_checked_frame_names_the_problem(people):
    with pytest.raises(TypeError, match="`data` must be a pandas DataFrame, got list"):
        checked_frame([1, 2], ["g"])
    with pytest.raises(ValueError, match=r"missing column\(s\) 'gg' \(did you mean 'g'\?\)"):
        checked_frame(people, ["gg"])
    broken = people.assign(y=people["y"].astype(float))
    broken.loc[7, "y"] = np.nan
    with pytest.raises(ValueError, match=r"column 'y' has 1 missing value\(s\) \(NaN\), first at row 7"):
        checked_frame(checked_frame(broken, ["g"]), ["y"])  # a checked value is checked for new columns


def test_outcome_tests_scan_each_column_once(people, nan_scans):
    fairstats.outcome_tests(people, group="g", y_true="y", y_pred="p", y_score="s", n_resamples=99, rng=1)
    # before issue 13: the outcome tests, their bootstrap and the group labels each scanned the columns again
    assert nan_scans.of(people) == {"g": 1, "y": 1, "p": 1, "s": 1}


def test_fold_disparity_scans_each_column_once(people, nan_scans):
    fairstats.fold_disparity(people, group="g", y_true="y", y_pred="p", fold="fold")
    assert nan_scans.of(people) == {"g": 1, "y": 1, "p": 1, "fold": 1}


def test_the_audit_checks_its_frame_once(people, nan_scans, tmp_path):
    from fairstats.auditing import cli

    people.to_csv(tmp_path / "people.csv", index=False)
    argv = ["audit", str(tmp_path / "people.csv"), "--group", "g", "--y-true", "y", "--y-pred", "p"]
    seed = ["--n-resamples", "99", "--seed", "1"]
    # rows (--fold reads each row): the audit checks the file itself (its messages name the line); the frame
    # it builds from it (group, labels, favourable-relative 0/1 columns, fold) is checked once, and every test
    # it runs gets that checked value
    assert cli.main([*argv, "--fold", "fold", *seed, "--out", str(tmp_path / "rows")]) == 0
    audit_frames = {id(data): data for data, _ in nan_scans.calls if "__fairstats_y01" in data.columns}
    assert len(audit_frames) == 1
    frame = next(iter(audit_frames.values()))
    assert len(frame) == len(people)
    # internal names, never a user's
    internal = [f"__fairstats_{role}" for role in ("y_true", "y_pred", "y01", "p01", "fold")]
    assert nan_scans.of(frame) == dict.fromkeys(["g", *internal], 1)
    # counted (the CSV path without --fold): the frames checked are the 2 x 2 x 2 distinct combinations, never
    # the 400 rows, and each is checked once
    nan_scans.calls.clear()
    assert cli.main([*argv, *seed, "--out", str(tmp_path / "counted")]) == 0
    audit_frames = {id(data): data for data, _ in nan_scans.calls if "__fairstats_y01" in data.columns}
    assert audit_frames and all(len(f) <= 8 for f in audit_frames.values())
    for f in audit_frames.values():
        assert set(nan_scans.of(f).values()) == {1}
