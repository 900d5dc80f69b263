"""Paper B's printed Tables I-XXV (data/published/paper-b-tables.csv): the transcription is complete."""

import re
from collections import Counter

import pytest
from repo_paths import ROOT

from compendium.paper_b.authors import printed_count_checks, read_published_b

PUBLISHED = ROOT / "data/published/paper-b-tables.csv"
RAW = ROOT / "data/raw/paper-b-authors"
# The paper's text lives beside the repository in the team's shared folder (not vendored: not ours to copy).
PAPER = ROOT.parent / "shared/papers/significant-fairness-violations-nij.txt"

# Numbers printed per table: I 4 models x 1; II-XI, XIV, XV 4 x 3; XII, XIII 4 x 2; the 2x2 tables two groups
# x 4 cells; XX, XXV 8 rows x 3.
EXPECTED_COUNTS = {
    "I": 4,
    **{t: 12 for t in "II III IV V VI VII VIII IX X XI XIV XV".split()},
    "XII": 8,
    "XIII": 8,
    **{t: 8 for t in "XVI XVII XVIII XIX XXI XXII XXIII XXIV".split()},
    "XX": 24,
    "XXV": 24,
}


@pytest.fixture(scope="module")
def published():
    return read_published_b(PUBLISHED)


def test_counts_of_numbers_per_table(published):
    assert Counter(published["table"]) == EXPECTED_COUNTS
    assert len(published) == 276


def test_values_are_printed_strings(published):
    assert published["published"].str.fullmatch(r"~[01]|-?\d+(\.\d+)?").all()
    # as printed, trailing zeros kept
    got = published.set_index(["table", "row", "column"])["published"]
    assert got[("II", "Gradient Boosting", "Test Statistic")] == "83.90"
    assert got[("III", "Logistic Regression", "Disparity")] == "-0.050"
    assert got[("XX", "Logistic Regression (Protected)", "P-Value")] == "0.0516"
    assert got[("II", "Logistic Regression", "P-Value")] == "~0"
    assert got[("XVI", "Unprotected (White), Simulated (Y) = 0", "Original (X) = 1")] == "13"
    assert got[("XXIV", "Unprotected (White), Neighbor (Y) = 1", "Original (X) = 1")] == "6564"


def test_the_papers_duplicated_label_is_disambiguated(published):
    for table in ("XX", "XXV"):
        rows = published[published["table"] == table].drop_duplicates("row")
        assert rows["printed_row"].tolist().count("Gradient Boosting (Unprotected)") == 2
        last = rows.iloc[-1]
        assert last["row"] == "Gradient Boosting (Protected)" and "printed" in last["note"]


def test_tables_printed_twice_are_identical(published):
    def values(table):
        return published.loc[published["table"] == table, "published"].tolist()

    assert values("IV") == values("VI")  # predictive equality = equalized odds (FPR)
    assert values("III") == values("VIII")  # predictive parity = conditional use accuracy (PPV)


def test_printed_count_checks():
    checks = printed_count_checks(PUBLISHED, RAW)
    failed = checks[~checks["ok"]]
    # group totals: Table XXI's Black block adds up to 14,731 and Table XXIV's White block to 13,374
    totals = failed[failed["check"] == "group_total"]
    assert sorted(zip(totals["table"], totals["group"], totals["printed"], strict=True)) == [
        ("XXI", "Black", 14731),
        ("XXIV", "White", 13374),
    ]
    assert checks.loc[checks["check"] == "group_total", "expected"].isin([10949, 14801]).all()
    # the X = 0 column totals equal the authors' per-fold prediction counts for LDA and XGBoost, not LR and RF
    margins = failed[failed["check"] == "original_0_total"]
    assert set(margins["model"]) == {"lr", "rf"} and len(margins) == 8
    # Tables XX/XXV's K and N-K are the printed discordant cells, and X = 0 totals agree across tables
    assert checks.loc[checks["check"].isin(["k_is_cell", "n_minus_k_is_cell"]), "ok"].all()
    assert checks.loc[checks["check"] == "original_0_total_across_tables", "ok"].all()
    assert len(failed) == 10


def _paper_tokens() -> dict[str, list[str]]:
    """Numbers of each TABLE block of the paper's text, in reading order (labels and headers left out)."""
    lines = PAPER.read_text(encoding="utf-8").splitlines()
    out: dict[str, list[str]] = {}
    table = None
    started = False
    for line in lines:
        m = re.match(r"TABLE ([IVX]+):", line)
        if m:
            table, started = m.group(1), False
            out[table] = []
            continue
        if table is None:
            continue
        if not line.strip():
            if started:
                table = None
            continue
        started = True
        cells = line.split("\t")
        if cells[0] == "Model" or cells[0].startswith("Original (X)"):
            continue  # header lines (the 2x2 headers' "0 1" are labels)
        for cell in cells[1:]:  # first cell = row label (a model name, or the 2x2 row label 0 / 1)
            cell = cell.strip()
            out[table].append(cell[1:-1] if cell.startswith("$") else cell)
    return out


@pytest.mark.skipif(not PAPER.is_file(), reason=f"the paper's text is not beside this checkout ({PAPER})")
def test_transcription_equals_the_paper_text(published):
    tokens = _paper_tokens()
    assert sorted(tokens) == sorted(EXPECTED_COUNTS)
    for table, expected in tokens.items():
        assert published.loc[published["table"] == table, "published"].tolist() == expected, table
