"""A CSV file is counted as it is read (issue 30, item 5): pyarrow reads the audit's columns, the distinct
combinations are counted once, and the audit runs on the counts. The same people give the same tables
whichever reader brought them (CSV counted, CSV read by pandas, parquet counted by DuckDB, a pandas frame
given to ``fairstats.audit``), and a message about a bad value still names the physical line of its first
record."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest

import fairstats
from fairstats.auditing.counting import count_rows
from fairstats.auditing.errors import AuditError
from fairstats.auditing.inputs import Input, Source, read
from fairstats.auditing.options import AuditOptions
from fairstats.auditing.records import LINES
from fairstats.auditing.result import run

OPTIONS = AuditOptions(groups=("race", "sex"), y_true="y", y_pred="p", n_resamples=99)
TABLES = ("equal_confusion", "residuals", "tests")


def _people(n=2000, seed=30):
    rng = np.random.default_rng(seed)
    race = rng.choice(["A", "B", "C"], n, p=[0.5, 0.3, 0.2])
    y = rng.integers(0, 2, n)
    p = np.where(rng.random(n) < np.where(race == "A", 0.8, 0.65), y, 1 - y)
    return pd.DataFrame(
        {"id": np.arange(n), "race": race, "age": rng.integers(18, 80, n), "sex": rng.choice(["F", "M"], n),
         "y": y, "p": p}
    )  # fmt: skip


def _read(path, options):
    found = read(path, options)
    return found.rows, found.weight


def _finish(data, weight, options, source):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return run(Input(data, weight, source), options)


@pytest.fixture(scope="module")
def people_csv(tmp_path_factory):
    path = tmp_path_factory.mktemp("csv") / "people.csv"
    _people().to_csv(path, index=False)
    return path


def test_a_csv_file_is_counted_as_it_is_read(people_csv):
    data, weight = _read(people_csv, OPTIONS)
    people = _people()
    assert weight is not None and int(weight.sum()) == len(people)
    assert list(data.columns) == ["race", "sex", "y", "p"]  # only the columns the audit reads
    expected = people.groupby(["race", "sex", "y", "p"]).size()
    got = pd.Series(weight, index=pd.MultiIndex.from_frame(data)).sort_index()
    assert got.to_dict() == expected.to_dict()
    # each combination is its first row, in the order of first occurrence, and knows which record that is
    first = people.drop_duplicates(["race", "sex", "y", "p"])[["race", "sex", "y", "p"]]
    assert data.astype(str).values.tolist() == first.astype(str).values.tolist()
    assert data.attrs[LINES].records.tolist() == first.index.tolist()


def test_every_reader_gives_the_same_tables(people_csv, tmp_path):
    people = _people()
    parquet = tmp_path / "people.parquet"
    people.to_parquet(parquet)
    audits = {
        "csv counted": _finish(*_read(people_csv, OPTIONS), OPTIONS, Source.of_file(people_csv)),
        "csv rows (pandas)": _finish(*_read(people_csv, OPTIONS), OPTIONS, Source.of_file(people_csv)),
        "parquet (DuckDB)": _finish(*_read(parquet, OPTIONS), OPTIONS, Source.of_file(parquet)),
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        audits["pandas frame"] = fairstats.audit(
            people, group=["race", "sex"], y_true="y", y_pred="p", n_resamples=99
        )
    reference = audits.pop("csv counted")
    for name, other in audits.items():
        for table in TABLES:
            expected = getattr(reference, table)
            pd.testing.assert_frame_equal(getattr(other, table), expected, obj=f"{name} {table}")


def test_counted_estimates_equal_the_library_on_rows(people_csv):
    """the audit's equal confusion test and rates on counts equal the library's on the rows (1e-12)"""
    audit = _finish(*_read(people_csv, OPTIONS), OPTIONS, Source.of_file(people_csv))
    rows = _people()
    ours = audit.equal_confusion.set_index("grouping").loc["race"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = fairstats.equal_confusion_test(rows, group="race", y_true="y", y_pred="p")
    assert ours["statistic"] == pytest.approx(ref.statistic, rel=1e-12)
    assert ours["pvalue"] == pytest.approx(ref.pvalue, rel=1e-12, abs=1e-300)
    tpr = audit.tests.query("grouping == 'race' and metric == 'tpr' and group == 'B'").iloc[0]
    b = rows[(rows.race == "B") & (rows.y == 1)]
    assert tpr["value_group"] == pytest.approx(b.p.mean(), rel=1e-12)


def _csv(tmp_path, text, name="bad.csv"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8", newline="")
    return path


def _message(path, options=OPTIONS):
    data, weight = _read(path, options)
    with pytest.raises(AuditError) as caught:
        _finish(data, weight, options, Source.of_file(path))
    return str(caught.value)


def test_a_bad_label_is_named_by_the_line_of_its_first_record(tmp_path):
    rows = ["race,sex,y,p"] + ["A,F,1,0", "B,M,0,1"] * 5 + ["B,M,0,2", "A,F,1,0", "C,F,0,2"]
    message = _message(_csv(tmp_path, "\n".join(rows) + "\n"))
    assert re.search(r"--y-pred: column 'p' has label '2' \(on line 12 of bad\.csv\)", message), message


def test_the_line_counts_quoted_line_breaks_and_follows_where(tmp_path):
    rows = (["race,sex,y,p,note", 'A,F,1,0,"two\nlines"'] + ["A,F,1,0,x", "B,M,0,1,x"] * 3
            + ["B,M,0,1,drop", "C,M,1,2,x"])  # fmt: skip
    path = _csv(tmp_path, "\n".join(rows) + "\n")
    # header line 1, the first record on lines 2-3, so the record "C,M,1,2" is on line 11
    assert "on line 11 of bad.csv" in _message(path)
    options = AuditOptions(groups=("race", "sex"), y_true="y", y_pred="p", n_resamples=99,
                           where=("note <> 'drop'",))  # fmt: skip
    assert "on line 11 of bad.csv" in _message(path, options)


def test_missing_values_count_people_not_combinations(tmp_path):
    rows = ["race,sex,y,p"] + ["A,F,1,0", "B,M,0,1"] * 5 + ["B,M,,1"] * 4
    message = _message(_csv(tmp_path, "\n".join(rows) + "\n"))
    assert "column 'y' has 4 missing value(s) (NaN), first on line 12 of bad.csv" in message, message


def test_whitespace_variants_are_warned_with_their_people(tmp_path):
    rows = ["race,sex,y,p"] + ["A,F,1,0", "B,M,0,1"] * 5 + ["A ,M,0,1"] * 3
    path = _csv(tmp_path, "\n".join(rows) + "\n")
    data, weight = _read(path, OPTIONS)
    audit = _finish(data, weight, OPTIONS, Source.of_file(path))
    assert any("'A' (5)" in w and "'A ' (3)" in w for w in audit.warnings), audit.warnings


def test_a_file_pyarrow_refuses_is_read_by_pandas(tmp_path):
    """a short last row: pandas fills it with missing values and the audit names them, as before counting"""
    rows = ["race,sex,y,p"] + ["A,F,1,0", "B,M,0,1"] * 5 + ["B,M"]
    path = _csv(tmp_path, "\n".join(rows) + "\n")
    data, weight = _read(path, OPTIONS)
    assert weight is None and len(data) == 11  # the rows, as pandas read them
    assert "first on line 12 of bad.csv" in _message(path)


@pytest.mark.parametrize(
    ("columns", "values"), [(2, 100), (3, 1000), (8, 1000)],
    ids=["bincount", "factorize", "re-coded-before-overflow"],
)
def test_count_rows_equals_a_group_by(columns, values):
    """few possible combinations (counted by bincount), many (numbered by factorize), and eight columns of a
    thousand values each (whose product of sizes would overflow int64), missing values as a value: the
    counts and first rows of a group-by"""
    rng = np.random.default_rng(5)
    n = 5000
    frame = pd.DataFrame({f"c{j}": rng.integers(0, values, n).astype(float) for j in range(columns)})
    frame.loc[rng.random(n) < 0.05, "c0"] = np.nan
    frame["c1"] = frame["c1"].astype(int).astype(str)
    combos, people = count_rows(frame, list(frame.columns))
    expected = frame.groupby(list(frame.columns), dropna=False, sort=False).size()
    assert int(people.sum()) == n and len(combos) == len(expected)
    firsts = frame.drop_duplicates()
    assert combos.attrs[LINES].records.tolist() == firsts.index.tolist()
    pd.testing.assert_frame_equal(combos, firsts.reset_index(drop=True))
    assert people.tolist() == expected.to_numpy().tolist()
