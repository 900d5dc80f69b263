"""The vocabulary of ``results/published-vs-reproduced.csv``: its columns, the printed-precision match, and
the collection of the pieces every stage writes into one judged table.

Whether a reproduced number matches a printed one is decided here and only here: at the printed precision
(:func:`matches_at_printed_precision`), with paper B's ways of printing a p-value that rounds to 0 or 1
(:func:`matches_printed_pvalue`); :func:`matches_printed` picks between them by the printed column.
"""

from __future__ import annotations

import os

import numpy as np
import pandas as pd

from compendium.publish.pvr_classes import CLASSES

#: Columns of every piece that feeds results/published-vs-reproduced.csv; the collected table adds ``class``
#: (:mod:`compendium.publish.pvr_classes`).
PVR_COLUMNS = ["paper", "table", "row", "column", "published", "reproduced", "source", "matches", "note"]
#: A piece may add what its rows computed: ``evidence`` (the committed results or tests behind the row,
#: ``"; "``-separated) and ``basis`` (:data:`compendium.publish.pvr_classes.BASES`); missing, both are empty.
PVR_PIECE_COLUMNS = [*PVR_COLUMNS, "evidence", "basis"]


def matches_at_printed_precision(published: str, reproduced: float) -> bool:
    """True when ``reproduced`` rounds to the printed ``published`` number at the printed precision.

    ``published`` is the number as printed (a string such as ``"0.656"``, ``"-6.3"``, ``"4020"``); its
    count of decimals sets the precision. Minus signs printed as U+2212 are accepted.
    """
    text = str(published).strip().replace("\u2212", "-").replace(",", "")
    decimals = len(text.split(".")[1]) if "." in text else 0
    value = float(text)
    if not np.isfinite(reproduced):
        return False
    # compare by rounding ours to the printed precision (half away from zero, as printed tables do)
    scale = 10.0**decimals
    ours = np.sign(reproduced) * np.floor(abs(reproduced) * scale + 0.5 + 1e-9) / scale
    return bool(abs(ours - value) < 0.5 / scale)


def matches_printed_pvalue(published: str, reproduced: float) -> bool:
    """Whether ``reproduced`` agrees with a printed p-value.

    ``"~0"``, ``"~1"`` and the bare integers ``"0"``, ``"1"`` (the paper's way of writing a p-value that
    rounds to 0 or 1) match when ``reproduced`` rounds to 0 or 1 at three decimals (p < 0.0005, p >= 0.9995),
    the precision of the paper's other p-values (e.g. 0.979, 0.089). Any other printed value is compared by
    :func:`matches_at_printed_precision`.
    """
    text = str(published).strip()
    if text in ("~0", "~1", "0", "1"):
        target = float(text.lstrip("~"))
        return bool(np.isfinite(reproduced) and abs(reproduced - target) < 0.0005)
    return matches_at_printed_precision(text, reproduced)


def matches_printed(column: str, published: str, reproduced: float) -> bool:
    """Whether ``reproduced`` agrees with a printed number of paper B: p-values (``column == "P-Value"``) by
    :func:`matches_printed_pvalue`, others at printed precision; never for a NaN or infinite value."""
    if not np.isfinite(reproduced):
        return False
    if column == "P-Value":
        return matches_printed_pvalue(published, reproduced)
    return matches_at_printed_precision(published, reproduced)


#: Table numbers as printed, in order (paper B has Tables I-XXV).
_ROMAN_NUMERALS = (
    "I II III IV V VI VII VIII IX X XI XII XIII XIV XV XVI XVII XVIII XIX XX XXI XXII XXIII XXIV XXV"
)
_ROMAN = {numeral: i for i, numeral in enumerate(_ROMAN_NUMERALS.split(), 1)}


def collect_published_vs_reproduced(pieces: list[pd.DataFrame | str | os.PathLike]) -> pd.DataFrame:
    """Concatenate published-vs-reproduced pieces into one table, checked and in a stable order.

    Each piece must have exactly :data:`PVR_COLUMNS` or :data:`PVR_PIECE_COLUMNS`. Rows are ordered by paper,
    table (in Roman-numeral order, the text's own numbers such as ``"text"`` first), then the order within
    each piece. Returns :data:`PVR_PIECE_COLUMNS` (``evidence`` and ``basis`` empty where a piece has none).
    """
    frames = []
    for i, piece in enumerate(pieces):
        name = str(piece) if not isinstance(piece, pd.DataFrame) else f"piece {i}"
        frame = piece if isinstance(piece, pd.DataFrame) else pd.read_csv(piece, dtype={"published": str})
        if list(frame.columns) not in (PVR_COLUMNS, PVR_PIECE_COLUMNS):
            raise ValueError(f"{name}: columns {list(frame.columns)} differ from {PVR_PIECE_COLUMNS}")
        frame = frame.reindex(columns=PVR_PIECE_COLUMNS)
        frame[["evidence", "basis"]] = frame[["evidence", "basis"]].astype(object).fillna("")
        mismatched = frame["matches"].astype(str).str.lower().ne("true") & frame["note"].fillna("").eq("")
        if mismatched.any():
            row = frame.loc[mismatched].iloc[0]
            raise ValueError(
                f"{name}: a mismatch without a note: table {row['table']}, {row['row']} / {row['column']}"
            )
        frames.append(frame.assign(_piece=i, _order=range(len(frame))))
    out = pd.concat(frames, ignore_index=True)
    out["_table"] = out["table"].astype(str).map(lambda t: _ROMAN.get(t, 0))
    out = out.sort_values(["paper", "_table", "_piece", "_order"], kind="stable")
    return out[PVR_PIECE_COLUMNS].reset_index(drop=True)


def summarise_published_vs_reproduced(table: pd.DataFrame) -> pd.DataFrame:
    """Count numbers and matches per paper, table and source; with a ``class`` column, also each class.

    ``matching`` counts every match at the printed precision; the class columns (``exact``, ``saturated``,
    ``circular``, ... of :mod:`compendium.publish.pvr_classes`) tell a match from data apart from a saturated
    printed p-value or a number computed from other printed numbers.
    """
    t = table.assign(matched=table["matches"].astype(str).str.lower().eq("true"))
    out = (
        t.groupby(["paper", "table", "source"], sort=False)
        .agg(numbers=("matched", "size"), matching=("matched", "sum"))
        .reset_index()
    )
    out["share_matching"] = out["matching"] / out["numbers"]
    if "class" in t:
        counts = pd.crosstab([t["paper"], t["table"], t["source"]], t["class"])
        counts = counts.reindex(columns=list(CLASSES), fill_value=0).reset_index()
        out = out.merge(counts, on=["paper", "table", "source"], how="left", validate="one_to_one")
    return out
