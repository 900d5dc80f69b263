"""The same tests on a Spark DataFrame (PySpark in local mode) as on pandas: the GROUP BY runs in Spark.

One Spark session for the module (starting the JVM is most of the time). Needs Java: `make test` installs
Debian's openjdk-17-jre-headless when missing (.ci/ensure-java.sh). The code is the one docs/at-scale.md shows
for a cluster, with ``master`` changed. Reference: the pandas results on the same rows.
"""

import numpy as np
import pandas as pd
import pytest
from pyspark.sql import SparkSession  # the `spark` extra: part of the test environment (make env)

import fairstats as fs

# PySpark 4.3 notes that it does not yet fully support pandas 3 when it converts frames; the results are
# compared with pandas' below.
pytestmark = pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning")


@pytest.fixture(scope="module")
def spark():
    session = (
        SparkSession.builder.master("local[1]")
        .appName("fairstats-test")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .getOrCreate()
    )
    yield session
    session.stop()


def _people(n=2000, seed=4):
    rng = np.random.default_rng(seed)
    g = rng.choice(["a", "b", "c"], n, p=[0.5, 0.3, 0.2])
    y = rng.integers(0, 2, n)
    p = np.where(rng.random(n) < np.where(g == "a", 0.75, 0.6), y, 1 - y)
    return pd.DataFrame({"g": g, "y": y.astype(np.int64), "p": p.astype(np.int64)})


def test_spark_frame_gives_the_pandas_answers(spark):
    people = _people()
    frame = spark.createDataFrame(people)
    ours = fs.equal_confusion_test(frame, group="g", y_true="y", y_pred="p", rng=1)
    ref = fs.equal_confusion_test(people, group="g", y_true="y", y_pred="p", rng=1)
    pd.testing.assert_frame_equal(ours.to_frame(), ref.to_frame())
    kwargs = dict(group="g", y_true="y", y_pred="p", groups=("c", "a"), n_resamples=299, rng=3)
    table = fs.outcome_tests(frame, **kwargs).table
    expected = fs.outcome_tests(people, **kwargs).table
    numeric = ["estimate", "ci_low", "ci_high", "statistic", "pvalue"]
    np.testing.assert_allclose(table[numeric].to_numpy(float), expected[numeric].to_numpy(float), rtol=1e-12)
    counts = fs.Counts.from_frame(frame, columns=["g", "y", "p"])
    assert counts.n == len(people)


@pytest.mark.parametrize("task", ["decisions", "impact_ratios", "regression", "comparison"])
def test_every_audit_task_on_a_spark_frame_gives_the_pandas_tables(spark, task):
    """The audit's one input step on Spark: counted (or, for a regression, its columns collected) in Spark,
    filtered by the same ``where``, the same numbers as on pandas."""
    people = _people().assign(age=np.arange(2000) % 60 + 18, y_num=lambda d: d["y"] * 3.0 + d.index % 7,
                              p_num=lambda d: d["p"] * 3.0 + d.index % 5,
                              p_old=lambda d: np.where(d.index % 9 == 0, 1 - d["p"], d["p"]))  # fmt: skip
    frame = spark.createDataFrame(people)
    options = {
        "decisions": dict(group="g", y_true="y", y_pred="p", n_resamples=199),
        "impact_ratios": dict(group="g", y_pred="p"),
        "regression": dict(group="g", y_true="y_num", y_pred="p_num", n_resamples=199),
        "comparison": dict(group="g", y_true="y", y_pred="p", y_pred_baseline="p_old"),
    }[task]
    ours = fs.audit(frame, task=task, where="age > 30", **options)
    ref = fs.audit(people, task=task, where="age > 30", **options)
    assert ours.n == ref.n < len(people) and ours.filters == ref.filters
    for name, table in ref.tables.items():
        numeric = table.select_dtypes(include="number").columns
        np.testing.assert_allclose(ours.tables[name][numeric].to_numpy(float), table[numeric].to_numpy(float),
                                   rtol=1e-12, equal_nan=True)  # fmt: skip
