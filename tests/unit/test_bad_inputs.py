"""Bad-input corpus: every public entry point refuses bad input with a clear error that names the problem.

One table of cases per entry point family - library functions, data loaders, checksums, the workflow config,
the command line - covering wrong types, NaN, empty input, a single group, unseen labels, mismatched
lengths, non-binary predictions where a binary test needs them, truncated and garbage files, wrong checksums,
unknown preset names and out-of-range settings. Each error must be raised by our own code (the innermost
frame is in ``src/fairstats`` or ``src/compendium``), not by pandas or numpy deep below, with a message
matching the pattern.
"""

from __future__ import annotations

import copy
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
import yaml

from compendium.data import compas, download, nij
from compendium.paper_b import crossval, models, predictions
from fairstats import calibration, confusion, mcnemar, metrics, ttests
from fairstats.auditing.cli import main as cli_main

ROOT = Path(__file__).resolve().parents[2]
RAW = ROOT / "data" / "raw"
PACKAGES = (ROOT / "src" / "fairstats", ROOT / "src" / "compendium")
VIOLENT = RAW / "compas-scores-two-years-violent.csv"
PRESET = {
    "outcome": "violent",
    "day_window": 30,
    "exclude_charge_degrees": ["O"],
    "positive_scores": ["High"],
}


@dataclass(frozen=True)
class Ctx:
    files: dict[str, Path]
    compas_raw: pd.DataFrame


