"""A class and its evidence for every row of ``results/published-vs-reproduced.csv``, from what the rows
compute, and one class per printed number across sources.

Each piece (one per source) states, for every row, what it computed: ``reproduced`` (NaN where the source
cannot compute the number), whether it ``matches`` the printed number at the printed precision, ``evidence``
(the committed results or tests that hold the computation and the searches tried for it, ``"; "``-separated)
and ``basis``, a fact the source computed about its inputs:

``"inputs equal"`` / ``"inputs differ"``
    this source's inputs for the row's model are / are not the authors' (their own per-fold files; our fits
    where every fold's predictions equal theirs; the authors' refits where their printed prediction totals
    equal ours). The note says how this was computed.
``"circular"``
    the row is computed from other printed numbers, not from data.
``"impossible"``
    arithmetic on the printed numbers rules the number out for any procedure
    (:func:`compendium.paper_b.printed_arithmetic.impossible_printed_numbers`); every source says so.

Classes, best first (:data:`CLASSES`):

``exact``
    equal at the printed precision.
``saturated``
    a printed p-value of 0 or 1 matched by a statistic beyond the printed precision: a weak match.
``circular``
    reproduced from other printed numbers through the paper's own procedure (Table XX/XXV p-values from the
    printed K and N-K): a match that says nothing about the data. ``matches`` is True.
``impossible``
    arithmetic on the printed numbers rules out every procedure (basis ``impossible``).
``differs``
    not matched, and a committed computation shows why: either (a) a source closer to what the authors
    computed (:data:`SOURCE_ORDER`) reproduces or explains the same number (``exact``, ``saturated`` or
    ``differs`` there; ``saturated`` where the row's statistic is too) and this source computes it from other
    inputs or by another procedure, or (b) this
    source's inputs for the model differ from the authors' (basis ``inputs differ``), the same computation
    reproduces the printed numbers of its procedure (:data:`PROCEDURES`) for every model whose inputs equal
    the authors', and no source with the authors' inputs misses this number. The evidence names the
    computations.
``unexplained``
    neither: the note ends with what was tried (every source's value for the number and the evidence).
``not computable``
    the source cannot compute the number (``reproduced`` NaN): its inputs do not exist.

:func:`summarise_by_number` keeps one class per printed number, the best any source gives;
:func:`evidence_exists` checks that an evidence item exists.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd

__all__ = [
    "BASES",
    "CLASSES",
    "MATCHED_CLASSES",
    "PROCEDURES",
    "SOURCE_ORDER",
    "by_number",
    "classify_published_vs_reproduced",
    "evidence_exists",
    "summarise_by_number",
]

#: Row classes, best first (the per-number summary keeps the first any source gives).
CLASSES = ("exact", "saturated", "circular", "impossible", "differs", "unexplained", "not computable")
#: The classes of a row whose ``matches`` is True; every other class has ``matches`` False.
MATCHED_CLASSES = ("exact", "saturated", "circular")
#: Values of ``basis``.
BASES = ("", "inputs equal", "inputs differ", "circular", "impossible")
#: Sources from the closest to what the authors computed: their own per-fold results, their procedure on
#: our refits, our rerun.
SOURCE_ORDER = ("authors-per-fold", "authors-procedure", "rerun")
#: Paper B's tables that are one procedure run for each model (the causal refits, the neighbour search); any
#: other table is a procedure of its own.
PROCEDURES = {
    **dict.fromkeys(("XVI", "XVII", "XVIII", "XIX", "XX"), "causal discrimination (XVI-XX)"),
    **dict.fromkeys(("XXI", "XXII", "XXIII", "XXIV", "XXV"), "fairness through awareness (XXI-XXV)"),
}
_KEY = ["paper", "table", "row", "column"]
#: The classes of a closer source's row that explain another source's miss of the same number; a saturated
#: p-value only where the other numbers of its row (its statistic, its counts) are explained too
#: (:func:`_explained_saturation`).
_BRIDGES = ("exact", "differs")


def _printed_p_saturated(published: str) -> bool:
    text = str(published).strip().lstrip("~").replace("$", "")
    try:
        return float(text) in (0.0, 1.0)
    except ValueError:
        return False


def _true(series: pd.Series) -> np.ndarray:
    return series.astype(str).str.strip().str.lower().eq("true").to_numpy()


def _join(*parts: str) -> str:
    """Evidence items joined with "; ", each once."""
    items = [p.strip() for part in parts for p in str(part).split(";") if p.strip()]
    return "; ".join(dict.fromkeys(items))


def _append(note: str, text: str) -> str:
    return f"{note}; {text}" if note else text


def _check(out: pd.DataFrame, matched: np.ndarray) -> None:
    bad = ~out["basis"].isin(BASES)
    if bad.any():
        raise ValueError(
            f"`table`: column 'basis' has value {out.loc[bad, 'basis'].iloc[0]!r}, not one of {BASES}"
        )
    circular = (out["basis"] == "circular").to_numpy()
    wrong = circular & ~matched
    if wrong.any():
        r = out[wrong].iloc[0]
        raise ValueError(
            f"`table`: a circular row must match (its value is the printed procedure's): table {r['table']}, "
            f"{r['row']} / {r['column']}"
        )
    impossible = (out["basis"] == "impossible").to_numpy() & matched
    if impossible.any():
        r = out[impossible].iloc[0]
        raise ValueError(
            f"`table`: a number ruled out by arithmetic is matched: table {r['table']}, {r['row']} / "
            f"{r['column']}"
        )
    missing = ~matched & (out["evidence"] == "")
    if missing.any():
        r = out[missing].iloc[0]
        raise ValueError(
            f"`table`: a row that does not match names no evidence: table {r['table']}, {r['row']} / "
            f"{r['column']} ({r['source']})"
        )


def classify_published_vs_reproduced(table: pd.DataFrame) -> pd.DataFrame:
    """Add ``class`` (and complete ``evidence``) from what each row and the other sources' rows compute.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`compendium.publish.published.collect_published_vs_reproduced`: the columns of
        :data:`compendium.publish.published.PVR_COLUMNS` and, where a piece gives them, ``evidence`` and
        ``basis`` (missing: empty).

    Returns
    -------
    pandas.DataFrame
        ``table`` with ``class`` (:data:`CLASSES`), ``evidence`` (``""`` for ``exact``; for ``differs`` the
        row's own and the bridging source's) and ``basis``; an ``unexplained`` row's note ends with
        ``tried: ...``.

    Raises
    ------
    ValueError
        ``basis`` has an unknown value, a ``circular`` row does not match, an ``impossible`` row matches, or a
        row that does not match names no evidence.
    """
    out = table.copy().reset_index(drop=True)
    for column in ("evidence", "basis", "note"):
        out[column] = out[column].fillna("").astype(str) if column in out else ""
    matched = _true(out["matches"])
    computed = np.isfinite(pd.to_numeric(out["reproduced"], errors="coerce").to_numpy(dtype=float))
    _check(out, matched)
    classes = pd.Series([""] * len(out), index=out.index, dtype=object)
    for i, r in out.iterrows():
        if r["basis"] == "impossible":
            classes[i] = "impossible"
        elif r["basis"] == "circular":
            classes[i] = "circular"
        elif matched[i]:
            saturated = r["column"] == "P-Value" and _printed_p_saturated(r["published"])
            classes[i] = "saturated" if saturated else "exact"
        elif not computed[i]:
            classes[i] = "not computable"
    key = out[_KEY].astype(str).agg("\x1f".join, axis=1)
    procedure = [
        PROCEDURES.get(t, f"Table {t}") if p == "B" else f"Table {t}"
        for p, t in zip(out["paper"], out["table"], strict=True)
    ]
    out["_procedure"] = procedure
    rank = {s: i for i, s in enumerate(SOURCE_ORDER)}
    order = sorted(out.index[classes == ""], key=lambda i: (rank.get(out.at[i, "source"], len(rank)), i))
    for i in order:
        r = out.loc[i]
        same = out.index[(key == key[i]) & (out.index != i)]
        closer = [
            j for j in same if rank.get(out.at[j, "source"], len(rank)) < rank.get(r["source"], len(rank))
        ]
        bridge = [j for j in closer if classes[j] in _BRIDGES or _explained_saturation(out, classes, j)]
        if bridge:
            j = min(bridge, key=lambda j: CLASSES.index(classes[j]))
            classes[i] = "differs"
            out.at[i, "evidence"] = _join(out.at[j, "evidence"], r["evidence"])
            out.at[i, "note"] = _append(
                r["note"],
                f"the same number through source {out.at[j, 'source']}, closer to what the authors computed: "
                f"{_value(out.at[j, 'reproduced'])} ({classes[j]})",
            )
            continue
        missed = any(out.at[j, "basis"] == "inputs equal" and classes[j] == "unexplained" for j in closer)
        if r["basis"] == "inputs differ" and _validated(out, matched, i) and not missed:
            classes[i] = "differs"
            out.at[i, "note"] = _append(
                r["note"],
                f"the same computation of this source gives every printed number of {r['_procedure']} for "
                "the models whose inputs are the authors'",
            )
            continue
        classes[i] = "unexplained"
    unexplained = classes.index[classes == "unexplained"]
    for i in unexplained:
        same = out.index[key == key[i]]
        others = [
            f"{out.at[j, 'source']}: "
            + (
                classes[j]
                if classes[j] == "not computable"
                else f"{_value(out.at[j, 'reproduced'])} ({classes[j]})"
            )
            for j in sorted(same, key=lambda j: rank.get(out.at[j, "source"], len(rank)))
        ]
        tried = f"tried: {', '.join(others)}; evidence {out.at[i, 'evidence']}"
        out.at[i, "note"] = _append(out.at[i, "note"], tried)
    out["class"] = classes
    out.loc[out["class"] == "exact", "evidence"] = ""
    return out.drop(columns="_procedure")


def _value(value) -> str:
    v = pd.to_numeric(pd.Series([value]), errors="coerce").iloc[0]
    return "not computed" if pd.isna(v) else f"{v:.6g}"


def _explained_saturation(out: pd.DataFrame, classes: pd.Series, j: int) -> bool:
    """A saturated p-value whose row's other numbers (same table, row and source) are exact, saturated or
    differs: a p-value beyond the printed precision says nothing more than the statistic behind it."""
    if classes[j] != "saturated":
        return False
    r = out.loc[j]
    siblings = out.index[
        (out["paper"] == r["paper"])
        & (out["table"] == r["table"])
        & (out["row"] == r["row"])
        & (out["source"] == r["source"])
        & (out.index != j)
    ]
    return len(siblings) > 0 and all(classes[k] in ("exact", "saturated", "differs") for k in siblings)


def _validated(out: pd.DataFrame, matched: np.ndarray, i: int) -> bool:
    """The row's source reproduces its procedure for every model whose inputs equal the authors'."""
    r = out.loc[i]
    peers = (
        (out["paper"] == r["paper"])
        & (out["source"] == r["source"])
        & (out["_procedure"] == r["_procedure"])
        & (out["basis"] == "inputs equal")
    ).to_numpy()
    return bool(peers.any() and matched[peers].all())


def by_number(table: pd.DataFrame) -> pd.DataFrame:
    """One row per printed number: the best class any source gives it (:data:`CLASSES` order).

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`classify_published_vs_reproduced`.

    Returns
    -------
    pandas.DataFrame
        ``paper, table, row, column, published, class, source`` (the source of that class; sources tied
        are joined with ``", "``), ``reproduced`` (that source's value; the first of tied sources),
        ``sources`` (every source's class, ``source: class`` joined with ``"; "``), in the table's order.
    """
    t = table.reset_index(drop=True).assign(
        _rank=table["class"].map({c: i for i, c in enumerate(CLASSES)}).to_numpy()
    )
    rows = []
    for _, g in t.groupby(_KEY, sort=False):
        best = g[g["_rank"] == g["_rank"].min()]
        first = best.iloc[0]
        rows.append(
            {
                **{k: first[k] for k in _KEY},
                "published": first["published"],
                "class": first["class"],
                "source": ", ".join(best["source"]),
                "reproduced": first["reproduced"],
                "sources": "; ".join(f"{s}: {c}" for s, c in zip(g["source"], g["class"], strict=True)),
            }
        )
    return pd.DataFrame(rows)


def summarise_by_number(numbers: pd.DataFrame) -> pd.DataFrame:
    """Count the printed numbers of each table by their best class (:func:`by_number`).

    Returns
    -------
    pandas.DataFrame
        ``paper, table, numbers`` and one column per class of :data:`CLASSES`, in the table's order.
    """
    counts = pd.crosstab([numbers["paper"], numbers["table"]], numbers["class"])
    counts = counts.reindex(columns=list(CLASSES), fill_value=0)
    order = numbers[["paper", "table"]].drop_duplicates()
    counts = counts.reindex(pd.MultiIndex.from_frame(order)).reset_index()
    counts.insert(2, "numbers", counts[list(CLASSES)].sum(axis=1))
    counts.columns.name = None
    return counts


def evidence_exists(evidence: str, root: str | Path) -> bool:
    """True when every ``"; "``-separated item of ``evidence`` is an existing file under ``results/`` or a
    test node ``path::function``."""
    root = Path(root)
    items = [e.strip() for e in str(evidence).split(";") if e.strip()]
    if not items:
        return False
    for item in items:
        if "::" in item:
            path, _, name = item.partition("::")
            file = root / path
            if not (file.is_file() and re.search(rf"^def {re.escape(name)}\(", file.read_text(), re.M)):
                return False
        elif not (item.startswith("results/") and (root / item).is_file()):
            return False
    return True
