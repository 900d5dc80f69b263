"""fairstats._csv: one CSV writer; whatever a reader could split on is quoted (issue 29)."""

from __future__ import annotations

import csv
import io

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairstats._csv import csv_text, spreadsheet_safe
from fairstats._text import LINE_BREAKS


def _read(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text, newline="")))


def test_plain_frames_are_written_as_pandas_writes_them():
    frame = pd.DataFrame(
        {"group": ["a", "b,c", 'd"e', "f\ng", "", None], "x": [1.5, np.nan, 3.0, 0.1 + 0.2, -1.0, 2.0],
         "n": [1, 2, 3, 4, 5, 6], "flag": [True, False, True, False, True, False]}
    )  # fmt: skip
    assert csv_text(frame) == spreadsheet_safe(frame).to_csv(index=False, lineterminator="\n")


@pytest.mark.parametrize("breaker", sorted(set(LINE_BREAKS) | {"\r\n"}))
def test_every_line_break_is_quoted(breaker):
    frame = pd.DataFrame({f"col{breaker}name": [f"a{breaker}=HYPERLINK(1)", "b"], "v": [1, 2]})
    records = _read(csv_text(frame))
    assert [len(r) for r in records] == [2, 2, 2]
    assert records[0][0] == f"col{breaker}name"
    assert records[1][0] == f"a{breaker}=HYPERLINK(1)"  # one field: the formula never starts a record
    assert len(csv_text(frame).split("\n")) - 1 >= 3


_VALUES = st.one_of(st.text(max_size=12), st.none(), st.floats(allow_nan=False, allow_infinity=False))


@settings(derandomize=True, max_examples=200, deadline=None)
@given(
    st.lists(st.text(min_size=1, max_size=8), min_size=1, max_size=4, unique=True),
    st.lists(st.text(max_size=12), min_size=1, max_size=6),
)
def test_any_unicode_reads_back_field_for_field(names, values):
    """Arbitrary Unicode column names and values: every record has as many fields as columns, and every value
    reads back exactly (after the spreadsheet prefix that ``spreadsheet_safe`` adds)."""
    frame = pd.DataFrame({name: values for name in names})
    records = _read(csv_text(frame))
    assert records[0] == names
    expected = spreadsheet_safe(frame)
    assert len(records) == len(values) + 1
    for i, record in enumerate(records[1:]):
        assert len(record) == len(names)
        assert record == [str(expected[c].iloc[i]) for c in names]