@pytest.fixture(scope="module")
def ctx(tmp_path_factory) -> Ctx:
    tmp = tmp_path_factory.mktemp("bad")
    files: dict[str, Path] = {}

    def write(name: str, data: bytes) -> None:
        files[name] = tmp / name
        files[name].write_bytes(data)

    violent = VIOLENT.read_bytes()
    write("compas_truncated.csv", violent[: len(violent) // 2])  # cut mid-row
    write("empty.csv", b"")
    write("garbage.csv", b"\x00\x01\x02 not a csv\n")
    official = (ROOT / "tests/fixtures/nij-official-sample.csv").read_bytes()
    write("official_truncated.csv", official[: len(official) // 2])
    write("official_header_only.csv", official.split(b"\n")[0] + b"\n")
    write("not_parquet.parquet", b"this is not parquet")
    write("abc.txt", b"abc")
    write("manifest_bad", b"deadbeef  file.csv\n")
    folds = tmp / "folds"
    folds.mkdir()
    for path in sorted((RAW / "nij-paper-folds").glob("fold_*.csv")):
        shutil.copyfile(path, folds / path.name)
    first = (folds / "fold_000.csv").read_bytes()
    (folds / "fold_000.csv").write_bytes(first[: len(first) // 2])
    files["folds_truncated"] = folds
    files["missing"] = tmp / "no-such-file.csv"
    return Ctx(files=files, compas_raw=compas.read_compas(VIOLENT))


def _check(case_id: str, call, ctx: Ctx, exc: type[Exception], match: str) -> None:
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
    kw = {"protected": "BLACK", "unprotected": "WHITE", **kw}
    return calibration.calibration_test(y_true, y_score, group, **kw)


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
        lambda c: confusion.confusion_table(OK, group="gg", y_true="y", y_pred="p"),
        ValueError,
        r"missing column\(s\) 'gg' \(did you mean 'g'\?\)",
    ),
    (
        "confusion: group not a name",
        lambda c: confusion.confusion_table(OK, group=3, y_true="y", y_pred="p"),
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
        "calibration: mismatched lengths",
        lambda c: _cal(y_true=Y[:10]),
        ValueError,
        r"equal length, got 10, 200",
    ),
    (
        "calibration: unseen group",
        lambda c: _cal(protected="HISPANIC"),
        ValueError,
        r"`protected` group 'HISPANIC' does not occur",
    ),
    (
        "calibration: non-binary outcome",
        lambda c: _cal(y_true=Y + 1),
        ValueError,
        r"`y_true` must be binary 0/1",
    ),
    # compendium.paper_b.crossval, compendium.paper_b.models
    (
        "crossval: unknown fold scheme",
        lambda c: crossval.assign_folds(Y, GROUP, scheme="random"),
        ValueError,
        r"`scheme` must be one of \['paper', 'stratified'\], got 'random'",
    ),
    (
        "crossval: mismatched lengths",
        lambda c: crossval.assign_folds(Y, GROUP[:3], scheme="stratified"),
        ValueError,
        r"`group` has 3 values but .* 200 rows",
    ),
    (
        "crossval: unseen test fold",
        lambda c: crossval.training_rows(np.array([0, 1, 2]), 7),
        ValueError,
        r"`test_fold` 7 does not occur in `fold` \(folds 0..2\)",
    ),
    (
        "crossval: predictions not parquet",
        lambda c: predictions.read_predictions(c.files["not_parquet.parquet"]),
        ValueError,
        r"not_parquet\.parquet': not a readable parquet file",
    ),
    (
        "models: unknown model",
        lambda c: models.make_model("svm"),
        ValueError,
        r"`name` must be one of \['lr', 'lda', 'rf', 'xgb'\], got 'svm'",
    ),
    (
        "models: unknown preset",
        lambda c: models.make_model("lr", preset="fancy"),
        ValueError,
        r"`preset` must be one of .* got 'fancy'",
    ),
]


@pytest.mark.parametrize(("case_id", "call", "exc", "match"), LIBRARY, ids=[c[0] for c in LIBRARY])
def test_library_refuses_bad_input(ctx, case_id, call, exc, match):
    _check(case_id, call, ctx, exc, match)


# --------------------------------------------------------------------------------------------------------
# data loaders and checksums
# --------------------------------------------------------------------------------------------------------


def _filter(frame, **kw):
    return compas.filter_compas(frame, **{**PRESET, **kw})


LOADERS: list[tuple[str, Any, type[Exception], str]] = [
    (
        "compas: missing file",
        lambda c: compas.read_compas(c.files["missing"]),
        FileNotFoundError,
        r"COMPAS file not found: .*no-such-file\.csv",
    ),
    (
        "compas: empty file",
        lambda c: compas.read_compas(c.files["empty.csv"]),
        ValueError,
        r"empty\.csv: the file is empty",
    ),
    (
        "compas: truncated CSV",
        lambda c: compas.read_compas(c.files["compas_truncated.csv"]),
        ValueError,
        r"compas_truncated\.csv: the last line has \d+ field\(s\) but the header has 54; .* looks truncated",
    ),
    (
        "compas: not the COMPAS layout",
        lambda c: _filter(compas.read_compas(c.files["garbage.csv"])),
        ValueError,
        r"garbage\.csv",
    ),
    (
        "compas: empty frame",
        lambda c: _filter(c.compas_raw.iloc[:0]),
        ValueError,
        r"`frame` .* is empty \(0 rows\)",
    ),
    (
        "compas: unseen race",
        lambda c: _filter(c.compas_raw.replace({"race": {"Caucasian": "Martian"}})),
        ValueError,
        r"column 'race' has value 'Martian' outside the expected set",
    ),
    (
        "compas: unseen score level",
        lambda c: _filter(c.compas_raw.replace({"v_score_text": {"Low": "Lowish"}})),
        ValueError,
        r"column 'v_score_text' has value 'Lowish'",
    ),
    (
        "compas: dropped column",
        lambda c: _filter(c.compas_raw.drop(columns="two_year_recid")),
        ValueError,
        r"missing column\(s\) 'two_year_recid'",
    ),
    (
        "compas: unknown score level",
        lambda c: _filter(c.compas_raw, positive_scores=["Huge"]),
        ValueError,
        r"`positive_scores` has value 'Huge'",
    ),
    (
        "compas: negative day window",
        lambda c: _filter(c.compas_raw, day_window=-1),
        ValueError,
        r"`day_window` must be a non-negative integer, got -1",
    ),
    (
        "compas: unknown preset key",
        lambda c: compas.load_preset(RAW, {**PRESET, "colour": 1}),
        ValueError,
        r"unknown key\(s\) \['colour'\]",
    ),
    (
        "compas: unknown outcome",
        lambda c: compas.load_preset(RAW, {**PRESET, "outcome": "violentish"}),
        ValueError,
        r"`preset\['outcome'\]` must be one of \['general', 'violent'\], got 'violentish'",
    ),
    (
        "compas: preset by name",
        lambda c: compas.load_preset(RAW, "propublica_violent"),
        TypeError,
        r"`preset` must be a mapping",
    ),
    (
        "nij: truncated fold file",
        lambda c: nij.read_paper_folds(c.files["folds_truncated"]),
        ValueError,
        r"fold_000\.csv' data row \d+",
    ),
    (
        "nij: missing folder",
        lambda c: nij.read_paper_folds(c.files["missing"]),
        ValueError,
        r"is not a directory",
    ),
    (
        "nij: empty official file",
        lambda c: nij.read_official(c.files["empty.csv"]),
        ValueError,
        r"empty\.csv': not a readable CSV file",
    ),
    (
        "nij: truncated official file",
        lambda c: nij.read_official(c.files["official_truncated.csv"]),
        ValueError,
        r"official_truncated\.csv' data row \d+: column '\w+' has value nan",
    ),
    (
        "nij: official header only",
        lambda c: nij.read_official(c.files["official_header_only.csv"]),
        ValueError,
        r"no data rows",
    ),
    ("nij: wrong file", lambda c: nij.read_official(VIOLENT), ValueError, r"missing column\(s\) 'Gender'"),
    (
        "nij: row count",
        lambda c: nij.read_official(ROOT / "tests/fixtures/nij-official-sample.csv", expected_rows=25835),
        ValueError,
        r"50 data rows, expected 25835",
    ),
    (
        "nij: unknown feature set",
        lambda c: nij.flip_race(pd.DataFrame({"a": [1]}), features="fancy"),
        ValueError,
        r"`features` must be one of \['clean', 'paper'\], got 'fancy'",
    ),
    (
        "nij: not a table",
        lambda c: nij.design_matrix([1, 2]),
        TypeError,
        r"`table` must be a pandas DataFrame",
    ),
    (
        "checksum: wrong sha256",
        lambda c: download.verify_file(c.files["abc.txt"], "0" * 64),
        download.ChecksumError,
        r"checksum mismatch for '.*abc\.txt': expected sha256 0{64}, got sha256 ba7816bf",
    ),
    (
        "checksum: not a digest",
        lambda c: download.verify_file(c.files["abc.txt"], "xyz"),
        ValueError,
        r"`sha256` must be 64 hex digits, got 'xyz'",
    ),
    (
        "checksum: malformed manifest",
        lambda c: download.read_manifest(c.files["manifest_bad"]),
        ValueError,
        r"manifest_bad' line 1: 'deadbeef' is not a sha256 hex digest",
    ),
]


@pytest.mark.parametrize(("case_id", "call", "exc", "match"), LOADERS, ids=[c[0] for c in LOADERS])
def test_loaders_refuse_bad_files(ctx, case_id, call, exc, match):
    _check(case_id, call, ctx, exc, match)


# --------------------------------------------------------------------------------------------------------
# workflow config: schema (parse time) and the cross-references the rule files check
# --------------------------------------------------------------------------------------------------------

CONFIG = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())


def _set(path: str, value: object) -> dict:
    config = copy.deepcopy(CONFIG)
    *parents, key = path.split(".")
    node = config
    for parent in parents:
        node = node[parent]
    node[key] = value
    return config


SCHEMA_CASES = [
    ("unknown key", _set("nij.colour", "blue"), r"'colour' was unexpected"),
    ("unknown preset key", _set("compas.presets.propublica_violent.colour", 1), r"'colour' was unexpected"),
    ("unknown model", _set("nij.models", ["lr", "svm"]), r"'svm' is not one of"),
    ("unknown model preset", _set("nij.presets", ["fancy"]), r"'fancy' is not one of"),
    ("negative seed", _set("seed", -1), r"instance\['seed'\]"),
    ("chunk size 0", _set("nij.chunk_size", 0), r"instance\['nij'\]\['chunk_size'\]"),
    ("one split", _set("nij.n_splits", 1), r"instance\['nij'\]\['n_splits'\]"),
    ("favourable label 2", _set("nij.favorable", 2), r"instance\['nij'\]\['favorable'\]"),
    ("alpha 0", _set("nij.alpha", 0), r"instance\['nij'\]\['alpha'\]"),
    ("one calibration bin", _set("nij.calibration_bins", 1), r"instance\['nij'\]\['calibration_bins'\]"),
    ("negative test fold", _set("nij.test_folds", [-1]), r"instance\['nij'\]\['test_folds'\]\[0\]"),
    (
        "unknown grouping column",
        _set("compas.groupings", {"zodiac": ["star_sign"]}),
        r"'star_sign' is not one of",
    ),
    ("preset name with capitals", _set("compas.filters", ["ProPublica"]), r"'ProPublica' does not match"),
    (
        "negative day window",
        _set("compas.presets.propublica_violent.day_window", -5),
        r"instance\['compas'\]\['presets'\]\['propublica_violent'\]\['day_window'\]",
    ),
    ("seed a string", _set("seed", "42"), r"'42' is not of type 'integer'"),
]


@pytest.mark.parametrize(("config", "match"), [c[1:] for c in SCHEMA_CASES], ids=[c[0] for c in SCHEMA_CASES])
def test_config_schema_refuses_with_the_offending_key(config, match):
    from snakemake.utils import validate  # what the Snakefile calls at parse time

    with pytest.raises(Exception, match=match) as info:
        validate(config, str(ROOT / "workflow/schemas/config.schema.yaml"))
    assert "Error validating config file" in str(info.value)


def test_default_config_is_valid():
    from snakemake.utils import validate

    validate(copy.deepcopy(CONFIG), str(ROOT / "workflow/schemas/config.schema.yaml"))


@pytest.mark.parametrize(
    ("config", "match"),
    [
        (_set("compas.filters", ["nonexistent"]), r"config compas\.filters: 'nonexistent' is not a preset"),
        (_set("nij.test_folds", [999]), r"config nij\.test_folds: fold 999 does not exist"),
    ],
    ids=["unknown filter preset", "unknown test fold"],
)
def test_workflow_refuses_names_the_config_does_not_define(tmp_path, config, match):
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(config))
    res = subprocess.run(
        [sys.executable, "-m", "snakemake", "-n", "--configfile", str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert res.returncode != 0
    assert re.search(match, res.stdout + res.stderr), res.stderr[-2000:]


# --------------------------------------------------------------------------------------------------------
# command line: one line on stderr, exit 2, no traceback, nothing written (tests/unit/test_cli.py has more)
# --------------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def audit_files(tmp_path_factory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("cli")
    frame = compas.load_preset(RAW, PRESET).frame[["sex", "race", "y_true", "y_pred"]]
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
