"""Source ``authors-procedure`` of ``results/published-vs-reproduced.csv``: paper B's Tables XI-XXV by the
authors' own procedures.

* XVI-XX: the authors' causal-discrimination refits (:mod:`compendium.paper_b.authors_procedure`) through
  :func:`compendium.paper_b.battery.causal_discrimination_tables` (counts, K, N - K; p-values by
  :func:`~compendium.paper_b.as_published.mcnemar_midp_as_published`, the formula behind the printed ones,
  with the mid-p of Eq. 3 in the note).
* XXI-XXV: the neighbour of the authors' search is decided by rounding
  (:mod:`compendium.paper_b.authors_awareness`). ``reproduced`` is the count of the authors' exact search on
  every fold in their set-up (the opt-in rules' ``awareness_exact_search.csv``); the note gives the gap, its
  sign and size against each other floating-point set-up tried (``exact_search_gaps.csv``) and where the
  seeded Monte Carlo with a uniformly random other-race neighbour puts the count; without the exact search,
  the Monte Carlo mean. Where a printed block's four counts do not add up to the group, each of its cells'
  notes says what the gap would be if that cell were the misprint.
* XI, XII, XIII, XV: the declared readings (:mod:`compendium.paper_b.printed_readings`); a number is
  reproduced only by a reading that reproduces the whole table for LDA and RF, and the note names the reading;
  per model, the reading nearest to each printed statistic (``readings_by_model.csv``).

Every row says what it rests on (``basis``, :mod:`compendium.publish.pvr_classes`): whether the model's
inputs are the authors' — our Table I fits for XI-XV (per-fold accuracy equal to the authors' in every fold,
``table1_agreement.csv``), our refits for XVI-XXV (their own-prediction totals equal to the printed tables') —
and the committed results behind it (``evidence``).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from compendium.paper_b.as_published import mcnemar_midp_as_published
from compendium.paper_b.authors import MODELS, read_published_b
from compendium.paper_b.authors_awareness import COUNT_TABLE_OF_MODEL
from compendium.paper_b.printed_arithmetic import PAIR_TABLES, impossible_printed_numbers, printed_blocks
from compendium.paper_b.printed_readings import nearest_reading
from compendium.publish.published import PVR_PIECE_COLUMNS, matches_printed
from fairstats.mcnemar import mcnemar_midp

__all__ = ["EVIDENCE", "SOURCE", "published_vs_reproduced_authors_procedure"]

#: The value of the ``source`` column.
SOURCE = "authors-procedure"
_R = "results/default/nij/authors_procedure/tables"
#: Where the evidence of this source's rows is (default experiment): rule authors_procedure_tables' results,
#: the opt-in exact search's, Table I's agreement with the authors (rule render_table1) and the printed
#: numbers that arithmetic rules out (rule authors_battery).
EVIDENCE = {
    "readings": f"{_R}/readings.csv",
    "readings_by_model": f"{_R}/readings_by_model.csv",
    "causal_counts": f"{_R}/causal_count_tables.csv",
    "causal_tests": f"{_R}/causal_mcnemar.csv",
    "random": f"{_R}/awareness_random_neighbour.csv",
    "exact": f"{_R}/awareness_exact_search.csv",
    "gaps": f"{_R}/exact_search_gaps.csv",
    "agreement": "results/default/nij/paper/tables/table1_agreement.csv",
    "impossible": "results/default/nij/authors/tables/printed_impossible.csv",
    "distance": "tests/compendium/test_authors_awareness.py::"
    "test_the_covariance_of_two_stacked_vectors_is_rank_one_and_every_distance_is_sqrt2",
}
_MODEL_OF_ROW = {v[3]: m for m, v in MODELS.items()}
_SQRT2 = (
    "the authors' 'Mahalanobis' distance uses the covariance of the two stacked vectors, (x-y)(x-y)^T/2, of "
    "rank one, so every pair of distinct people is at distance sqrt(2) and the chosen neighbour is decided "
    "by rounding (tests/compendium/test_authors_awareness.py)"
)


class _Inputs:
    """Whether each model's inputs are the authors': Table I fits (XI-XV) and refits (XVI-XXV)."""

    def __init__(self, agreement: pd.DataFrame, causal_counts: pd.DataFrame, published: pd.DataFrame) -> None:
        a = agreement.set_index(agreement["model"].astype(str))
        self.fits = {m: (int(a.at[m, "n_exact"]), int(a.at[m, "n_folds"])) for m in a.index}
        blocks = printed_blocks(published)
        counts = causal_counts.set_index(["table", "group", "original", "other"])["n"].sort_index()
        self.refits: dict[str, list[tuple[str, int, int]]] = {}
        for table, (model, kind) in PAIR_TABLES.items():
            if kind != "causal" or table not in set(causal_counts["table"]):
                continue
            self.refits[model] = [
                (group, int(counts.loc[(table, group, 0)].sum()), int(blocks[(table, group)][:, 0].sum()))
                for group in ("White", "Black")
            ]

    def fits_equal(self, model: str) -> bool:
        n, folds = self.fits.get(model, (0, 0))
        return n == folds == 250

    def refits_equal(self, model: str) -> bool:
        return model in self.refits and all(ours == printed for _, ours, printed in self.refits[model])

    def basis(self, table: str, model: str) -> str:
        if table in ("XI", "XII", "XIII", "XIV", "XV"):
            if model not in self.fits:
                return ""
            return "inputs equal" if self.fits_equal(model) else "inputs differ"
        if model not in self.refits:
            return ""
        return "inputs equal" if self.refits_equal(model) else "inputs differ"

    def note(self, table: str, model: str) -> str:
        if self.basis(table, model) != "inputs differ":
            return ""
        if table in ("XI", "XII", "XIII", "XIV", "XV"):
            n, folds = self.fits[model]
            return (
                f"; our {model.upper()} fits give the authors' per-fold accuracy in {n} of {folds} folds "
                "(table1_agreement.csv): its inputs differ from the authors'"
            )
        totals = ", ".join(f"{g} {ours} (printed {printed})" for g, ours, printed in self.refits[model])
        return (
            f"; our {model.upper()} refits predict 0 for {totals} people, the printed X = 0 column totals "
            "of the authors' refits (causal_count_tables.csv): its refits differ from the authors'"
        )


def _reading_rows(
    published: pd.DataFrame, readings: pd.DataFrame, by_model: pd.DataFrame, inputs: _Inputs, ev: dict
) -> list[list]:
    out = []
    tried = readings.groupby("table")["reading"].nunique()
    nearest_of = by_model.set_index(["table", "model", "column"])
    for _, p in published[published["table"].isin(["XI", "XII", "XIII", "XV"])].iterrows():
        table, row, column, printed = p["table"], p["row"], p["column"], p["published"]
        model = _MODEL_OF_ROW[row]
        basis = inputs.basis(table, model)
        evidence = [ev["readings"], ev["readings_by_model"]] + ([ev["agreement"]] if basis else [])
        r = readings[readings["table"] == table]
        full = r[r["reading_matches"]]
        # reproduced = the reading that gives the whole table for LDA and RF, else the table's nearest
        name, error = (full["reading"].iloc[0], None) if len(full) else nearest_reading(readings, table)
        hit = r[(r["reading"] == name) & (r["row"] == row) & (r["column"] == column)]
        value = float(hit["reproduced"].iloc[0]) if len(hit) else float("nan")
        ok = bool(hit["matches"].iloc[0]) if len(hit) else False
        if error is None:
            note = (
                f"reading '{name}' (one of {tried[table]} declared in compendium.printed_readings, the only "
                f"one that gives every printed number of Table {table} for LDA and RF)"
            )
            if table == "XV":
                note += (
                    ": it compares E(S | y=1) of Black people with E(S | y=0) of White people, i.e. two "
                    "different classes, not the balance for the negative class the paper names"
                )
            if not ok:
                note += f"; on our fits of this model it gives {value:.4g} for the printed {printed}"
        else:
            off = f" (off by {value - _as_float(printed):+.4g})" if not ok and np.isfinite(value) else ""
            note = (
                f"none of the {tried.get(table, 0)} declared readings (compendium.printed_readings; bins, "
                "closure, counted outcome, expected count, ratio, zero convention) gives every printed "
                f"number of Table {table} for LDA and RF; reproduced = the table's nearest reading "
                f"'{name}' (mean relative error {100 * error:.1f}% over LDA's and RF's printed "
                f"statistics): {value:.4g} for the printed {printed}{off}"
            )
            if (table, model, column) in nearest_of.index:
                n = nearest_of.loc[(table, model, column)]
                readings_n = int(n["readings"])
                matching = (
                    f"{int(n['readings_matching'])} of {readings_n} readings give it ({n['matching']})"
                    if int(n["readings_matching"])
                    else f"none of the {readings_n} readings gives it"
                )
                note += (
                    f"; for this model and number alone, {matching}; the nearest is "
                    f"'{n['nearest_reading']}', {n['nearest_value']:.4g} "
                    f"({100 * n['nearest_error']:.1f}% off; readings_by_model.csv)"
                )
        note += inputs.note(table, model)
        out.append(["B", table, row, column, printed, value, SOURCE, ok, note, "; ".join(evidence), basis])
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


def _setup_text(gaps: pd.DataFrame | None, table: str, group: str, x: int, y: int) -> str:
    """The gap against each other set-up tried: where the set-up's projected change lies, what it shows."""
    if gaps is None:
        return ""
    part = gaps[
        (gaps["table"] == table)
        & (gaps["group"] == group)
        & (gaps["original"] == x)
        & (gaps["neighbor"] == y)
    ]
    if part.empty:
        return ""
    words = {
        "towards": "towards the printed count",
        "away": "away from the printed count",
        "still": "no change",
        "no gap": "no gap",
    }
    each = []
    for _, g in part.iterrows():
        where = "its range holds the gap" if g["gap_in_range"] else "its range does not hold the gap"
        each.append(
            f"{g['setup']} moves ours by {g['change_low']:+.0f} to {g['change_high']:+.0f} "
            f"({words[g['direction']]}; {where})"
        )
    return (
        "; per other floating-point set-up tried (exact_search_gaps.csv: the change over the 250 folds "
        "projected from 11 sampled folds): " + ", ".join(each)
    )


