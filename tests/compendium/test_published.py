"""The published-vs-reproduced bookkeeping (compendium.publish.published): the printed-precision match, the
collection of the pieces and its summary."""

import pandas as pd
import pytest

from compendium.publish.published import (
    PVR_COLUMNS,
    collect_published_vs_reproduced,
    matches_at_printed_precision,
    summarise_published_vs_reproduced,
)


@pytest.mark.parametrize(
    ("published", "reproduced", "expected"),
    [
        ("0.656", 0.6555, True),  # rounds half up to the printed 0.656
        ("0.656", 0.6554, False),
        ("\u22126.3", -6.34, True),  # printed with a Unicode minus
        ("-3.3", -3.25, True),
        ("-3.3", -3.24, False),
        ("4,020", 4020, True),
        ("4020", 4021, False),
        ("0.0", 1e-40, True),
        ("0.121", float("nan"), False),
    ],
)
def test_matches_at_printed_precision(published, reproduced, expected):
    assert matches_at_printed_precision(published, reproduced) is expected


def _piece(table, matches=True, note=""):
    return pd.DataFrame(
        [["B", table, "LR", "Accuracy", "0.656", 0.6555, "rerun", matches, note]], columns=PVR_COLUMNS
    )


def test_collect_orders_tables_by_roman_numeral_and_keeps_notes():
    out = collect_published_vs_reproduced([_piece("X"), _piece("II"), _piece("IX", False, "differs: why")])
    assert out["table"].tolist() == ["II", "IX", "X"]
    assert out.loc[out["table"] == "IX", "note"].item() == "differs: why"


def test_collect_refuses_a_mismatch_without_a_note():
    with pytest.raises(ValueError, match="mismatch without a note: table IX"):
        collect_published_vs_reproduced([_piece("IX", False, "")])


def test_collect_refuses_wrong_columns(tmp_path):
    bad = tmp_path / "piece.csv"
    _piece("I").drop(columns="note").to_csv(bad, index=False)
    with pytest.raises(ValueError, match="piece.csv: columns"):
        collect_published_vs_reproduced([bad])


def test_summary_counts_matches():
    out = summarise_published_vs_reproduced(
        collect_published_vs_reproduced([_piece("I"), _piece("I", False, "why")])
    )
    assert out[["numbers", "matching"]].values.tolist() == [[2, 1]]
