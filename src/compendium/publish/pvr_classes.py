"""A class and its evidence for every row of ``results/published-vs-reproduced.csv``: how a printed number is
matched, or why it is not.

Classes (issue 21), the first that fits wins:

``circular``
    computed from other printed numbers, not from data (e.g. Table XX/XXV p-values from the printed K and
    N-K): a match says nothing about the data.
``saturated``
    a printed p-value of 0 or 1 matched by a statistic beyond the printed precision: a weak match, counted
    apart (almost any large statistic gives it).
``exact``
    equal at the printed precision.
``differs``
    not matched, and a computed figure shows why (the source's inputs differ from the authors', or the
    authors' committed files do not hold what the number needs).
``impossible``
    no procedure can give it: arithmetic against other printed numbers or against the authors' counts.
``unexplained``
    none of the above; the note lists what was tried and ``evidence`` the result of that attempt.

``evidence`` names, for every row that is not ``exact``, a committed result (a path under ``results/``) or a
test (a pytest node id) that shows the cause; :func:`evidence_exists` checks it.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd

__all__ = ["CLASSES", "classify_published_vs_reproduced", "evidence_exists"]

CLASSES = ("circular", "saturated", "exact", "differs", "impossible", "unexplained")

_R = "results/default"
_AUTHORS_TESTS = "tests/compendium/reference/test_authors_tables.py"
_INPUTS_TESTS = "tests/compendium/reference/test_authors_inputs.py"
_EVIDENCE = {
    # the rerun's models against the authors' (per-fold accuracy and confusion cells, fold by fold)
    "fits": f"{_R}/nij/paper/tables/table1_agreement.csv",
    "authors_table_i": f"{_AUTHORS_TESTS}::test_table_i_regenerates_except_logistic_regression",
    "authors_xgb_ppv": f"{_AUTHORS_TESTS}::test_ppv_tables_regenerate_except_the_xgboost_statistic",
    "xx_formula": f"{_AUTHORS_TESTS}::test_table_xx_pvalues_are_not_the_eq3_mid_p",
    "no_probabilities": f"{_INPUTS_TESTS}::test_the_committed_probabilities_cover_fold_0_only",
    "no_pairs": f"{_INPUTS_TESTS}::test_no_committed_file_holds_counterfactual_or_neighbour_predictions",
    "table_xi": "tests/compendium/reference/test_table_xi_arithmetic.py::"
    "test_printed_table_xi_cannot_come_from_the_authors_confusion_counts",
    "readings": f"{_R}/nij/authors_procedure/tables/readings.csv",
    "refit_counts": f"{_R}/nij/authors_procedure/tables/causal_count_tables.csv",
    "random_neighbour": f"{_R}/nij/authors_procedure/tables/awareness_random_neighbour.csv",
    "exact_search": f"{_R}/nij/authors_procedure/tables/awareness_exact_search.csv",
    "setup_counts": f"{_R}/nij/authors_procedure/tables/exact_search_setup_counts.csv",
    "block_totals": "tests/compendium/test_published_b.py::test_printed_count_checks",
    "distance": "tests/compendium/test_authors_awareness.py::"
    "test_the_covariance_of_two_stacked_vectors_is_rank_one_and_every_distance_is_sqrt2",
    "battery_authors": f"{_R}/nij/authors/tables/battery.csv",
    "battery_rerun": f"{_R}/nij/paper/tables/battery.csv",
    "causal_refits": f"{_R}/nij/authors_procedure/tables/causal_mcnemar.csv",
}
_AWARENESS = ("XXI", "XXII", "XXIII", "XXIV", "XXV")
_COUNTS = ("XVI", "XVII", "XVIII", "XIX", "XX")
_TRIED = (
    "tried: a uniformly random other-race neighbour of the fold (Monte Carlo, "
    "awareness_random_neighbour.csv: the printed count lies outside its 95% range); the authors' exact "
    "search on every fold in their set-up (awareness_exact_search.csv); three floating-point set-ups on a "
    "sample of folds (exact_search_setup_counts.csv: the printed count is further from ours than another "
    "set-up moves it)"
)
_TRIED_RANDOM = (
    "tried: a uniformly random other-race neighbour of the fold (Monte Carlo, "
    "awareness_random_neighbour.csv: the printed count lies outside its 95% range); not tried: the authors' "
    "exact search on every fold (opt-in rules gather_awareness_exact_search, authors_exact_search)"
)


def _printed_p_saturated(published: str) -> bool:
    text = str(published).strip().lstrip("~").replace("$", "")
    try:
        return float(text) in (0.0, 1.0)
    except ValueError:
        return False


def _outside_random_range(published: str, note: str) -> bool | None:
    m = re.search(r"95% range (\d+)-(\d+)", note)
    if not m:
        return None
    value = float(published)
    return not (int(m.group(1)) <= value <= int(m.group(2)))


def _awareness_mismatch(note: str, published: str) -> tuple[str, str]:
    """Class and evidence of a Table XXI-XXV number of the authors' procedure that is not matched.

    With the exact search on every fold: ``differs`` when the printed count minus ours is no larger than the
    largest change another floating-point set-up makes to our count (the authors' set-up is unknown, so its
    direction is too); ``impossible`` when the cell's printed block does not add up and, taken as the
    misprint, it would be within that size; ``differs`` (the fits) when the model's refits are not the
    authors' in every fold; else ``unexplained``. Without it, the random neighbour.
    """
    if note.startswith("Table XX's formula on the exact search's counts"):
        return "differs", _EVIDENCE["exact_search"]  # the p-value follows its K and N-K (see below)
    gap = re.search(r"printed - ours ([+-]\d+)", note)
    size = re.search(r"a change of up to (\d+)", note)
    if gap and size:
        if abs(int(gap.group(1))) <= int(size.group(1)):
            # another set-up moves our count as far as the printed one is from it
            return "differs", _EVIDENCE["setup_counts"]
        misprint = re.search(r"printed - ours would be ([+-]\d+)", note)
        if misprint and abs(int(misprint.group(1))) <= int(size.group(1)):
            return "impossible", _EVIDENCE["block_totals"]
        if "refits differ from the authors'" in note:
            return "differs", _EVIDENCE["fits"]
        return "unexplained", _EVIDENCE["setup_counts"]
    outside = _outside_random_range(published, note)
    if outside is False:
        return "differs", _EVIDENCE["random_neighbour"]  # within what a random neighbour gives
    return "unexplained", _EVIDENCE["random_neighbour"]


def _mismatch(row: pd.Series) -> tuple[str, str]:
    """Class and evidence of a printed number the source does not match."""
    source, table, note = row["source"], row["table"], row["note"]
    if source == "authors-per-fold":
        if table == "I":
            return "differs", _EVIDENCE["authors_table_i"]
        if table in ("III", "VIII"):
            return "differs", _EVIDENCE["authors_xgb_ppv"]
        if table == "XI":
            return "impossible", _EVIDENCE["table_xi"]
        if table in ("XII", "XIII", "XIV", "XV"):
            return "differs", _EVIDENCE["no_probabilities"]
        if table in _COUNTS + _AWARENESS:
            return "differs", _EVIDENCE["no_pairs"]
    if source == "rerun":
        if table == "XI":
            return "impossible", _EVIDENCE["table_xi"]
        if table in ("III", "VIII") and "does not match the printed value" in note:
            return "differs", _EVIDENCE["authors_xgb_ppv"]
        if table == "XV":
            return "differs", _EVIDENCE["readings"]  # the printed numbers are another quantity (two classes)
        if table in ("XII", "XIII"):
            return "differs", _EVIDENCE["readings"]
        if table in _COUNTS:
            # the authors' counts come from refits without Race_WHITE
            return "differs", _EVIDENCE["refit_counts"]
        if table in _AWARENESS:
            # their distance is sqrt(2) for every pair; ours is not theirs
            return "differs", _EVIDENCE["distance"]
        return "differs", _EVIDENCE["fits"]
    if source == "authors-procedure":
        if table == "XI":
            return "impossible", _EVIDENCE["table_xi"]
        if table in ("XII", "XIII", "XV"):
            return "differs", _EVIDENCE["readings"]
        if table in _COUNTS:
            # LR and XGBoost refits differ from the authors' in some folds
            return "differs", _EVIDENCE["fits"]
        if table in _AWARENESS:
            return _awareness_mismatch(note, row["published"])
    return "unexplained", ""


def classify_published_vs_reproduced(table: pd.DataFrame) -> pd.DataFrame:
    """Add ``class`` and ``evidence`` to the collected published-vs-reproduced table.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`compendium.publish.published.collect_published_vs_reproduced`.

    Returns
    -------
    pandas.DataFrame
        ``table`` with ``class`` (one of :data:`CLASSES`) and ``evidence`` ("" for ``exact``); an
        ``unexplained`` row's note gets what was tried appended.
    """
    out = table.copy()
    matched = out["matches"].astype(str).str.lower().eq("true").to_numpy()
    note = out["note"].fillna("").astype(str)
    classes, evidence = [], []
    for i, row in enumerate(out.assign(note=note).itertuples(index=False)):
        r = pd.Series(row._asdict())
        from_printed = note.iloc[i].startswith("from the printed K and N-K")
        if r["paper"] == "B" and r["table"] in ("XX", "XXV") and from_printed:
            classes.append("circular")
            evidence.append(_EVIDENCE["xx_formula"])
        elif matched[i] and r["column"] == "P-Value" and _printed_p_saturated(r["published"]):
            classes.append("saturated")
            if r["table"] == "XX":
                procedure = _EVIDENCE["causal_refits"]
            elif "exact search" in note.iloc[i]:
                procedure = _EVIDENCE["exact_search"]
            else:
                procedure = _EVIDENCE["random_neighbour"]
            evidence.append(
                {"authors-per-fold": _EVIDENCE["battery_authors"], "rerun": _EVIDENCE["battery_rerun"]}.get(
                    r["source"], procedure
                )
            )
        elif matched[i]:
            classes.append("exact")
            evidence.append("")
        else:
            c, e = _mismatch(r)
            classes.append(c)
            evidence.append(e)
    out["class"] = classes
    out["evidence"] = evidence
    # Table XXV's p-value of the authors' procedure follows its K and N-K: unexplained with them
    ap = (out["source"] == "authors-procedure") & (out["table"] == "XXV")
    for _, part in out[ap].groupby("row", sort=False):
        counts = part[part["column"] != "P-Value"]
        p = part.index[(part["column"] == "P-Value") & (part["class"] == "differs")]
        if (counts["class"] == "unexplained").any() and len(p):
            out.loc[p, ["class", "evidence"]] = ["unexplained", counts["evidence"].iloc[0]]
    unexplained = out["class"] == "unexplained"
    tried = np.where(
        note[unexplained].str.contains("the exact search on every fold was not run", regex=False),
        _TRIED_RANDOM,
        _TRIED,
    )
    out.loc[unexplained, "note"] = note[unexplained] + np.where(note[unexplained] != "", "; ", "") + tried
    return out


def evidence_exists(evidence: str, root: str | Path) -> bool:
    """True when ``evidence`` is an existing file under ``results/`` or a test node ``path::function``."""
    root = Path(root)
    if "::" in evidence:
        path, _, name = evidence.partition("::")
        file = root / path
        return file.is_file() and re.search(rf"^def {re.escape(name)}\(", file.read_text(), re.M) is not None
    return evidence.startswith("results/") and (root / evidence).is_file()