def _awareness_rows(
    published: pd.DataFrame,
    rand: pd.DataFrame,
    exact_counts: pd.DataFrame | None,
    gaps: pd.DataFrame | None,
    inputs: _Inputs,
    ev: dict,
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
        basis = inputs.basis(table, model)
        evidence = [ev["random"]] + ([ev["causal_counts"]] if basis == "inputs differ" else [])
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
                f"(awareness_exact_search.csv; the mid-p of Eq. 3 is {mcnemar_midp(k, nk).pvalue:.4g})"
            )
            evidence = [ev["exact"], *evidence]
        else:
            value = float(exact.loc[cell])
            gap = int(round(_as_float(printed) - value))
            note = (
                f"the authors' exact search on all 250 folds in their set-up (awareness_exact_search.csv): "
                f"{value:.0f} for the printed {printed} (printed - ours {gap:+d}, {100 * gap / value:+.1f}%)"
                + _setup_text(gaps, *cell)
                + f"; {random_text}; {_SQRT2}"
            )
            evidence = [ev["exact"]] + ([ev["gaps"]] if gaps is not None else []) + evidence
            if cell[:2] in excess:
                total, extra = excess[cell[:2]]
                note += (
                    f"; the printed block of Table {cell[0]} ({cell[1]}) adds up to {total}, not the "
                    f"group's {total - extra} people (printed_count_checks): at least one of its cells is "
                    f"misprinted; if this cell is, by the excess of {extra:+d}, printed - ours would be "
                    f"{gap - extra:+d}"
                )
        ok = matches_printed(column, printed, value)
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
                note + inputs.note(table, model),
                "; ".join(evidence),
                basis,
            ]
        )
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
    readings_by_model: pd.DataFrame,
    agreement: pd.DataFrame,
    n_draws: int,
    seed: int,
    exact_counts: pd.DataFrame | None = None,
    setup_gaps: pd.DataFrame | None = None,
    evidence: Mapping[str, str] | None = None,
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
    readings, readings_by_model : pandas.DataFrame, keyword-only
        :func:`compendium.paper_b.printed_readings.run_readings` and
        :func:`~compendium.paper_b.printed_readings.readings_by_model`.
    agreement : pandas.DataFrame, keyword-only
        ``table1_agreement.csv`` (``model, n_folds, n_exact``): in how many folds our Table I fits give the
        authors' per-fold accuracy.
    n_draws, seed : int, keyword-only
        The Monte Carlo's draws and seed (for the notes).
    exact_counts : pandas.DataFrame, optional, keyword-only
        :func:`compendium.paper_b.authors_awareness.exact_search_counts` of the search on every fold, with
        the printed counts (``awareness_exact_search.csv``); when given, Tables XXI-XXV are reproduced from
        it, else from the Monte Carlo mean.
    setup_gaps : pandas.DataFrame, optional, keyword-only
        :func:`compendium.paper_b.authors_awareness.setup_gaps` (``exact_search_gaps.csv``).
    evidence : mapping, optional, keyword-only
        Paths of the committed results named in ``evidence`` (keys of :data:`EVIDENCE`); default the
        default experiment's.

    Returns
    -------
    pandas.DataFrame
        :data:`compendium.publish.published.PVR_PIECE_COLUMNS`, ``source`` = ``"authors-procedure"``; every
        mismatch has a note.
    """
    ev = {**EVIDENCE, **dict(evidence or {})}
    published = read_published_b(published_csv)
    inputs = _Inputs(agreement, causal_counts, published)
    out = _reading_rows(published, readings, readings_by_model, inputs, ev)
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
            evidence = [ev["causal_tests"], ev["causal_counts"]]
        else:
            group = "White" if row.startswith("Unprotected") else "Black"
            y, x = int(row.rsplit("=", 1)[1]), int(column.rsplit("=", 1)[1])
            model = {"XVI": "lr", "XVII": "lda", "XVIII": "rf", "XIX": "xgb"}[table]
            value = float(cells.loc[(table, group, x, y)])
            note = f"count of the authors' refit ({model}: original {x}, race-flipped {y}, {group})"
            evidence = [ev["causal_counts"]]
        ok = matches_printed(column, printed, value)
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
                "" if ok else note + inputs.note(table, model),
                "; ".join(evidence),
                inputs.basis(table, model),
            ]
        )
    out += _awareness_rows(published, rand, exact_counts, setup_gaps, inputs, ev, n_draws=n_draws, seed=seed)
    frame = pd.DataFrame(out, columns=PVR_PIECE_COLUMNS)
    ruled_out = impossible_printed_numbers(published).set_index(["table", "row", "column"])["arithmetic"]
    for i, r in frame.iterrows():
        if (r["table"], r["row"], r["column"]) in ruled_out.index:
            arithmetic = ruled_out.loc[(r["table"], r["row"], r["column"])]
            frame.at[i, "basis"] = "impossible"
            frame.at[i, "evidence"] = f"{ev['impossible']}; {r['evidence']}"
            frame.at[i, "note"] = f"impossible: {arithmetic}; {r['note']}"
    order = {t: i for i, t in enumerate(dict.fromkeys(published["table"]))}
    return frame.sort_values("table", key=lambda s: s.map(order), kind="stable").reset_index(drop=True)
