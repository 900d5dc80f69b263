"""Source ``authors-procedure`` of ``results/published-vs-reproduced.csv``: paper B's Tables XI-XXV by the
authors' own procedures.

* XVI-XX: the authors' causal-discrimination refits (:mod:`compendium.paper_b.authors_procedure`) through
  :func:`compendium.paper_b.battery.causal_discrimination_tables` (counts, K, N - K; p-values by
  :func:`~compendium.paper_b.as_published.mcnemar_midp_as_published`, the formula behind the printed ones,
  with the mid-p of Eq. 3 in the note).
* XXI-XXV: the neighbour of the authors' search is decided by rounding
  (:mod:`compendium.paper_b.authors_awareness`). ``reproduced`` is the count of the authors' exact search on
  every fold in their set-up (the opt-in rules' ``awareness_exact_search.csv``), with how far another
  floating-point set-up moves it (``exact_search_setup_counts.csv``) and where the seeded Monte Carlo with a
  uniformly random other-race neighbour puts it, in the note; without the exact search, the Monte Carlo mean.
  Where a printed block's four counts do not add up to the group, each of its cells' notes says what the gap
  would be if that cell were the misprint.
* XI, XII, XIII, XV: the declared readings (:mod:`compendium.paper_b.printed_readings`); a number is
  reproduced only by a reading that reproduces the whole table for LDA and RF, and the note names the reading.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from compendium.paper_b.as_published import mcnemar_midp_as_published
from compendium.paper_b.authors import MODELS, read_published_b
from compendium.paper_b.authors_awareness import COUNT_TABLE_OF_MODEL
from compendium.paper_b.printed_readings import READING_MODELS, nearest_reading
from compendium.publish.published import PVR_COLUMNS, matches_printed
from fairstats.mcnemar import mcnemar_midp

__all__ = ["SOURCE", "TABLE_I_AGREEMENT", "published_vs_reproduced_authors_procedure"]

#: The value of the ``source`` column.
SOURCE = "authors-procedure"
#: Folds (of 250) on which our Table I fits give the authors' per-fold accuracy (results/default/nij/paper/
#: tables/table1_agreement.csv); LDA and RF are deterministic, LR (unconverged L-BFGS) and XGBoost are not.
TABLE_I_AGREEMENT = {"lr": 106, "lda": 250, "rf": 250, "xgb": 202}
_MODEL_OF_ROW = {v[3]: m for m, v in MODELS.items()}
_SQRT2 = (
    "the authors' 'Mahalanobis' distance uses the covariance of the two stacked vectors, (x-y)(x-y)^T/2, of "
    "rank one, so every pair of distinct people is at distance sqrt(2) and the chosen neighbour is decided "
    "by rounding (tests/compendium/test_authors_awareness.py; exact_search_setups.csv)"
)


def _model_note(model: str) -> str:
    n = TABLE_I_AGREEMENT[model]
    if n == 250:
        return ""
    return (
        f"; our {model.upper()} fits reproduce the authors' only in part (Table I: {n} of 250 folds agree; "
        "unconverged L-BFGS on unscaled inputs and XGBoost depend on floating-point details), so its refits "
        "differ from the authors' in some folds"
    )


def _reading_rows(published: pd.DataFrame, readings: pd.DataFrame) -> list[list]:
    out = []
    tried = readings.groupby("table")["reading"].nunique()
    for _, p in published[published["table"].isin(["XI", "XII", "XIII", "XV"])].iterrows():
        table, row, column, printed = p["table"], p["row"], p["column"], p["published"]
        model = _MODEL_OF_ROW[row]
        r = readings[readings["table"] == table]
        full = r[r["reading_matches"]]
        if len(full):
            name = full["reading"].iloc[0]
            hit = full[(full["reading"] == name) & (full["row"] == row) & (full["column"] == column)]
            value = float(hit["reproduced"].iloc[0]) if len(hit) else float("nan")
            ok = bool(hit["matches"].iloc[0]) if len(hit) else False
            note = (
                f"reading '{name}' (one of {tried[table]} declared in compendium.printed_readings) "
                "reproduces "
                f"every printed number of Table {table} for LDA and RF, whose scores equal the authors'"
            )
            if table == "XV":
                note += (
                    "; it compares E(S | y=1) of Black people with E(S | y=0) of White people, i.e. two "
                    "different classes, not the balance for the negative class the paper names"
                )
            if model not in READING_MODELS and not ok:
                note += f"; on our fits of this model it gives {value:.4g}" + _model_note(model)
            out.append(
                [
                    "B",
                    table,
                    row,
                    column,
                    printed,
                    value,
                    SOURCE,
                    ok,
                    "" if ok and model in READING_MODELS else note,
                ]
            )
            continue
        # no reading gives the table: reproduced = the table's nearest reading (one for the whole table)
        name, error = nearest_reading(readings, table)
        hit = r[(r["reading"] == name) & (r["row"] == row) & (r["column"] == column)]
        value = float(hit["reproduced"].iloc[0]) if len(hit) else float("nan")
        ok = bool(hit["matches"].iloc[0]) if len(hit) else False
        note = (
            f"none of the {tried.get(table, 0)} declared readings (compendium.printed_readings; bins, "
            "closure, "
            "counted outcome, expected count, ratio, zero convention) reproduces Table "
            f"{table} for LDA and RF, although their scores and predictions equal the authors' (Table I: 250 "
            "of 250 folds); reproduced = the table's nearest reading "
            f"'{name}' (mean relative error {100 * error:.1f}% over LDA's and RF's printed statistics): "
            f"{value:.4g} for the printed {printed}"
            + (f" (off by {value - _as_float(printed):+.4g})" if not ok and np.isfinite(value) else "")
        )
        if model not in READING_MODELS:
            note += "; this model's predictions are not the authors' in every fold" + _model_note(model)
        out.append(["B", table, row, column, printed, value, SOURCE, ok, note])
    return out


def _block_excess(exact: pd.DataFrame) -> dict[tuple, tuple[int, int]]:
    """Printed blocks of Tables XXI-XXIV whose four counts do not add up to the group's people.

    ``exact`` holds our count ``n`` and the printed one (``published``) of every cell. Our counts of a block
    always add up to the group; where the printed ones do not, at least one printed cell is wrong by the
    block's excess. Returns ``{(table, group): (printed total, excess)}``.
    """
    out = {}
    for (table, group), block in exact.groupby(["table", "group"], sort=False):
        excess = int(block["published"].sum() - block["n"].sum())
        if excess:
            out[(table, group)] = (int(block["published"].sum()), excess)
    return out


def _setup_range(setup_counts: pd.DataFrame | None, table: str, group: str, x: int, y: int) -> str:
    if setup_counts is None:
        return ""
    first = setup_counts["setup"].iloc[0]
    part = setup_counts[
        (setup_counts["setup"] != first)
        & (setup_counts["table"] == table)
        & (setup_counts["group"] == group)
        & (setup_counts["original"] == x)
        & (setup_counts["neighbor"] == y)
    ]
    lo, hi = part["projected_change_low"].min(), part["projected_change_high"].max()
    setups = ", ".join(dict.fromkeys(part["setup"]))
    # the authors' set-up is unknown, so the direction of its shift is too: the size is what compares
    return (
        f"; another floating-point set-up ({setups}) would move this count by {lo:+.0f} to {hi:+.0f} over "
        f"the 250 folds, a change of up to {max(abs(lo), abs(hi)):.0f} (exact_search_setup_counts.csv, "
        "from a sample of folds)"
    )


def _awareness_rows(
    published: pd.DataFrame,
    rand: pd.DataFrame,
    exact_counts: pd.DataFrame | None,
    setup_counts: pd.DataFrame | None,
    *,
    n_draws: int,
    seed: int,
) -> list[list]:
    """Tables XXI-XXV: the exact search on every fold where it ran, else the random-neighbour Monte Carlo."""
    mc = f"a uniformly random other-race neighbour of the same fold ({n_draws} draws, seed {seed})"
    exact = None
    excess: dict[tuple, tuple[int, int]] = {}
    if exact_counts is not None:
        exact = exact_counts.set_index(["table", "group", "original", "neighbor"])["n"]
        excess = _block_excess(exact_counts)
    model_of = {t: m for m, t in COUNT_TABLE_OF_MODEL.items()}
    out = []
    for _, p in published[published["table"].isin(["XXI", "XXII", "XXIII", "XXIV", "XXV"])].iterrows():
        table, row, column, printed = p["table"], p["row"], p["column"], p["published"]
        if table == "XXV":
            model_row, side = row.rsplit(" (", 1)
            model, group = _MODEL_OF_ROW[model_row], "White" if side.startswith("Unprotected") else "Black"
            # K = own 1 (unfavourable), neighbour 0; N-K = own 0, neighbour 1
            count_table = COUNT_TABLE_OF_MODEL[model]
            cell = (count_table, group) + ((1, 0) if column in ("K", "P-Value") else (0, 1))
            k_cell, nk_cell = (count_table, group, 1, 0), (count_table, group, 0, 1)
        else:
            group = "White" if row.startswith("Unprotected") else "Black"
            y, x = int(row.rsplit("=", 1)[1]), int(column.rsplit("=", 1)[1])
            cell = (table, group, x, y)
            model = model_of[table]
        r = rand.loc[cell]
        random_text = (
            f"{mc}: mean {r['mean']:.1f}, 95% range {r['q025']:.0f}-{r['q975']:.0f}, printed z = {r['z']:.2f}"
        )
        if exact is None:
            if column == "P-Value":
                k, nk = round(float(rand.loc[k_cell]["mean"])), round(float(rand.loc[nk_cell]["mean"]))
                value = mcnemar_midp_as_published(k, nk).pvalue
                note = f"Table XX's formula on the Monte Carlo mean counts K = {k}, N-K = {nk}; {_SQRT2}"
            else:
                value = float(r["mean"])
                note = f"Monte Carlo with {random_text}; {_SQRT2}; the exact search on every fold was not run"
        elif column == "P-Value":
            k, nk = int(exact.loc[k_cell]), int(exact.loc[nk_cell])
            value = mcnemar_midp_as_published(k, nk).pvalue
            note = (
                f"Table XX's formula on the exact search's counts K = {k}, N-K = {nk} "
                "(awareness_exact_search.csv)"
            )
        else:
            value = float(exact.loc[cell])
            gap = int(round(_as_float(printed) - value))
            note = (
                f"the authors' exact search on all 250 folds in their set-up (awareness_exact_search.csv): "
                f"{value:.0f} for the printed {printed} (printed - ours {gap:+d}, "
                f"{100 * gap / value:+.1f}%)"
                + _setup_range(setup_counts, *cell)
                + f"; {random_text}; {_SQRT2}"
            )
            if cell[:2] in excess:
                total, extra = excess[cell[:2]]
                note += (
                    f"; the printed block of Table {cell[0]} ({cell[1]}) adds up to {total}, not the group's "
                    f"{total - extra} people (tests/compendium/test_published_b.py::"
                    f"test_printed_count_checks): if this cell is the misprint, by the excess of {extra:+d}, "
                    f"printed - ours would be {gap - extra:+d}"
                )
        ok = matches_printed(column, printed, value)
        out.append(["B", table, row, column, printed, value, SOURCE, ok, note + _model_note(model)])
    return out


def _as_float(text: str) -> float:
    return float(str(text).strip().lstrip("~").replace("\u2212", "-"))


def published_vs_reproduced_authors_procedure(
    published_csv,
    *,
    causal_counts: pd.DataFrame,
    causal_tests: pd.DataFrame,
    random_counts: pd.DataFrame,
    readings: pd.DataFrame,
    n_draws: int,
    seed: int,
    exact_counts: pd.DataFrame | None = None,
    setup_counts: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Every printed number of Tables XI-XIII and XV-XXV beside the authors' procedures.

    Parameters
    ----------
    published_csv : str or path-like
        ``data/published/paper-b-tables.csv``.
    causal_counts, causal_tests : pandas.DataFrame, keyword-only
        :func:`compendium.paper_b.battery.causal_discrimination_tables` on the refits.
    random_counts : pandas.DataFrame, keyword-only
        :func:`compendium.paper_b.authors_awareness.summarise_random_counts`.
    readings : pandas.DataFrame, keyword-only
        :func:`compendium.paper_b.printed_readings.run_readings`.
    n_draws, seed : int, keyword-only
        The Monte Carlo's draws and seed (for the notes).
    exact_counts : pandas.DataFrame, optional, keyword-only
        :func:`compendium.paper_b.authors_awareness.exact_search_counts` of the search on every fold, with
        the printed counts (``awareness_exact_search.csv``); when given, Tables XXI-XXV are reproduced from
        it, else from the Monte Carlo mean.
    setup_counts : pandas.DataFrame, optional, keyword-only
        The counts of :func:`compendium.paper_b.authors_awareness.setup_sensitivity`
        (``exact_search_setup_counts.csv``): how far another floating-point set-up moves each count.

    Returns
    -------
    pandas.DataFrame
        :data:`compendium.publish.published.PVR_COLUMNS`, ``source`` = ``"authors-procedure"``; every mismatch
        has a note.
    """
    published = read_published_b(published_csv)
    out = _reading_rows(published, readings)
    cells = causal_counts.set_index(["table", "group", "original", "other"])["n"]
    tests = causal_tests.set_index(["model", "group"])
    rand = random_counts.set_index(["table", "group", "original", "neighbor"])
    for _, p in published[published["table"].isin(["XVI", "XVII", "XVIII", "XIX", "XX"])].iterrows():
        table, row, column, printed = p["table"], p["row"], p["column"], p["published"]
        if table == "XX":
            model_row, side = row.rsplit(" (", 1)
            model, group = _MODEL_OF_ROW[model_row], "White" if side.startswith("Unprotected") else "Black"
            t = tests.loc[(model, group)]
            k, nk = int(t["k"]), int(t["n_minus_k"])
            if column == "P-Value":
                value = mcnemar_midp_as_published(k, nk).pvalue
                note = (
                    f"Table XX's formula 2*cdf(m) - 0.5*pmf(m) on the refits' K = {k}, N-K = {nk}; the mid-p "
                    f"of Eq. 3 is {mcnemar_midp(k, nk).pvalue:.4g}"
                )
            else:
                value = float(k if column == "K" else nk)
                note = f"discordant pairs of the authors' refit ({model}, {group})"
        else:
            group = "White" if row.startswith("Unprotected") else "Black"
            y, x = int(row.rsplit("=", 1)[1]), int(column.rsplit("=", 1)[1])
            model = {"XVI": "lr", "XVII": "lda", "XVIII": "rf", "XIX": "xgb"}[table]
            value = float(cells.loc[(table, group, x, y)])
            note = f"count of the authors' refit ({model}: original {x}, race-flipped {y}, {group})"
        ok = matches_printed(column, printed, value)
        out.append(
            ["B", table, row, column, printed, value, SOURCE, ok, "" if ok else note + _model_note(model)]
        )
    out += _awareness_rows(published, rand, exact_counts, setup_counts, n_draws=n_draws, seed=seed)
    frame = pd.DataFrame(out, columns=PVR_COLUMNS)
    order = {t: i for i, t in enumerate(dict.fromkeys(published["table"]))}
    return frame.sort_values("table", key=lambda s: s.map(order), kind="stable").reset_index(drop=True)
