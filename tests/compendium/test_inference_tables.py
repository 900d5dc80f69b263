"""The inference stage's tables (issue 6, issue 26) rebuilt byte for byte by their workflow scripts, run as
Snakemake runs them, from committed inputs: the thin scripts inference_battery, inference_compas,
inference_nij and score_tests over compendium.paper_b.battery_multiplicity, .compas_outcomes,
.nij_equal_confusion and .score_audit, with config/config.yaml's parameters as the rules pass them
(workflow/rules/inference.smk). The filtered COMPAS people and the NIJ table are rebuilt from the vendored raw
data; the NIJ predictions and the batteries are the committed ones."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from repo_paths import CONFIG, RAW, ROOT

from compendium.data.compas import load_preset
from compendium.data.nij import read_paper_folds
from compendium.paper_b.battery_multiplicity import adjust_battery, with_hypotheses
from compendium.paper_b.compas_outcomes import paper_b_tails
from compendium.paper_b.nij_equal_confusion import audit_predictions, with_gender
from compendium.paper_b.score_audit import N_STREAMS, score_test_tables
from compendium.publish.blas import pin_openblas_coretype

SCRIPTS = ROOT / "workflow" / "scripts"
RESULTS = ROOT / "results" / "default"
INFERENCE = RESULTS / "inference"
#: The rule audit_nij_predictions' metrics (workflow/rules/inference.smk, INFERENCE_METRICS).
INFERENCE_METRICS = ["ppr", "tpr", "fpr", "fnr", "ppv", "npv", "accuracy", "fn_fp_ratio"]
#: The thread counts Snakemake sets to a job's threads (1 for every rule here).
THREADS = (
    "OMP_NUM_THREADS",
    "GOTO_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
    "NUMEXPR_NUM_THREADS",
)
DRIVER = """\
import runpy, sys, types
class Files(dict):
    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None
script, log, input, output, params, wildcards = eval(sys.argv[1])
sm = types.SimpleNamespace(input=Files(input), output=Files(output), params=Files(params),
                           wildcards=types.SimpleNamespace(**wildcards), log=[log])
runpy.run_path(script, init_globals={"snakemake": sm})
"""


@pytest.fixture(scope="module")
def config():
    return yaml.safe_load(CONFIG.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def environ(config):
    """The jobs' environment as the workflow sets it: OpenBLAS pinned to the config's kernels, which the
    committed numbers were made with (their last bits move with the kernels; compendium.publish.blas), and
    one thread, as Snakemake gives a job of one thread (a threaded BLAS sums in another order)."""
    env = dict(os.environ)
    env.update(dict.fromkeys(THREADS, "1"))
    coretype, note = pin_openblas_coretype(config.get("openblas_coretype", "Haswell"), environ=env)
    if coretype is None:
        pytest.skip(f"the committed tables' kernels cannot run here: {note}")
    return env


@pytest.fixture(scope="module")
def compas_data(config, tmp_path_factory):
    """The filtered COMPAS people of the inference stage's filter, as rule filter_compas writes them."""
    path = tmp_path_factory.mktemp("compas") / "propublica_violent.parquet"
    load_preset(RAW, config["compas"]["presets"]["propublica_violent"]).frame.to_parquet(path, index=False)
    return path


