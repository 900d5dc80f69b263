"""Arithmetic on paper B's printed 2x2 counts: which printed numbers no procedure can give.

Tables XVI-XIX (causal discrimination) and XXI-XXIV (fairness through awareness) print, per model and race, a
2x2 block of counts of the same people: rows the other prediction Y (race-flipped or neighbour's), columns the
person's own prediction X. Both tables of a model count the same people by the same own predictions, so
their X columns add up to the same totals, and every block adds up to the race's people. A printed cell
larger than the people it counts (the race's people minus the other X column, where both tables print that
column alike) cannot come from any procedure: :func:`impossible_printed_numbers` lists such cells, and the
copies of them that Tables XX and XXV print as K or N-K. A block that does not add up, but whose every cell is
within its bounds, shows that some cell is misprinted without saying which: none of its cells is listed.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["GROUP_LABEL", "PAIR_TABLES", "impossible_printed_numbers", "printed_blocks"]

#: The 2x2 tables: table -> (model, kind), kind ``causal`` (XVI-XIX) or ``awareness`` (XXI-XXIV).
PAIR_TABLES = {
    "XVI": ("lr", "causal"),
    "XVII": ("lda", "causal"),
    "XVIII": ("rf", "causal"),
    "XIX": ("xgb", "causal"),
    "XXI": ("lr", "awareness"),
    "XXII": ("lda", "awareness"),
    "XXIII": ("rf", "awareness"),
    "XXIV": ("xgb", "awareness"),
}
#: How the printed rows name the two races.
GROUP_LABEL = {"White": "Unprotected (White)", "Black": "Protected (Black)"}
_OTHER = {"causal": "Simulated", "awareness": "Neighbor"}
_MCNEMAR_TABLE = {"causal": "XX", "awareness": "XXV"}
_MODEL_ROW = {
    "lr": "Logistic Regression",
    "lda": "Linear Discriminant Analysis",
    "rf": "Random Forest",
    "xgb": "Gradient Boosting",
}


def printed_blocks(published: pd.DataFrame) -> dict[tuple[str, str], np.ndarray]:
    """(table, group) -> the printed 2x2 counts, rows = Y (other prediction), columns = X (own prediction).

    Parameters
    ----------
    published : pandas.DataFrame
        :func:`compendium.paper_b.authors.read_published_b`.

    Raises
    ------
    ValueError
        A block does not have its four cells.
    """
    blocks = {}
    for table in PAIR_TABLES:
        sub = published[published["table"] == table]
        for group, label in GROUP_LABEL.items():
            cells = np.zeros((2, 2), dtype=np.int64)
            g = sub[sub["row"].str.startswith(label)]
            if len(g) != 4:
                raise ValueError(f"published table {table}: expected 4 cells for {label}, found {len(g)}")
            for _, r in g.iterrows():
                y = int(r["row"].rsplit("=", 1)[1])
                x = int(r["column"].rsplit("=", 1)[1])
                cells[y, x] = int(r["published"])
            blocks[(table, group)] = cells
    return blocks


def impossible_printed_numbers(published: pd.DataFrame) -> pd.DataFrame:
    """The printed counts of Tables XVI-XXV that arithmetic on the other printed numbers rules out.

    Parameters
    ----------
    published : pandas.DataFrame
        :func:`compendium.paper_b.authors.read_published_b`.

    Returns
    -------
    pandas.DataFrame
        ``table, row, column, published, bound, arithmetic``: one row per printed number that exceeds the
        people it counts (``bound``), with the arithmetic in words; Tables XX and XXV's K or N-K that print
        such a cell again are listed too.

    Notes
    -----
    For race g, its people N_g are the common total of the four causal blocks (XVI-XIX; where they differ,
    the race is skipped). For a model's two blocks and own prediction x, where both print the column 1 - x
    with the same total T, the people with own prediction x are N_g - T; a printed cell of column x above
    that, or any cell above N_g, counts more people than there are.
    """
    blocks = printed_blocks(published)
    printed = published.set_index(["table", "row", "column"])["published"].astype(str).str.strip().to_dict()
    causal = [t for t, (_, kind) in PAIR_TABLES.items() if kind == "causal"]
    rows = []
    for group, label in GROUP_LABEL.items():
        totals = {int(blocks[(t, group)].sum()) for t in causal}
        if len(totals) != 1:
            continue
        (people,) = totals
        for model in dict.fromkeys(m for m, _ in PAIR_TABLES.values()):
            pair = {kind: t for t, (m, kind) in PAIR_TABLES.items() if m == model}
            for x in (0, 1):
                other = {kind: int(blocks[(t, group)][:, 1 - x].sum()) for kind, t in pair.items()}
                agreed = len(set(other.values())) == 1
                bound = people - other["causal"] if agreed else people
                for kind, table in pair.items():
                    for y in (0, 1):
                        value = int(blocks[(table, group)][y, x])
                        if value <= bound:
                            continue
                        if agreed:
                            what = (
                                f"{value} exceeds the {bound} {group} people with own prediction {x} "
                                f"({people} {group} people, the total of every causal table, minus the "
                                f"{other['causal']} with own prediction {1 - x} that Tables "
                                f"{pair['causal']} and {pair['awareness']} both print); the block adds up to "
                                f"{int(blocks[(table, group)].sum())}"
                            )
                        else:
                            what = f"{value} exceeds the {people} {group} people of every causal table"
                        row = f"{label}, {_OTHER[kind]} (Y) = {y}"
                        rows.append([table, row, f"Original (X) = {x}", str(value), bound, what])
                        # Table XX/XXV prints the discordant cells again as K (Y 0, X 1) and N-K (Y 1, X 0)
                        side = "Unprotected" if group == "White" else "Protected"
                        copy = (
                            _MCNEMAR_TABLE[kind],
                            f"{_MODEL_ROW[model]} ({side})",
                            "K" if x == 1 else "N-K",
                        )
                        if x != y and printed.get(copy) == str(value):
                            rows.append(
                                [*copy, str(value), bound, f"Table {table}'s cell printed again: {what}"]
                            )
    return pd.DataFrame(rows, columns=["table", "row", "column", "published", "bound", "arithmetic"])
