"""Searches for the two printed numbers of Tables I-X that the authors' committed per-fold values do not give.

The paper's own formula on the authors' committed per-fold results (:mod:`compendium.paper_b.authors`) gives
every printed number of Tables I-X but two: Table I's logistic-regression accuracy (printed 0.656; the mean of
the 250 committed accuracies is 0.656893) and the gradient-boosting statistic of Tables III and VIII (printed
14.12; the committed confusion shares give 14.19). A cause one might name for them (a rounding, a fold left
out, rounded shares) is a *reading* of the computation. This module declares each family of readings
**before** running it (:data:`TABLE_I_ROUNDINGS`, :data:`PPV_SHARES`, :data:`DROPPED_GROUPS`; every fold of
the file is a candidate), runs all of them, and reports for each reading what it gives for every printed
number of the table. A reading reproduces a table only if it gives every printed number of it, for every
model; a number that several readings give, none of them singled out, is not explained by any of them.

* :func:`table_i_search` — Table I under each rounding (three decimals, half up or truncated), with all folds
  and with each single fold left out of every model's mean;
* :func:`ppv_search` — Tables III and VIII (PPV = A/(A+C) of the committed shares) with the shares as
  committed or rounded, and each single fold left out of the White values, the Black values or both, for
  every model;
* :func:`search_summary` — one sentence per search for the notes of ``published-vs-reproduced.csv``.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd

from compendium.paper_b.as_published import fold_ttest_as_published
from compendium.paper_b.authors import AUTHORS_FILES, MODELS, PAPER_B_TESTS, read_published_b
from compendium.publish.published import matches_printed

__all__ = [
    "DROPPED_GROUPS",
    "PPV_SHARES",
    "TABLE_I_ROUNDINGS",
    "ppv_search",
    "search_summary",
    "table_i_search",
]

#: Table I: the mean accuracy printed to three decimals, rounded half up (as printed tables do) or truncated.
TABLE_I_ROUNDINGS: tuple[str, ...] = ("half up", "truncated")
#: Tables III and VIII: the committed confusion shares as they are, or rounded to 2, 3 or 4 decimals before
#: PPV = A/(A+C) is taken (a spreadsheet's display precision).
PPV_SHARES: tuple[str, ...] = (
    "committed",
    "rounded to 2 decimals",
    "rounded to 3 decimals",
    "rounded to 4 decimals",
)
#: A single fold left out of the White values, the Black values or both (the same fold for every model);
#: ``none`` keeps all folds.
DROPPED_GROUPS: tuple[str, ...] = ("none", "White", "Black", "both")

_PPV_TABLES = ("III", "VIII")
_T_COLUMNS = {"Disparity": "disparity", "Test Statistic": "statistic", "P-Value": "pvalue"}


def _rounded(value: float, rounding: str) -> float:
    scaled = value * 1000
    # 1e-9 absorbs the binary representation of a mean that is exactly a half
    return (np.floor(scaled + 0.5 + 1e-9) if rounding == "half up" else np.floor(scaled + 1e-9)) / 1000


def table_i_search(raw_dir: str | os.PathLike, published_csv: str | os.PathLike) -> pd.DataFrame:
    """Table I under every declared reading: rounding x (all folds, or one fold left out of every model).

    Parameters
    ----------
    raw_dir : str or path-like
        The authors' files (``data/raw/paper-b-authors``): the per-fold accuracies of
        ``Fairness Metrics - All Predicted Outcome Binary Metrics from Verma Paper.csv``.
    published_csv : str or path-like
        ``data/published/paper-b-tables.csv``.

    Returns
    -------
    pandas.DataFrame
        One row per reading: ``rounding`` (:data:`TABLE_I_ROUNDINGS`), ``left_out_fold`` (-1 for none),
        then per model ``<model>`` (the rounded mean) and ``<model>_matches`` (equal to the printed value),
        ``n_matching`` (models matched) and ``reproduces_table`` (all four). Rows in the order roundings x
        (all folds, fold 0, 1, ...).
    """
    frame = pd.read_csv(Path(raw_dir) / AUTHORS_FILES["fairness"], index_col=0)
    printed = read_published_b(published_csv)
    printed = printed[printed["table"] == "I"].set_index("row")["published"]
    accuracy = {m: frame[v[2]].to_numpy(dtype=float) for m, v in MODELS.items()}
    k = len(frame)
    rows = []
    for rounding in TABLE_I_ROUNDINGS:
        for left_out in range(-1, k):
            row: dict[str, object] = {"rounding": rounding, "left_out_fold": left_out}
            for model, values in accuracy.items():
                kept = values if left_out < 0 else np.delete(values, left_out)
                value = _rounded(float(kept.mean()), rounding)
                row[model] = value
                row[f"{model}_matches"] = bool(abs(value - float(printed[MODELS[model][3]])) < 5e-7)
            row["n_matching"] = sum(bool(row[f"{m}_matches"]) for m in MODELS)
            row["reproduces_table"] = row["n_matching"] == len(MODELS)
            rows.append(row)
    return pd.DataFrame(rows)


def _ppv(confusion: pd.DataFrame, prefix: str, shares: str) -> tuple[np.ndarray, np.ndarray]:
    """Per-fold PPV = A/(A+C) of White (A, C) and Black (B, D) from the shares, as committed or rounded."""
    cells = {c: confusion[f"{prefix}{c}"].to_numpy(dtype=float) for c in "ABCD"}
    if shares != "committed":
        decimals = int(shares.split()[2])
        cells = {c: np.round(v, decimals) for c, v in cells.items()}
    with np.errstate(divide="ignore", invalid="ignore"):
        return cells["A"] / (cells["A"] + cells["C"]), cells["B"] / (cells["B"] + cells["D"])


def ppv_search(raw_dir: str | os.PathLike, published_csv: str | os.PathLike) -> pd.DataFrame:
    """Tables III and VIII under every declared reading: shares x (no fold, or one fold left out of a group).

    Parameters
    ----------
    raw_dir : str or path-like
        The authors' files (``Confusion Distribution.csv``).
    published_csv : str or path-like
        ``data/published/paper-b-tables.csv``.

    Returns
    -------
    pandas.DataFrame
        One row per reading: ``shares`` (:data:`PPV_SHARES`), ``left_out_of`` (:data:`DROPPED_GROUPS`),
        ``left_out_fold`` (-1 for none); gradient boosting's ``xgb_disparity, xgb_statistic, xgb_pvalue``
        (the paper's formula, left tail, as printed in Table III) and ``xgb_matches`` (all three equal the
        printed ones), ``xgb_statistic_matches`` (the statistic alone); and over both tables and the four
        models ``n_numbers``, ``n_matching`` and ``reproduces_tables`` (every printed number).

    Notes
    -----
    Table VIII prints Table III's PPV rows again (at half the level); a fold left out of one group makes the
    two groups' fold counts differ, and the paper's formula is then
    :math:`(\\bar a - \\bar b)/(s_p (1/n_a + 1/n_b))`
    (:func:`~compendium.paper_b.as_published.fold_ttest_as_published`).
    """
    confusion = pd.read_csv(Path(raw_dir) / AUTHORS_FILES["confusion"], index_col=0)
    published = read_published_b(published_csv).set_index(["table", "row", "column"])["published"]
    spec = {s.table: s for s in PAPER_B_TESTS}["III"]
    k = len(confusion)
    values = {(m, s): _ppv(confusion, v[0], s) for m, v in MODELS.items() for s in PPV_SHARES}
    rows = []
    for shares in PPV_SHARES:
        for group in DROPPED_GROUPS:
            for left_out in [-1] if group == "none" else range(k):
                row: dict[str, object] = {"shares": shares, "left_out_of": group, "left_out_fold": left_out}
                matched = total = 0
                for model, v in MODELS.items():
                    white, black = values[(model, shares)]
                    # a fold left out is NaN: the paper's formula takes each group's non-NaN folds
                    if group in ("White", "both"):
                        white = np.where(np.arange(k) == left_out, np.nan, white)
                    if group in ("Black", "both"):
                        black = np.where(np.arange(k) == left_out, np.nan, black)
                    res = fold_ttest_as_published(white, black, alternative=spec.alternative)
                    got = {
                        "disparity": spec.disparity(res.mean_a, res.mean_b),
                        "statistic": res.statistic_paper_formula,
                        "pvalue": res.pvalue_paper_formula,
                    }
                    ok = {}
                    for table in _PPV_TABLES:
                        for column, field in _T_COLUMNS.items():
                            hit = matches_printed(column, published[(table, v[3], column)], got[field])
                            ok[(table, field)] = hit
                            matched += hit
                            total += 1
                    if model == "xgb":
                        row.update({f"xgb_{f}": got[f] for f in ("disparity", "statistic", "pvalue")})
                        row["xgb_statistic_matches"] = ok[("III", "statistic")]
                        row["xgb_matches"] = all(ok.values())
                row.update(n_numbers=total, n_matching=matched, reproduces_tables=matched == total)
                rows.append(row)
    return pd.DataFrame(rows)


def search_summary(search: pd.DataFrame) -> str:
    """One sentence of what a search found: how many readings give the number, and the table.

    Parameters
    ----------
    search : pandas.DataFrame
        :func:`table_i_search` or :func:`ppv_search`.

    Returns
    -------
    str
        For Table I: per rounding, the readings that give logistic regression's printed accuracy and those
        that give all four; for Tables III/VIII: the readings that give gradient boosting's printed
        statistic, those that also give its disparity and p-value, and those that give both tables.
    """
    if "rounding" in search:
        parts = []
        for rounding, g in search.groupby("rounding", sort=False):
            every = g[g["left_out_fold"] < 0].iloc[0]
            dropped = g[g["left_out_fold"] >= 0]
            parts.append(
                f"{rounding}, all {len(dropped)} folds: {int(every['n_matching'])} of 4 printed accuracies "
                f"(LR's {'among them' if every['lr_matches'] else 'not'}); one fold left out of every "
                "model's "
                f"mean: {int(dropped['lr_matches'].sum())} of {len(dropped)} folds give LR's, "
                f"{int(dropped['reproduces_table'].sum())} all four"
            )
        return (
            "declared readings of Table I (table_i_search.csv; rounding to three decimals x all folds or one "
            "fold left out): " + "; ".join(parts)
        )
    every = search[search["left_out_of"] == "none"]
    dropped = search[search["left_out_of"] != "none"]
    hits = dropped[dropped["xgb_statistic_matches"]]
    by_group = ", ".join(
        f"{int((hits['left_out_of'] == g).sum())} {g}" for g in DROPPED_GROUPS if g != "none"
    )
    return (
        "declared readings of Tables III/VIII (ppv_search.csv; shares as committed or rounded to 2-4 "
        "decimals x "
        "no fold or one fold left out of the White, the Black or both groups' values): without a fold left "
        "out "
        f"{int(every['xgb_statistic_matches'].sum())} of {len(every)} share readings give XGBoost's printed "
        "statistic; "
        f"with one left out {len(hits)} of {len(dropped)} readings give it ({by_group}), "
        f"{int(hits['xgb_matches'].sum())} "
        "of them also XGBoost's printed disparity and p-value in both tables, "
        f"{int(hits['reproduces_tables'].sum())} every printed number of Tables III and VIII (all four "
        "models)"
    )
