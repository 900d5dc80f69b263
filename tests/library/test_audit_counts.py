"""``fairstats audit`` on counted input: a parquet file or folder (counted by DuckDB) and ``--counts FILE``
give the same tables as the CSV of the same people; bad counts tables and id-like groups are refused with one
line and exit 2, writing nothing."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest

from fairstats.auditing import cli

ARGS = ["--group", "race", "--group", "sex", "--y-true", "y", "--y-pred", "p", "--n-resamples", "99"]
TABLES = ("equal_confusion.csv", "residuals.csv", "tests.csv")


def _people(n=3000, seed=8):
    rng = np.random.default_rng(seed)
    race = rng.choice(["A", "B", "C"], n, p=[0.5, 0.3, 0.2])
    y = rng.integers(0, 2, n)
    p = np.where(rng.random(n) < np.where(race == "A", 0.8, 0.65), y, 1 - y)
    return pd.DataFrame({"race": race, "sex": rng.choice(["F", "M"], n), "y": y, "p": p})


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("inputs")
    people = _people()
    people.to_csv(folder / "people.csv", index=False)
    (folder / "lake" / "day=1").mkdir(parents=True)
    (folder / "lake" / "day=2").mkdir()
    people.iloc[:1000].to_parquet(folder / "lake" / "day=1" / "part-0.parquet")
    people.iloc[1000:].to_parquet(folder / "lake" / "day=2" / "part-0.parquet")
    counts = people.groupby(["race", "sex", "y", "p"]).size().rename("n").reset_index()
    counts.to_csv(folder / "counts.csv", index=False)
    return folder, counts


def _audit(capsys, *argv):
    status = cli.main(["audit", *argv])
    captured = capsys.readouterr()
    return status, captured.err


def test_parquet_folder_and_counts_give_the_csv_tables(inputs, tmp_path, capsys):
    folder, _ = inputs
    runs = {
        "csv": [str(folder / "people.csv")],
        "lake": [str(folder / "lake")],
        "counts": ["--counts", str(folder / "counts.csv")],
    }
    for name, source in runs.items():
        status, err = _audit(capsys, *source, *ARGS, "--out", str(tmp_path / name))
        assert status == 0, err
    for table in TABLES:
        expected = (tmp_path / "csv" / table).read_text()
        assert (tmp_path / "lake" / table).read_text() == expected, table
        assert (tmp_path / "counts" / table).read_text() == expected, table
    assert "3,000 people" in (tmp_path / "counts" / "report.md").read_text()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda c: c.assign(n=c["n"].where(c.index != 2, -3)), r"negative count, -3, on row 3"),
        (lambda c: c.assign(n=c["n"] + 0.5), r"count that is not a whole number, .*\.5, on row 1"),
        (lambda c: c.drop(columns="n"), r"missing column\(s\) \['n'\]"),
        (lambda c: c.drop(columns="sex"), r"--group: column 'sex' not found in bad.csv"),
        (lambda c: c.assign(race="A"), r"column 'race' has a single group 'A'"),
    ],
    ids=["negative", "fraction", "no-n", "no-group-column", "single-group"],
)
def test_bad_counts_are_one_line_exit_2_and_write_nothing(inputs, tmp_path, capsys, change, message):
    _, counts = inputs
    path = tmp_path / "bad.csv"
    change(counts).to_csv(path, index=False)
    status, err = _audit(capsys, "--counts", str(path), *ARGS, "--out", str(tmp_path / "out"))
    assert status == 2
    assert len(err.strip().splitlines()) == 1
    assert re.search(message, err), err
    assert not (tmp_path / "out").exists()


def test_counts_and_rows_together_or_with_fold_are_refused(inputs, tmp_path, capsys):
    folder, _ = inputs
    status, err = _audit(
        capsys, str(folder / "people.csv"), "--counts", str(folder / "counts.csv"), *ARGS, "--out", "x"
    )
    assert status == 2 and "either PREDICTIONS" in err
    status, err = _audit(capsys, "--counts", str(folder / "counts.csv"), *ARGS, "--fold", "f", "--out", "x")
    assert status == 2 and "--counts: --fold needs one row per person" in err


@pytest.mark.parametrize("suffix", ["parquet", "csv"])  # counted by DuckDB, or read as rows
def test_id_like_group_column_is_refused(tmp_path, capsys, suffix):
    rng = np.random.default_rng(1)
    n = 2500
    frame = pd.DataFrame(
        {"person": np.arange(n), "y": rng.integers(0, 2, n), "p": rng.integers(0, 2, n)}
    )
    path = tmp_path / f"ids.{suffix}"
    frame.to_parquet(path) if suffix == "parquet" else frame.to_csv(path, index=False)
    status, err = _audit(
        capsys, str(path), "--group", "person", "--y-true", "y", "--y-pred", "p",
        "--out", str(tmp_path / "out"),
    )
    assert status == 2
    assert "column 'person' looks like an identifier, not a group: 2,500 groups, 2,500 of them" in err
    assert not (tmp_path / "out").exists()


def test_groups_of_two_and_fine_intersections_are_refused_up_front(tmp_path, capsys):
    # 50,000 groups of 2 people (issue 37: ran for over a minute without a word): one line naming the column
    # and its groups, exit 2, nothing written; an intersection of two fine columns likewise; a grouping of
    # many groups of 10 (bench audit_scale: 2,000 groups of 10) is audited
    import fairstats
    from fairstats.auditing import AuditError

    n = 100_000
    rng = np.random.default_rng(2)
    frame = pd.DataFrame({"pair": np.arange(n) // 2, "y": rng.integers(0, 2, n), "p": rng.integers(0, 2, n)})
    path = tmp_path / "pairs.csv"
    frame.to_csv(path, index=False)
    status, err = _audit(capsys, str(path), "--group", "pair", "--y-true", "y", "--y-pred", "p",
                         "--out", str(tmp_path / "out"))  # fmt: skip
    assert status == 2 and not (tmp_path / "out").exists()
    line = [x for x in err.splitlines() if "--group" in x]
    assert len(line) == 1
    assert "column 'pair' looks like an identifier, not a group: 50,000 groups, 50,000 of them with fewer " \
        "than 10 people" in line[0]
    i = np.arange(20_000)  # 1,000 zip codes of 20 people, 20 ages of 1,000: each column is audited
    fine = pd.DataFrame({"zip": i % 1000, "age": (i // 1000) % 20, "y": rng.integers(0, 2, i.size),
                         "p": rng.integers(0, 2, i.size)})  # fmt: skip
    with pytest.raises(AuditError, match=r"the intersection 'zip x age' has groups too small to compare: "
                                         r"20,000 groups, 20,000 of them"):  # fmt: skip
        fairstats.audit(fine, group=["zip", "age"], y_true="y", y_pred="p", n_resamples=99)
    from fairstats.auditing.grouping import Grouping, _too_many_groups_iv

    tens = pd.DataFrame({"g": np.arange(20_000) // 10})
    _too_many_groups_iv(tens, None, Grouping(("g",)))  # 2,000 groups of 10: audited


def test_many_groups_give_outcome_tests_numbers_and_a_bounded_report(tmp_path, capsys):
    # The audit validates a grouping once and swaps each group's mask in (issue 14: cost linear in the
    # groups); each comparison must still be outcome_tests on that group's and the reference's rows with the
    # audit's seed stream. 230 groups: the report lists at most 200 items, the CSV has every comparison.
    from fairstats import UndefinedTestWarning, outcome_tests
    from fairstats.auditing import tables as audit

    rng = np.random.default_rng(5)
    sizes = rng.integers(3, 12, 230)
    sizes[17] = 40  # the reference
    group = np.repeat([f"g{i:03d}" for i in range(230)], sizes)
    y = rng.integers(0, 2, group.size)
    frame = pd.DataFrame({"group": group, "y": y, "p": np.where(rng.random(group.size) < 0.7, y, 1 - y)})
    frame.to_csv(tmp_path / "many.csv", index=False)
    out = tmp_path / "out"
    status, err = _audit(
        capsys, str(tmp_path / "many.csv"), "--group", "group", "--y-true", "y", "--y-pred", "p",
        "--n-resamples", "99", "--seed", "3", "--out", str(out),
    )
    assert status == 0, err
    tests = pd.read_csv(out / "tests.csv", keep_default_na=False, na_values=[""])
    assert len(tests) == 229 * 7 and set(tests["reference"]) == {"g017"}
    columns = ["estimate", "ci_low", "ci_high", "pvalue", "equivalence_pvalue", "mde"]
    for g in ("g000", "g123", "g229"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedTestWarning)  # tiny groups: some tests are undefined
            res = outcome_tests(
                frame[frame["group"].isin([g, "g017"])], group="group", y_true="y", y_pred="p",
                groups=(g, "g017"), tests=list(audit.AUDIT_TESTS), n_resamples=99,
                rng=audit.task_rng(3, "bootstrap", "group", g), warn=False,
            ).table
        ours = tests[tests["group"] == g]
        np.testing.assert_array_equal(ours[columns].to_numpy(float), res[columns].to_numpy(float))
    report = (out / "report.md").read_text(encoding="utf-8")
    assert "… and 30 more groups of " in report
    assert "… and 1,403 more comparisons (shown: the 200 with the smallest adjusted p-values" in report
    table = report.split("### Comparisons with `g017`")[1].split("… and 1,403 more")[0]
    assert sum(line.startswith("| `g") for line in table.splitlines()) == 200
