"""compendium.paper_b.printed_arithmetic: printed counts of Tables XVI-XXV that no procedure can give."""

import pandas as pd
import pytest
from repo_paths import ROOT

from compendium.paper_b.authors import read_published_b
from compendium.paper_b.printed_arithmetic import impossible_printed_numbers, printed_blocks

PUBLISHED = ROOT / "data/published/paper-b-tables.csv"


@pytest.fixture
def published():
    return read_published_b(PUBLISHED)


def _set(frame, table, row, column, value):
    frame = frame.copy()
    hit = (frame["table"] == table) & (frame["row"] == row) & (frame["column"] == column)
    assert hit.sum() == 1
    frame.loc[hit, "published"] = str(value)
    return frame


def test_table_xxiv_white_6564_is_the_one_printed_count_ruled_out(published):
    # Paper B as printed: Table XIX's White block adds up to 10,949 and its X = 0 column to 4405 + 48 = 4453,
    # which Table XXIV prints too (1491 + 2962): 10,949 - 4453 = 6496 White people are predicted 1, and Table
    # XXIV's (own 1, neighbour 1) cell says 6564 of them (Table XXIII's Black cell)
    out = impossible_printed_numbers(published)
    assert out[["table", "row", "column", "published", "bound"]].values.tolist() == [
        ["XXIV", "Unprotected (White), Neighbor (Y) = 1", "Original (X) = 1", "6564", 6496]
    ]
    assert "6564 exceeds the 6496 White people with own prediction 1" in out["arithmetic"].item()
    assert "adds up to 13374" in out["arithmetic"].item()


def test_a_block_that_does_not_add_up_but_stays_within_its_bounds_names_no_cell(published):
    # Table XXI's Black block adds up to 14,731, not 14,801: some cell is misprinted, but none exceeds the
    # people it counts, so no single cell is ruled out
    blocks = printed_blocks(published)
    assert blocks[("XXI", "Black")].sum() == 14731
    out = impossible_printed_numbers(published)
    assert "XXI" not in set(out["table"])
    lower = _set(published, "XXIV", "Unprotected (White), Neighbor (Y) = 1", "Original (X) = 1", 6000)
    assert impossible_printed_numbers(lower).empty


def test_a_discordant_cell_ruled_out_is_ruled_out_where_tables_xx_and_xxv_print_it_again(published):
    row, column = "Protected (Black), Neighbor (Y) = 0", "Original (X) = 1"
    changed = _set(published, "XXI", row, column, 10900)  # 14,801 - 3982 = 10,819 Black people predicted 1
    out = impossible_printed_numbers(changed)
    assert ("XXI", row, column) in set(zip(out["table"], out["row"], out["column"], strict=True))
    assert "XXV" not in set(out["table"])  # Table XXV still prints 2727 as K: another number
    both = _set(changed, "XXV", "Logistic Regression (Protected)", "K", 10900)
    copy = impossible_printed_numbers(both).query("table == 'XXV'")
    assert copy[["row", "column", "bound"]].values.tolist() == [
        ["Logistic Regression (Protected)", "K", 10819]
    ]
    assert copy["arithmetic"].item().startswith("Table XXI's cell printed again")


def test_a_race_whose_causal_tables_disagree_on_its_people_is_left_out(published):
    changed = _set(published, "XVI", "Unprotected (White), Simulated (Y) = 0", "Original (X) = 0", 3030)
    assert impossible_printed_numbers(changed).empty


def test_printed_blocks_refuses_a_block_without_its_four_cells(published):
    short = published.drop(published.index[(published["table"] == "XVII")][:1])
    with pytest.raises(ValueError, match="table XVII: expected 4 cells"):
        printed_blocks(short)


def test_the_result_is_a_frame_with_its_columns_when_nothing_is_ruled_out(published):
    lower = _set(published, "XXIV", "Unprotected (White), Neighbor (Y) = 1", "Original (X) = 1", 4139)
    out = impossible_printed_numbers(lower)
    assert isinstance(out, pd.DataFrame) and out.empty
    assert list(out.columns) == ["table", "row", "column", "published", "bound", "arithmetic"]
