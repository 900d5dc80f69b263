"""fairstats.Counts: the tests give the same answers on counts and on pandas, polars, pyarrow, DuckDB frames.

Reference values are the pandas results of the same functions on the same rows (today's path); equal to
floating-point precision (``rtol=1e-12``). Spark is in test_engines_spark.py (one session for its module).
"""

import duckdb
import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pyarrow.dataset as ds
import pytest

import fairstats as fs
from fairstats.bootstrap import _cell_sums, _compress, _metric_values


def _people(n=1500, seed=3):
    rng = np.random.default_rng(seed)
    g = rng.choice(["a", "b", "c"], n, p=[0.5, 0.3, 0.2])
    y = rng.integers(0, 2, n)
    p = np.where(rng.random(n) < np.where(g == "a", 0.75, 0.6), y, 1 - y)
    return pd.DataFrame(
        {
            "g": g,
            "s": rng.choice(["F", "M"], n),
            "y": y,
            "p": p,
            "score": rng.integers(0, 11, n) / 10,  # a decile-like score: few distinct values
        }
    )


PEOPLE = _people()
ENGINES = {
    "polars": pl.from_pandas,
    "polars-lazy": lambda df: pl.from_pandas(df).lazy(),
    "pyarrow": pa.Table.from_pandas,
    "pyarrow-dataset": lambda df: ds.dataset(pa.Table.from_pandas(df)),
    "duckdb": lambda df: duckdb.connect().from_arrow(pa.Table.from_pandas(df)),
    "counts": lambda df: fs.Counts.from_frame(df, columns=["g", "s", "y", "p", "score"]),
}


def _close(a, b):
    np.testing.assert_allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float), rtol=1e-12, atol=0)


@pytest.mark.parametrize("engine", list(ENGINES))
def test_equal_confusion_test_is_the_same_on_every_engine(engine):
    data = ENGINES[engine](PEOPLE)
    kwargs = dict(y_true="y", y_pred="p", permutation="always", rng=5)
    for group in ("g", ["g", "s"]):
        ours = fs.equal_confusion_test(data, group=group, **kwargs)
        ref = fs.equal_confusion_test(PEOPLE, group=group, **kwargs)
        pd.testing.assert_frame_equal(ours.observed, ref.observed)
        _close(
            [ours.statistic, ours.pvalue, ours.cramers_v, ours.pvalue_permutation],
            [ref.statistic, ref.pvalue, ref.cramers_v, ref.pvalue_permutation],
        )
        pd.testing.assert_frame_equal(ours.to_frame(), ref.to_frame())


@pytest.mark.parametrize("engine", list(ENGINES))
def test_bootstraps_and_outcome_tests_are_the_same_on_every_engine(engine):
    data = ENGINES[engine](PEOPLE)
    v = fs.bootstrap_cramers_v(data, group="g", y_true="y", y_pred="p", n_resamples=499, rng=2)
    v_ref = fs.bootstrap_cramers_v(PEOPLE, group="g", y_true="y", y_pred="p", n_resamples=499, rng=2)
    _close([v.statistic, v.ci_low, v.ci_high], [v_ref.statistic, v_ref.ci_low, v_ref.ci_high])
    kwargs = dict(group="g", y_true="y", y_pred="p", groups=("b", "a"), n_resamples=499, rng=7)
    ours = fs.outcome_tests(data, y_score="score", **kwargs)
    ref = fs.outcome_tests(PEOPLE, y_score="score", **kwargs)
    numeric = ["estimate", "ci_low", "ci_high", "value_a", "value_b", "nobs_a", "statistic", "pvalue"]
    _close(ours.table[numeric].to_numpy(), ref.table[numeric].to_numpy())
    assert ours.table["metric"].tolist() == ref.table["metric"].tolist()
    np.testing.assert_array_equal(ours.bootstrap.bootstrap_distribution, ref.bootstrap.bootstrap_distribution)


def test_counts_table_sums_people_and_select_merges_keys():
    counts = fs.Counts.from_frame(PEOPLE, columns=["g", "y", "p"])
    assert counts.n == len(PEOPLE)
    assert list(counts.table.columns) == ["g", "y", "p", "n"]
    by_group = counts.select(["g"]).table.set_index("g")["n"]
    assert by_group.to_dict() == PEOPLE["g"].value_counts().to_dict()
    with pytest.raises(ValueError, match=r"missing column\(s\) \['s'\]"):
        counts.select(["s"])


def test_counts_from_parquet_folder_equals_the_frame(tmp_path):
    folder = tmp_path / "lake"
    (folder / "part=1").mkdir(parents=True)
    (folder / "part=2").mkdir()
    PEOPLE.iloc[:700].to_parquet(folder / "part=1" / "a.parquet")
    PEOPLE.iloc[700:].to_parquet(folder / "part=2" / "b.parquet")
    ours = fs.Counts.from_parquet(folder, columns=["g", "y", "p"])
    ref = fs.Counts.from_frame(PEOPLE, columns=["g", "y", "p"])
    pd.testing.assert_frame_equal(ours.table, ref.table)
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match="holds no .parquet files"):
        fs.Counts.from_parquet(tmp_path / "empty", columns=["g"])


