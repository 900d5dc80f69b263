"""Bad-input corpus of the library: every public entry point refuses bad input with a clear error that names
the problem.

One table of cases per entry point family - library functions, the command line - covering wrong types, NaN,
empty input, a single group, unseen labels, mismatched lengths, non-binary predictions where a binary test
needs them, truncated and garbage files and out-of-range settings. Each error must be raised by fairstats'
own code (the innermost frame is in the imported ``fairstats`` package, the installed wheel's or
``src/fairstats``), not by pandas or numpy deep below, with a message matching the pattern. The
compendium's loaders, checksums and workflow config: tests/compendium/test_bad_inputs_compendium.py.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import fairstats
from fairstats import calibration, confusion, mcnemar, metrics, ttests
from fairstats.auditing.cli import main as cli_main

PACKAGES = (Path(fairstats.__file__).resolve().parent,)


def _check(case_id: str, call, ctx: object, exc: type[Exception], match: str) -> None:
    with pytest.raises(exc, match=match) as info:
        call(ctx)
    innermost = Path(info.traceback[-1].path).resolve()
    ours = any(p in innermost.parents for p in PACKAGES)
    assert ours, f"{case_id}: raised from {innermost}, not from our code"


# --------------------------------------------------------------------------------------------------------
# library functions
# --------------------------------------------------------------------------------------------------------

OK = pd.DataFrame({"g": ["a", "a", "b", "b"], "y": [1, 0, 1, 0], "p": [1, 1, 0, 0]})
NIJ_LIKE = pd.DataFrame(
    {"y_true": [0, 1], "y_pred": [0, 1], "race": ["BLACK", "WHITE"], "fold": [0, 0], "model": ["lr", "lr"]}
)
RNG = np.random.default_rng(0)
Y = RNG.integers(0, 2, 200)
SCORE = RNG.random(200)
GROUP = np.where(RNG.random(200) < 0.5, "BLACK", "WHITE")


def _ect(data, **kw):
    return confusion.equal_confusion_test(data, group="g", y_true="y", y_pred="p", **kw)


# paper B's columns and convention, explicit (the library's defaults: favorable=1, no fold or model strata)
_NIJ = dict(group="race", y_true="y_true", y_pred="y_pred", fold="fold", by=("model",), favorable=0)


def _gm(data, **kw):
    return metrics.group_metrics(data, **{**_NIJ, **kw})


def _cal(y_true=Y, y_score=SCORE, group=GROUP, **kw):
    kw = {"groups": ("BLACK", "WHITE"), **kw}
    data = pd.DataFrame({"group": group, "y_true": y_true, "y_score": y_score})
    columns = {"group": "group", "y_true": "y_true", "y_score": "y_score"}
    return calibration.calibration_independence_test(data, **columns, **kw)


LIBRARY: list[tuple[str, Any, type[Exception], str]] = [
    # fairstats.confusion
    (
        "confusion: not a frame",
        lambda c: _ect([1, 2]),
        TypeError,
        r"`data` must be a data frame \(pandas, polars, pyarrow, DuckDB, Spark, ...\) or Counts, got list",
    ),
    ("confusion: empty frame", lambda c: _ect(OK.iloc[:0]), ValueError, r"`data` is empty \(0 rows\)"),
    (
        "confusion: NaN",
        lambda c: _ect(OK.assign(y=[1, np.nan, 1, 0])),
        ValueError,
        r"column 'y' has 1 missing value\(s\) \(NaN\), first at row 1",
    ),
    ("confusion: one group", lambda c: _ect(OK.assign(g="a")), ValueError, r"single group 'a'"),
    (
        "confusion: misspelt column",
        lambda c: fairstats.ContingencyTable.from_frame(OK, group="gg", y_true="y", y_pred="p").frame(),
        ValueError,
        r"missing column\(s\) 'gg' \(did you mean 'g'\?\)",
    ),
    (
        "confusion: group not a name",
        lambda c: fairstats.ContingencyTable.from_frame(OK, group=3, y_true="y", y_pred="p").frame(),
        TypeError,
        r"`group` must be a column name",
    ),
    (
        "confusion: alpha out of range",
        lambda c: _ect(OK, alpha=1.5),
        ValueError,
        r"`alpha` must be a number strictly between 0 and 1, got 1.5",
    ),
    ("confusion: alpha a string", lambda c: _ect(OK, alpha="0.01"), ValueError, r"`alpha` .* got '0.01'"),
    (
        "confusion: mixed label types",
        lambda c: _ect(OK.assign(p=[1, "x", 0, 0])),
        TypeError,
        r"column 'p' mixes values that cannot be sorted",
    ),
    (
        "confusion: one outcome cell",
        lambda c: _ect(OK.assign(y=1, p=1)),
        ValueError,
        r"fewer than two outcome cells",
    ),
    (
        "confusion: group is y_true",
        lambda c: confusion.adjusted_residuals(OK, group="y", y_true="y", y_pred="p"),
        ValueError,
        r"`group` column 'y' is also `y_true` or `y_pred`",
    ),
    (
        "confusion: n_resamples 0",
        lambda c: _ect(OK, n_resamples=0),
        ValueError,
        r"`n_resamples` must be a positive",
    ),
    ("confusion: rng of wrong type", lambda c: _ect(OK, rng="seed"), TypeError, r"`rng` must be None"),
    # fairstats.metrics
    (
        "metrics: not a frame",
        lambda c: _gm({"a": 1}),
        TypeError,
        r"`data` must be a data frame \(pandas, polars, pyarrow, DuckDB, Spark, ...\) or Counts, got dict",
    ),
    ("metrics: empty frame", lambda c: _gm(NIJ_LIKE.iloc[:0]), ValueError, r"`data` is empty"),
    (
        "metrics: non-binary y_pred",
        lambda c: _gm(NIJ_LIKE.assign(y_pred=[0, 2])),
        ValueError,
        r"`y_pred`: column 'y_pred' has value 2; expected 0/1",
    ),
    (
        "metrics: score-like y_pred",
        lambda c: _gm(NIJ_LIKE.assign(y_pred=[0, 0.5])),
        ValueError,
        r"column 'y_pred' must be binary \(0/1\), found value 0.5",
    ),
    (
        "metrics: NaN",
        lambda c: _gm(NIJ_LIKE.assign(y_true=[0, np.nan])),
        ValueError,
        r"column 'y_true' has 1 missing value",
    ),
    (
        "metrics: unseen labels",
        lambda c: _gm(NIJ_LIKE.assign(y_true=["no", "yes"])),
        ValueError,
        r"column 'y_true' has value 'no'",
    ),
    (
        "metrics: favorable not a label",
        lambda c: _gm(NIJ_LIKE, favorable=2),
        ValueError,
        r"`favorable` must be 0 or 1",
    ),
    (
        "metrics: score out of [0, 1]",
        lambda c: _gm(NIJ_LIKE.assign(s=[0.1, 1.5]), y_score="s"),
        ValueError,
        r"column 's' must lie in \[0, 1\], found 1.5",
    ),
    (
        "metrics: missing column",
        lambda c: metrics.confusion_counts(NIJ_LIKE.drop(columns="model"), **_NIJ),
        ValueError,
        r"missing column\(s\) 'model'",
    ),
    # fairstats.ttests
    (
        "ttests: mismatched lengths",
        lambda c: ttests.fold_ttest([1, 2, 3], [1, 2]),
        ValueError,
        r"same length\), got 3 and 2",
    ),
    ("ttests: a string", lambda c: ttests.fold_ttest("abc", [1, 2]), TypeError, r"got a string 'abc'"),
    ("ttests: non-numeric", lambda c: ttests.fold_ttest(["a", "b"], [1, 2]), TypeError, r"could not convert"),
    ("ttests: empty", lambda c: ttests.fold_ttest([], []), ValueError, r"need at least 2 folds, got 0"),
    (
        "ttests: all NaN",
        lambda c: ttests.fold_ttest([np.nan, np.nan, 1.0], [1, 2, 3]),
        ValueError,
        r"`a` has 1 non-NaN fold values of 3",
    ),
    (
        "ttests: infinite",
        lambda c: ttests.fold_ttest([1, np.inf, 3], [1, 2, 4]),
        ValueError,
        r"infinite value inf at fold 1",
    ),
    (
        "ttests: alternative",
        lambda c: ttests.fold_ttest([1, 2, 3], [1, 2, 4], alternative="bigger"),
        ValueError,
        r"`alternative` must be one of .* got 'bigger'",
    ),
    # fairstats.mcnemar
    (
        "mcnemar: negative count",
        lambda c: mcnemar.mcnemar_midp(-1, 2),
        ValueError,
        r"`b` must be a count >= 0",
    ),
    (
        "mcnemar: fractional count",
        lambda c: mcnemar.mcnemar_midp(1.5, 2),
        TypeError,
        r"`b` must be a whole count",
    ),
    (
        "mcnemar: NaN count",
        lambda c: mcnemar.mcnemar_midp(2, np.nan),
        TypeError,
        r"`c` must be a whole count",
    ),
    (
        "mcnemar: mismatched lengths",
        lambda c: mcnemar.paired_table([0, 1], [0, 1, 1]),
        ValueError,
        r"equal length, got 2 and 3",
    ),
    ("mcnemar: empty", lambda c: mcnemar.paired_table([], []), ValueError, r"are empty"),
    (
        "mcnemar: non-binary",
        lambda c: mcnemar.paired_table([0, 2], [0, 1]),
        ValueError,
        r"`a` has value 2 at position 1, outside `labels`",
    ),
    (
        "mcnemar: NaN prediction",
        lambda c: mcnemar.paired_table([0, 1], [np.nan, 1]),
        ValueError,
        r"`b` has value nan at position 0",
    ),
    (
        "mcnemar: table shape",
        lambda c: mcnemar.mcnemar_midp_table([[1, 2, 3]]),
        ValueError,
        r"must be 2×2, got shape \(1, 3\)",
    ),
    # fairstats.calibration
    (
        "calibration: score out of [0, 1]",
        lambda c: _cal(y_score=SCORE * 2),
        ValueError,
        r"`y_score` must lie in \[0, 1\]",
    ),
    (
        "calibration: missing column",
        lambda c: calibration.calibration_independence_test(
            pd.DataFrame({"g": GROUP, "y": Y, "s": SCORE}), group="g", y_true="y", y_score="score",
            groups=("BLACK", "WHITE"),
        ),  # fmt: skip
        ValueError,
        r"`data`: missing column\(s\) 'score'",
    ),
    (
        "calibration: unseen group",
        lambda c: _cal(groups=("HISPANIC", "WHITE")),
        ValueError,
        r"`groups`: group 'HISPANIC' does not occur",
    ),
    (
        "calibration: non-binary outcome",
        lambda c: _cal(y_true=Y + 1),
        ValueError,
        r"`y_true` must be binary 0/1",
    ),
]


@pytest.mark.parametrize(("case_id", "call", "exc", "match"), LIBRARY, ids=[c[0] for c in LIBRARY])
def test_library_refuses_bad_input(case_id, call, exc, match):
    _check(case_id, call, None, exc, match)


# --------------------------------------------------------------------------------------------------------
# command line: one line on stderr, exit 2, no traceback, nothing written (tests/library/test_cli.py has more)
# --------------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def audit_files(compas_violent, tmp_path_factory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("cli")
    frame = compas_violent[["sex", "race", "y_true", "y_pred"]]
    good = frame.to_csv(index=False).encode()
    cut = good.index(b"\n", len(good) // 2) + 8  # a ragged last row: 'Male,Af' and no more fields
    files = {"truncated": tmp / "truncated.csv", "binary": tmp / "binary.csv", "text": tmp / "notes.csv"}
    files["truncated"].write_bytes(good[:cut])
    files["binary"].write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))
    files["text"].write_text("these are my notes\nnothing tabular here\n")
    return files


CLI_CASES = [
    (
        "truncated CSV",
        "truncated",
        r"--y-true: column 'y_true' has 1 missing value\(s\) \(NaN\), first on line \d+",
    ),
    ("binary file", "binary", r"could not read '.*binary\.csv' as CSV"),
    ("not a table", "text", r"column 'race' not found"),
]


@pytest.mark.parametrize(("name", "source", "match"), CLI_CASES, ids=[c[0] for c in CLI_CASES])
def test_cli_refuses_bad_files_in_one_line(audit_files, tmp_path, capsys, name, source, match):
    out = tmp_path / "out"
    argv = ["audit", str(audit_files[source]), "--group", "race", "--y-true", "y_true", "--y-pred", "y_pred"]
    status = cli_main([*argv, "--n-resamples", "99", "--out", str(out)])
    captured = capsys.readouterr()
    assert status == 2
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("fairstats audit: error: "), captured.err
    assert re.search(match, lines[0]), lines[0]
    assert "Traceback" not in captured.err and captured.out == ""
    assert not out.exists() and list(tmp_path.iterdir()) == []
