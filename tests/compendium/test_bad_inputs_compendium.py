"""Bad-input corpus of the compendium: its public entry points refuse bad input with a clear error that names
the problem.

One table of cases per entry point family - the rerun's folds and models, data loaders, checksums, the
workflow config - covering mismatched lengths, unseen folds, truncated and garbage files, wrong checksums,
unknown preset names and out-of-range settings. Each error must be raised by our own code (the innermost
frame is in ``src/compendium`` or the imported ``fairstats``), not by pandas or numpy deep below, with a
message matching the pattern. The library's entry points and the command line:
tests/library/test_bad_inputs.py.
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
from repo_paths import RAW, ROOT

import fairstats
from compendium.data import compas, download, nij
from compendium.paper_b import crossval, models, predictions

PACKAGES = (Path(fairstats.__file__).resolve().parent, ROOT / "src" / "compendium")
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
# the rerun's folds and models
# --------------------------------------------------------------------------------------------------------

RNG = np.random.default_rng(0)
Y = RNG.integers(0, 2, 200)
SCORE = RNG.random(200)
GROUP = np.where(RNG.random(200) < 0.5, "BLACK", "WHITE")

COMPENDIUM: list[tuple[str, Any, type[Exception], str]] = [
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


@pytest.mark.parametrize(("case_id", "call", "exc", "match"), COMPENDIUM, ids=[c[0] for c in COMPENDIUM])
def test_compendium_refuses_bad_input(ctx, case_id, call, exc, match):
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
