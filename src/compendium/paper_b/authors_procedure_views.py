"""What the authors' procedures' tables show, summarised for the reader of ``paper_b_battery.ipynb``.

The tables come from rule ``authors_procedure_tables`` and the opt-in exact search
(``results/<experiment>/nij/authors_procedure/tables``); the summaries here are written by rule
``summarise_authors_procedure`` beside them, and :func:`causal_matches` by rule ``tabulate_paper_b`` (it needs
a preset's rerun):

* :func:`causal_matches` — per table of Tables XVI-XX, the printed numbers the refits and our Table I models
  reproduce;
* :func:`setup_summary` — the chosen distances of the exact search under every set-up tried (all sqrt(2) minus
  rounding noise), and how the chosen neighbours are predicted against all other-race people of the fold;
* :func:`random_neighbour_view` — each printed awareness count against a uniformly random neighbour's 95 %
  range;
* :func:`exact_search_view` — each printed count beside the exact search's and the random neighbour's mean,
  with the set-ups whose range holds the gap;
* :func:`readings_summary` — per table, how many readings were declared and which reproduce it.

The ``*_text`` functions put a summary's headline numbers into the notebook's sentences.
"""

from __future__ import annotations

import pandas as pd

from compendium.paper_b.authors_awareness import setup_gaps_summary

__all__ = [
    "EMPTY_EXACT_VIEW",
    "EMPTY_SETUP_SUMMARY",
    "EXACT_VIEW_COLUMNS",
    "causal_matches",
    "exact_search_text",
    "exact_search_view",
    "random_neighbour_text",
    "random_neighbour_view",
    "readings_by_model_text",
    "readings_summary",
    "setup_summary",
    "setup_summary_text",
    "source_rows",
]

_CAUSAL = ("XVI", "XVII", "XVIII", "XIX", "XX")
_CELL = ["table", "group", "original", "neighbor"]
#: Columns of :func:`exact_search_view` (the last two only with the set-ups' gaps).
EXACT_VIEW_COLUMNS = (
    "model",
    "table",
    "group",
    "original",
    "neighbor",
    "n",
    "published",
    "random_mean",
    "printed_minus_exact",
    "in_range_of",
    "no_setup_towards",
)


def source_rows(combined: pd.DataFrame, tables) -> pd.DataFrame:
    """The rows of ``paper_b_tables.csv`` of ``tables``: printed, authors-procedure and rerun numbers."""
    sub = combined[combined["table"].isin(tables)]
    cols = ["table", "row", "column", "published", "authors_procedure", "matches_authors_procedure", "rerun"]
    return sub[[c for c in [*cols, "matches_rerun"] if c in sub]]


def causal_matches(combined: pd.DataFrame) -> pd.DataFrame:
    """Per table of Tables XVI-XX: how many printed numbers the authors' refits
    (``matches_authors_procedure``) and our Table I models (``matches_rerun``) reproduce, of ``printed``;
    empty without the source authors-procedure."""
    if "authors_procedure" not in combined:
        return pd.DataFrame(columns=["table", "matches_authors_procedure", "matches_rerun", "printed"])
    causal = source_rows(combined, _CAUSAL)
    out = causal.groupby("table", sort=False)[["matches_authors_procedure", "matches_rerun"]].sum()
    return out.assign(printed=causal.groupby("table", sort=False).size()).reset_index()


def setup_summary(neighbours: pd.DataFrame, refits: pd.DataFrame | None = None) -> pd.DataFrame:
    """The exact search under the set-ups tried (``exact_search_neighbours.csv``): the chosen distance minus
    sqrt(2) (min, median, max over every set-up), and, with the authors' refits (``refits.parquet``), the
    share of the first set-up's chosen neighbours whom the LDA refit predicts 1, beside all other-race people
    of the searched folds, for Black and White people.

    Returns
    -------
    pandas.DataFrame
        ``statistic, group, value``.
    """
    d = neighbours["distance_minus_sqrt2"].describe()
    rows = [
        {"statistic": f"distance_minus_sqrt2_{name}", "group": "", "value": d[q]}
        for name, q in (("min", "min"), ("median", "50%"), ("max", "max"))
    ]
    if refits is not None:
        lda = refits.query("model == 'lda'").set_index("ID")["y_pred"]
        first = neighbours[neighbours["setup"] == neighbours["setup"].iloc[0]]
        for black, label in ((1, "Black"), (0, "White")):
            mine = first[first["black"] == black]
            others = first.loc[first["black"] != black, "ID"]
            rows.append(
                {
                    "statistic": "neighbour_predicted_1",
                    "group": label,
                    "value": lda.loc[mine["neighbour_ID"]].mean(),
                }
            )
            rows.append(
                {"statistic": "other_race_predicted_1", "group": label, "value": lda.loc[others].mean()}
            )
    return pd.DataFrame(rows, columns=["statistic", "group", "value"])


def setup_summary_text(summary: pd.DataFrame) -> str:
    """:func:`setup_summary` in sentences."""
    value = summary.set_index(["statistic", "group"])["value"]
    d = {q: value[(f"distance_minus_sqrt2_{q}", "")] for q in ("min", "median", "max")}
    lines = [f"chosen distance - sqrt(2): min {d['min']:.3g}, median {d['median']:.3g}, max {d['max']:.3g}"]
    for label in ("Black", "White"):
        if ("neighbour_predicted_1", label) in value:
            lines.append(
                f"{label} people of the searched folds: neighbour predicted 1 (LDA) "
                f"{value[('neighbour_predicted_1', label)]:.3f}, all other-race people "
                f"{value[('other_race_predicted_1', label)]:.3f}"
            )
    return "\n".join(lines)