def _rebuild(
    environ, tmp_path: Path, script: str, *, input: dict, committed: dict, params: dict, wildcards: dict
):
    """Run ``script`` with its outputs in ``tmp_path``; return the names of the outputs whose bytes differ
    from the ``committed`` files (name -> path)."""
    output = {name: str(tmp_path / Path(path).name) for name, path in committed.items()}
    log = str(tmp_path / "script.log")
    args = repr((str(SCRIPTS / script), log, input, output, params, wildcards))
    res = subprocess.run(
        [sys.executable, "-c", DRIVER, args],
        cwd=ROOT,
        env=environ,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert res.returncode == 0, res.stderr[-3000:]
    return [
        name for name, path in committed.items() if Path(output[name]).read_bytes() != Path(path).read_bytes()
    ]


def _tables(folder: Path, **names: str) -> dict[str, str]:
    """Output name -> committed path, each table with its Markdown (``<name>_md``)."""
    out = {}
    for name, stem in names.items():
        out[name] = str(folder / f"{stem}.csv")
        out[f"{name}_md"] = str(folder / f"{stem}.md")
    return out


@pytest.mark.parametrize("source", ["authors", "paper", "clean"])
def test_adjust_battery_rebuilds_the_committed_tables(config, environ, tmp_path, source):
    battery = RESULTS / "nij" / source / "tables" / "battery.csv"
    committed = _tables(
        INFERENCE / "nij" / source / "tables",
        adjusted="battery_adjusted",
        verdicts="verdicts",
        verdicts_model="verdicts_per_model",
    )
    assert not _rebuild(
        environ,
        tmp_path,
        "inference_battery.py",
        input={"battery": str(battery)},
        committed=committed,
        params={"alpha": config["inference"]["alpha"]},
        wildcards={"source": source},
    )


def test_compas_outcomes_rebuild_the_committed_tables(config, environ, compas_data, tmp_path):
    inference = config["inference"]
    params = {
        "groupings": config["compas"]["groupings"],
        "groups": inference["compas_groups"],
        "favorable": config["nij"]["favorable"],
        "alpha": config["nij"]["alpha"],
        "n_resamples": inference["n_resamples"],
        "confidence_level": inference["confidence_level"],
        "seed": config["seed"],
    }
    committed = _tables(
        INFERENCE / "compas" / "propublica_violent" / "tables", tests="outcome_tests", cramers_v="cramers_v"
    )
    assert not _rebuild(
        environ,
        tmp_path,
        "inference_compas.py",
        input={"data": str(compas_data)},
        committed=committed,
        params=params,
        wildcards={"filter": "propublica_violent"},
    )


def _score_params(config, title, groupings):
    inference = config["inference"]
    return {
        "title": title,
        "groupings": groupings,
        "alpha": inference["alpha"],
        "confidence_level": inference["confidence_level"],
        "margin": inference["margin"],
        "n_resamples": inference["score_n_resamples"],
        "seed": config["seed"],
    }


def test_compas_score_tests_rebuild_the_committed_table(config, environ, compas_data, tmp_path):
    params = _score_params(
        config, "COMPAS decile score (predicts two-year recidivism)", config["compas"]["groupings"]
    )
    committed = _tables(INFERENCE / "compas" / "propublica_violent" / "tables", tests="score_tests")
    assert not _rebuild(
        environ,
        tmp_path,
        "score_tests.py",
        input={"data": str(compas_data)},
        committed=committed,
        params=params,
        wildcards={"filter": "propublica_violent"},
    )


@pytest.mark.slow  # about a minute per preset: a spline GLM refit per bootstrap resample, group and model
@pytest.mark.parametrize("preset", ["paper", "clean"])
def test_nij_score_tests_rebuild_the_committed_tables(config, environ, tmp_path, preset):
    params = _score_params(
        config, "Paper B's predicted probabilities of recidivism (out-of-fold, per model)", {"race": ["race"]}
    )
    committed = _tables(
        INFERENCE / "nij" / preset / "tables", tests="score_tests", calibration="score_calibration"
    )
    predictions = RESULTS / "nij" / preset / "predictions" / "predictions.parquet"
    assert not _rebuild(
        environ,
        tmp_path,
        "score_tests.py",
        input={"data": str(predictions)},
        committed=committed,
        params=params,
        wildcards={"preset": preset},
    )


@pytest.fixture(scope="module")
def nij_table(tmp_path_factory):
    """The tidy NIJ table as rule reconstruct_nij writes it (source: the paper's fold files)."""
    path = tmp_path_factory.mktemp("nij") / "table.parquet"
    read_paper_folds(RAW / "nij-paper-folds").to_parquet(path, index=False)
    return path


@pytest.mark.parametrize("preset", ["paper", "clean"])
def test_nij_equal_confusion_rebuilds_the_committed_tables(config, environ, nij_table, tmp_path, preset):
    inference = config["inference"]
    params = {
        "groups": ["WHITE", "BLACK"],
        "metrics": INFERENCE_METRICS,
        "favorable": config["nij"]["favorable"],
        "alpha": inference["alpha"],
        "n_resamples": inference["n_resamples"],
        "confidence_level": inference["confidence_level"],
        "seed": config["seed"],
    }
    committed = _tables(
        INFERENCE / "nij" / preset / "tables",
        equal_confusion="equal_confusion",
        residuals="residuals",
        disparities="disparities",
    )
    predictions = RESULTS / "nij" / preset / "predictions" / "predictions.parquet"
    assert not _rebuild(
        environ,
        tmp_path,
        "inference_nij.py",
        input={"predictions": str(predictions), "table": str(nij_table)},
        committed=committed,
        params=params,
        wildcards={"preset": preset},
    )


def test_repeated_tables_share_the_hypothesis_they_repeat():
    battery = pd.DataFrame(
        {
            "table": ["IV", "VI", "III", "VIII", "XX"],
            "model": ["lr"] * 5,
            "group": [None, None, None, None, "BLACK"],
            "pvalue_corrected": [0.01, 0.01, 0.2, 0.2, np.nan],
            "pvalue": [0.5, 0.5, 0.5, 0.5, 0.03],
            "corrected_test": ["t", "t", "t", "t", "mcnemar"],
        }
    )
    out = with_hypotheses(battery)
    assert list(out["hypothesis"]) == ["IV lr", "IV lr", "III lr", "III lr", "XX lr BLACK"]
    assert list(out["pvalue_correct"]) == [0.01, 0.01, 0.2, 0.2, 0.03]
    assert "pvalue_correct" not in battery  # the input is left as it was


def test_a_repeated_test_counts_once_in_its_holm_family():
    battery = pd.DataFrame(
        {
            "table": ["IV", "VI", "V"],
            "model": ["lr", "lr", "lr"],
            "test": ["t"] * 3,
            "pvalue_corrected": [0.02, 0.02, 0.04],
            "significant_paper": [True, True, True],
        }
    )
    adjusted = adjust_battery(battery, alpha=0.05).adjusted
    assert list(adjusted["family_size_holm"]) == [2, 2, 2]
    assert list(adjusted["pvalue_holm"]) == [0.04, 0.04, 0.04]


def test_predictions_of_people_not_in_the_table_are_refused():
    predictions = pd.DataFrame({"ID": [1, 2, 3], "race": ["WHITE", "BLACK", "WHITE"], "model": "lr"})
    people = pd.DataFrame({"ID": [1, 2], "Gender": ["M", "F"]})
    with pytest.raises(
        ValueError, match=r"predictions.parquet: 1 predictions have an ID not in table.parquet"
    ):
        with_gender(predictions, people, source="predictions.parquet", table="table.parquet")
    joined = with_gender(predictions.iloc[:2], people)
    assert list(joined["gender"]) == ["M", "F"]


def test_each_model_and_grouping_of_the_nij_audit_gets_its_rows():
    rng = np.random.default_rng(4)
    n = 400
    frame = pd.DataFrame(
        {
            "model": np.repeat(["lr", "rf"], n // 2),
            "race": rng.choice(["WHITE", "BLACK"], n),
            "gender": rng.choice(["M", "F"], n),
            "y_true": rng.integers(0, 2, n),
            "y_pred": rng.integers(0, 2, n),
        }
    )
    result = audit_predictions(
        frame,
        groups=["WHITE", "BLACK"],
        metrics=["ppr", "fpr"],
        favorable=0,
        alpha=0.05,
        n_resamples=99,
        confidence_level=0.95,
        seed=1,
    )
    assert list(result.equal_confusion[["model", "grouping"]].itertuples(index=False, name=None)) == [
        ("lr", "race"),
        ("lr", "race x gender"),
        ("rf", "race"),
        ("rf", "race x gender"),
    ]
    assert len(result.residuals) == 2 * (2 + 4) * 4  # models x (groups of both groupings) x cells
    assert list(result.disparities.columns[:1]) == ["model"] and len(result.disparities) == 4
    again = audit_predictions(
        frame,
        groups=["WHITE", "BLACK"],
        metrics=["ppr", "fpr"],
        favorable=0,
        alpha=0.05,
        n_resamples=99,
        confidence_level=0.95,
        seed=1,
    )
    pd.testing.assert_frame_equal(result.disparities, again.disparities)


def test_the_balance_tests_are_left_tailed_beside_paper_bs_own_tails():
    tails = paper_b_tails()
    assert tails["mean_score_pos"] == tails["mean_score_neg"] == "less"
    assert set(tails.values()) <= {"less", "greater", "two-sided"}
    assert len(tails) > 2


def test_more_model_and_grouping_pairs_than_streams_are_refused():
    data = pd.DataFrame(
        {"model": [f"m{i}" for i in range(N_STREAMS + 1)], "race": "a", "y_true": 0, "y_score": 0.5}
    )
    with pytest.raises(ValueError, match="random streams"):
        score_test_tables(
            data,
            groupings={"race": ["race"]},
            alpha=0.05,
            confidence_level=0.95,
            margin=0.1,
            n_resamples=0,
            seed=1,
        )