def test_missing_values_are_refused_on_every_engine():
    bad = PEOPLE.assign(y=PEOPLE["y"].astype(float))
    bad.loc[[3, 9], "y"] = np.nan
    for make in (lambda d: d, pl.from_pandas, pa.Table.from_pandas):
        with pytest.raises(ValueError, match=r"column 'y' has 2 missing value"):
            fs.equal_confusion_test(make(bad), group="g", y_true="y", y_pred="p")


def test_from_table_refuses_bad_counts():
    good = pd.DataFrame({"g": ["a", "a", "b", "b"], "y": [1, 0, 1, 0], "p": [1, 0, 0, 0], "n": [3, 4, 5, 6]})
    keys = ["g", "y", "p"]
    assert fs.Counts.from_table(good, keys=keys).n == 18
    with pytest.raises(ValueError, match=r"column 'n' has a negative count, -1, on row 2"):
        fs.Counts.from_table(good.assign(n=[3, -1, 5, 6]), keys=keys)
    with pytest.raises(ValueError, match=r"not a whole number, 2.5, on row 3"):
        fs.Counts.from_table(good.assign(n=[3, 4, 2.5, 6]), keys=keys)
    with pytest.raises(ValueError, match=r"missing column\(s\) \['n'\]"):
        fs.Counts.from_table(good.drop(columns="n"), keys=keys)
    with pytest.raises(ValueError, match="must hold whole numbers"):
        fs.Counts.from_table(good.assign(n=list("abcd")), keys=keys)
    with pytest.raises(ValueError, match="counts no people"):
        fs.Counts.from_table(good.assign(n=0), keys=keys)


def test_counts_refuse_what_is_not_a_frame():
    with pytest.raises(TypeError, match="must be a data frame"):
        fs.equal_confusion_test([[1, 2]], group="g", y_true="y", y_pred="p")


def test_multinomial_count_bootstrap_matches_a_row_bootstrap():
    """The count bootstrap draws Multinomial(n_g, c_gu / n_g) per group; drawing the group's people with
    replacement gives the same distribution. Compared on small data: 40 000 resamples each, the two
    bootstrap distributions of the TPR difference agree in mean and SD within Monte-Carlo error (5 SE) and
    their 2.5%, 50% and 97.5% quantiles within one step of the discrete grid."""
    rng = np.random.default_rng(11)
    cell_a = np.array([0] * 9 + [1] * 4 + [2] * 3 + [3] * 8)  # tp, fp, fn, tn
    cell_b = np.array([0] * 5 + [1] * 2 + [2] * 6 + [3] * 7)
    b = 40_000
    metrics = ["tpr"]

    def row_boot(cell):
        drawn = cell[rng.integers(0, cell.size, size=(b, cell.size))]
        counts = np.stack([(drawn == k).sum(axis=1) for k in range(4)], axis=1).astype(float)
        return _metric_values(counts, np.zeros((b, 2)), metrics)[:, 0]

    rows = row_boot(cell_a) - row_boot(cell_b)
    res = fs.bootstrap_disparity(
        pd.DataFrame(
            {
                "g": ["a"] * cell_a.size + ["b"] * cell_b.size,
                "y": np.isin(np.r_[cell_a, cell_b], (0, 2)).astype(int),
                "p": np.isin(np.r_[cell_a, cell_b], (0, 1)).astype(int),
            }
        ),
        group="g", y_true="y", y_pred="p", metrics=metrics, n_resamples=b, rng=12, warn=False,
    )
    counted = res.bootstrap_distribution[:, 0]
    rows, counted = rows[np.isfinite(rows)], counted[np.isfinite(counted)]
    se = np.sqrt(rows.var() / rows.size + counted.var() / counted.size)
    assert abs(rows.mean() - counted.mean()) < 5 * se
    assert abs(rows.std() - counted.std()) < 0.02 * rows.std()
    step = 1 / 12 / 11  # grid of differences of TPRs with denominators 12 (a: tp + fn) and 11 (b)
    for q in (0.025, 0.5, 0.975):
        assert abs(np.quantile(rows, q) - np.quantile(counted, q)) <= step + 1e-12
    # and the categories the count bootstrap resamples are the groups' counts
    sample = _compress(cell_a, None)
    assert sample.count.tolist() == [9, 4, 3, 8]
    counts, _ = _cell_sums(sample.count.astype(float), sample)
    assert counts.tolist() == [9.0, 4.0, 3.0, 8.0]


@pytest.mark.parametrize(
    "counts",
    [
        [2**62, 2**62, 2**62],  # sums past 2**63: int64 would wrap around to a negative total
        [2**53, 0, 1],  # one count past the float64-exact bound
        [2**52, 2**52, 1],  # sum 2**53 + 1: exactly one person too many
        [float(2**64), 1, 1],  # read as a float from a CSV
    ],
)
def test_counts_past_the_exact_bound_are_refused(counts):
    table = pd.DataFrame({"g": ["a", "b", "c"], "n": counts})
    with pytest.raises(ValueError, match=r"adds up to more than 9,007,199,254,740,991 people"):
        fs.Counts.from_table(table, keys=["g"])


def test_counts_up_to_the_bound_are_exact():
    table = pd.DataFrame({"g": ["a", "b"], "n": [2**52, 2**52 - 1]})  # 2**53 - 1 people: the bound itself
    counts = fs.Counts.from_table(table, keys=["g"])
    assert counts.n == 2**53 - 1 == fs.counts.MAX_PEOPLE
    assert counts.table["n"].tolist() == [2**52, 2**52 - 1]