def random_neighbour_view(random_counts: pd.DataFrame) -> pd.DataFrame:
    """``awareness_random_neighbour.csv`` with ``inside_95``: the printed count lies in the Monte Carlo's 95 %
    range of a uniformly random other-race neighbour."""
    out = random_counts.copy()
    out["inside_95"] = (out["published"] >= out["q025"]) & (out["published"] <= out["q975"])
    return out


def random_neighbour_text(view: pd.DataFrame) -> str:
    """How many printed cells :func:`random_neighbour_view` finds inside the range, and what follows."""
    n_in, n = int(view["inside_95"].sum()), len(view)
    consistent = n_in >= 0.9 * n
    return (
        f"{n_in} of {n} printed cells inside the Monte Carlo 95% range; "
        f"|z| median {view['z'].abs().median():.2f}, max {view['z'].abs().max():.2f}\n"
        "The printed counts are "
        + ("consistent" if consistent else "NOT consistent")
        + " with a uniformly random other-race neighbour"
        + (
            "."
            if consistent
            else " (the exact search below is not a uniform draw either); either way the neighbour is not "
            "the most similar person, which is what individual fairness needs."
        )
    )


def exact_search_view(
    exact: pd.DataFrame, random_counts: pd.DataFrame, gaps: pd.DataFrame | None = None
) -> pd.DataFrame:
    """Each printed awareness count (``awareness_exact_search.csv``) beside the random neighbour's mean and,
    with the set-ups' gaps (``exact_search_gaps.csv``), the set-ups whose projected range holds the gap
    (``in_range_of``) and whether every set-up moves our count away from the printed one or leaves it
    (``no_setup_towards``). Columns :data:`EXACT_VIEW_COLUMNS` (the last two left out without gaps)."""
    rand = random_counts[[*_CELL, "mean"]].rename(columns={"mean": "random_mean"})
    view = exact.merge(rand, on=_CELL)
    view["printed_minus_exact"] = view["published"] - view["n"]
    if gaps is not None and len(gaps):
        view = view.merge(setup_gaps_summary(gaps)[[*_CELL, "in_range_of", "no_setup_towards"]], on=_CELL)
    return view[[c for c in EXACT_VIEW_COLUMNS if c in view]]


def exact_search_text(view: pd.DataFrame, gaps: pd.DataFrame | None = None) -> str:
    """:func:`exact_search_view` in sentences: gaps held by a set-up's range, the search against the random
    neighbour, the median gap."""
    lines = []
    if gaps is not None and len(gaps) and "in_range_of" in view:
        gap = view["printed_minus_exact"] != 0
        held = gap & (view["in_range_of"].fillna("") != "")
        away = gap & view["no_setup_towards"].astype(bool)
        blocks = gaps.groupby(["table", "group", "setup"])["gap_in_range"].all()
        lines.append(
            f"of {len(view)} printed cells: {int((~gap).sum())} equal the search's count; {int(held.sum())} "
            f"gaps lie in the projected range of at least one other set-up tried; for {int(away.sum())}, "
            "every set-up tried moves our count away from the printed one or leaves it; "
            f"{int((gap & ~held & ~away).sum())} lie beyond every range. (Block, set-up) pairs whose ranges "
            f"hold all four gaps of the block: {int(blocks.sum())} of {len(blocks)}"
        )
    closer = (view["printed_minus_exact"].abs() < (view["published"] - view["random_mean"]).abs()).sum()
    lines.append(
        f"the exact search is nearer the printed count than the random neighbour's mean in {closer} of "
        f"{len(view)} cells; median |printed - exact| / printed = "
        f"{(view['printed_minus_exact'].abs() / view['published']).median():.1%}"
    )
    return "\n".join(lines)


def readings_summary(readings: pd.DataFrame) -> pd.DataFrame:
    """Per table of ``readings.csv``: the readings declared and those that reproduce it (``"none"``)."""
    return (
        readings.groupby("table", sort=False)
        .agg(
            readings=("reading", "nunique"),
            reproducing=(
                "reading",
                lambda s: ", ".join(sorted(set(s[readings.loc[s.index, "reading_matches"]]))) or "none",
            ),
        )
        .reset_index()
    )


def readings_by_model_text(by_model: pd.DataFrame) -> str:
    """Per table of ``readings_by_model.csv``: how many printed statistics some reading gives, and the nearest
    readings."""
    lines = []
    for table, g in by_model.groupby("table", sort=False):
        hit = g[g["readings_matching"] > 0]
        lines.append(
            f"Table {table}: {len(hit)} of {len(g)} printed statistics (model by model) given by some reading"
            + ("" if hit.empty else f" ({', '.join(hit['model'] + ' ' + hit['column'])})")
            + f"; nearest readings: {', '.join(sorted(set(g['nearest_reading'])))}"
        )
    return "\n".join(lines)


def _empty(columns) -> pd.DataFrame:
    return pd.DataFrame({c: pd.Series(dtype=float if c == "value" else object) for c in columns})


EMPTY_SETUP_SUMMARY = _empty(["statistic", "group", "value"])
EMPTY_EXACT_VIEW = _empty(EXACT_VIEW_COLUMNS)
