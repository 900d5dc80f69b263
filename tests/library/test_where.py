"""Row filters (--where): SQL expressions over the input's columns, and nothing else (issue 30)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from fairstats._where import WhereError, check_predicate, where_masks

DATA = pd.DataFrame(
    {
        "days_b_screening_arrest": [-31, -30, 0, 30, 31, np.nan],
        "is_recid": [0, 1, -1, 1, 0, 1],
        "c_charge_degree": ["F", "M", "O", "F", "M", "F"],
        "score_text": ["Low", "High", "N/A", "Medium", None, "Low"],
    }
)


def test_propublica_filter_counts_each_step():
    masks = where_masks(
        DATA,
        [
            "days_b_screening_arrest BETWEEN -30 AND 30",
            "is_recid <> -1",
            "c_charge_degree <> 'O'",
            "score_text <> 'N/A'",
        ],
    )
    assert [m.tolist() for m in masks[:1]] == [[False, True, True, True, False, False]]  # NULL: removed
    assert masks[-1].tolist() == [False, True, False, True, False, False]
    removed = [int((prev & ~m).sum()) for prev, m in zip([np.ones(6, bool), *masks[:-1]], masks, strict=True)]
    assert removed == [3, 1, 0, 0]


@pytest.mark.parametrize(
    "predicate,match",
    [
        ("is_recid > (SELECT 1)", "subquery"),
        ("EXISTS (SELECT * FROM read_csv('/etc/passwd'))", "not allowed"),
        ("is_recid IN (SELECT 1 FROM range(3))", "subquery"),
        ("1=1; DROP TABLE fairstats_input", "one expression only"),
        ("is_recid = 1 UNION SELECT * FROM fairstats_input", "one expression over the input's columns only"),
        ("getenv('HOME') = 'x'", r"function getenv\(\)"),
        ("length(read_text('/etc/passwd')) > 0", r"function read_text\(\)"),
        ("row_number() OVER () > 1", "window"),
        ("is_recid = ?", "parameter"),
        ("is_recd = 1", r"no column 'is_recd' in the input \(did you mean 'is_recid'\?\)"),
        ("is_recid >", "syntax error"),
        ("", "empty predicate"),
    ],
)
def test_refused(predicate, match):
    with pytest.raises(WhereError, match=match):
        check_predicate(predicate, list(DATA.columns))


def test_allowed_expressions():
    used = check_predicate(
        "lower(score_text) IN ('low', 'medium') AND coalesce(is_recid, 0) + 1 >= 1 AND "
        "CASE WHEN c_charge_degree LIKE 'F%' THEN true ELSE false END AND "
        "CAST(is_recid AS INTEGER) IS NOT NULL",
        list(DATA.columns),
    )
    assert used == {"score_text", "is_recid", "c_charge_degree"}


def test_a_type_error_names_the_predicate():
    with pytest.raises(WhereError, match=r"the input: --where 'score_text > 5': Binder Error: Cannot"):
        where_masks(DATA, ["score_text > 5"])


def test_no_file_access_even_through_an_allowed_looking_expression(tmp_path):
    secret = tmp_path / "secret.csv"
    secret.write_text("a\n1\n")
    with pytest.raises(WhereError):
        where_masks(DATA, [f"is_recid IN (SELECT a FROM '{secret}')"])
