"""Every input kind in every task: the same numbers, the same filters and the same errors.

The audit has one input step (:func:`fairstats.auditing.inputs.read`) and one row step for every task, so a
CSV
file, a parquet file or folder, a table of counts, and a pandas, polars (eager and lazy), pyarrow or DuckDB
frame give the same tables, with the same ``where`` filter, and refuse the same bad input with the same
message. (Spark: ``test_engines_spark.py``.)
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import fairstats
from fairstats.auditing import AuditError

pl = pytest.importorskip("polars")  # the [polars] extra, installed by make test (.ci/library-tests.sh)
pa = pytest.importorskip("pyarrow")
duckdb = pytest.importorskip("duckdb")

WHERE = "age > 30"
TASKS = {
    "decisions": {"group": ["sex", "race"], "y_true": "y", "y_pred": "p", "n_resamples": 99},
    "impact_ratios": {"group": ["sex", "race"], "y_pred": "p"},
    "regression": {"group": "race", "y_true": "y_num", "y_pred": "p_num", "n_resamples": 99},
    "comparison": {"group": ["sex", "race"], "y_true": "y", "y_pred": "p", "y_pred_baseline": "p_old"},
}
TABLE = {"decisions": "tests", "impact_ratios": "impact_ratios", "regression": "regression_tests",
         "comparison": "disparity_change"}  # fmt: skip
KINDS = ("pandas", "csv", "parquet", "parquet folder", "counts", "polars", "polars lazy", "pyarrow", "duckdb")


def _people(n: int = 400, seed: int = 11) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    race = rng.choice(["A", "B", "C"], n, p=[0.5, 0.35, 0.15])
    y = rng.integers(0, 2, n)
    p = np.where(rng.random(n) < np.where(race == "A", 0.85, 0.6), y, 1 - y)
    frame = pd.DataFrame({
        "sex": rng.choice(["F", "M"], n), "race": race, "age": rng.integers(18, 80, n), "y": y, "p": p,
        "y_num": (5 * y + rng.normal(0, 1, n)).round(3), "p_num": (5 * p + rng.normal(0, 1, n)).round(3),
    })  # fmt: skip
    # a baseline model that agrees with p for 80 % of people (drawn last: the columns above are unchanged)
    frame["p_old"] = np.where(rng.random(n) < 0.8, p, 1 - p)
    return frame


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> dict[str, object]:
    root = tmp_path_factory.mktemp("inputs")
    frame = _people()
    frame.to_csv(root / "people.csv", index=False)
    frame.to_parquet(root / "people.parquet", index=False)
    (root / "folder").mkdir()
    frame.iloc[:200].to_parquet(root / "folder" / "a.parquet", index=False)
    frame.iloc[200:].to_parquet(root / "folder" / "b.parquet", index=False)
    counted = frame.groupby(["sex", "race", "age", "y", "p", "p_old"]).size().rename("n").reset_index()
    return {
        "pandas": frame, "csv": root / "people.csv", "parquet": root / "people.parquet",
        "parquet folder": root / "folder",
        "counts": fairstats.Counts.from_table(counted, keys=list(counted.columns[:-1])),
        "polars": pl.from_pandas(frame), "polars lazy": pl.from_pandas(frame).lazy(),
        "pyarrow": pa.Table.from_pandas(frame, preserve_index=False),
        "duckdb": duckdb.connect().from_df(frame),
    }  # fmt: skip


def _audit(data, task: str, **extra):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fairstats.audit(data, task=task, **TASKS[task], **extra)


def _numbers(result, task: str) -> pd.DataFrame:
    table = result.tables[TABLE[task]]
    return table.select_dtypes(include="number").reset_index(drop=True)


CASES = [(task, kind) for task in TASKS for kind in KINDS if kind != "pandas"]


@pytest.mark.parametrize("task,kind", CASES, ids=[f"{t}-{k}" for t, k in CASES])
def test_every_input_gives_the_pandas_numbers_with_the_same_filter(task, kind, inputs):
    expected = _audit(inputs["pandas"], task, where=WHERE)
    if task == "regression" and kind == "counts":
        with pytest.raises(AuditError, match="--task regression needs one row per person"):
            _audit(inputs[kind], task, where=WHERE)
        return
    got = _audit(inputs[kind], task, where=WHERE)
    assert got.n == expected.n < len(inputs["pandas"])
    assert [(w, k) for w, k in got.filters] == [(w, k) for w, k in expected.filters]
    pd.testing.assert_frame_equal(_numbers(got, task), _numbers(expected, task), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("task,kind", CASES, ids=[f"{t}-{k}" for t, k in CASES])
def test_every_input_refuses_the_same_bad_input(task, kind, inputs):
    """A misspelt column, a filter that keeps nobody, a filter over a column the input lacks."""
    if task == "regression" and kind == "counts":
        return  # refused for what it is (above), before any column is looked at
    messages = {}
    for name, data in (("pandas", inputs["pandas"]), (kind, inputs[kind])):
        found = []
        for extra in ({"group": "rcae"}, {"where": "age > 1000"}, {"where": "agee > 3"}):
            options = {**TASKS[task], **extra}
            with pytest.raises(AuditError) as err:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    fairstats.audit(data, task=task, **options)
            found.append(str(err.value).replace(str(Path(str(data)).name), "INPUT"))
        messages[name] = found
    for ours, theirs in zip(messages[kind], messages["pandas"], strict=True):
        assert _gist(ours) == _gist(theirs), (ours, theirs)


def _gist(message: str) -> str:
    """A message without the input's name: what it says about the column, value or filter."""
    for prefix in ("the data", "INPUT", "people.csv", "people.parquet", "folder"):
        message = message.replace(prefix, "<input>")
    return message.split("; it has")[0].split("; columns are")[0]
