"""What the authors' procedures' tables show, for the notebook paper_b_battery.ipynb: the printed awareness
counts against a random neighbour's range, beside the exact search (where it ran) and the set-ups' gaps; the
exact search's distances under the set-ups tried and how its neighbours are predicted; the readings that
reproduce each table. Thin adapter over compendium.paper_b.authors_procedure_views."""

import logging

import pandas as pd

from compendium.paper_b.authors_procedure_views import (
    EMPTY_EXACT_VIEW,
    EMPTY_SETUP_SUMMARY,
    exact_search_view,
    random_neighbour_view,
    readings_summary,
    setup_summary,
)
from compendium.paper_b.predictions import read_predictions
from fairstats.reporting import write_table

sm = snakemake  # noqa: F821
logging.basicConfig(filename=sm.log[0], level=logging.INFO, filemode="w")
given, out = sm.input.keys(), sm.output
random_counts = pd.read_csv(sm.input.random_counts)
write_table(
    random_neighbour_view(random_counts),
    out.random_view,
    digits=2,
    title="Tables XXI-XXIV: each printed count against a uniformly random other-race neighbour (inside_95: "
    "in the Monte Carlo's 95% range)",
)
exact = EMPTY_EXACT_VIEW
if "exact" in given:
    gaps = pd.read_csv(sm.input.gaps)
    exact = exact_search_view(pd.read_csv(sm.input.exact), random_counts, gaps)
write_table(
    exact,
    out.exact_view,
    digits=1,
    title="Tables XXI-XXIV: printed, the authors' exact search on every fold, the random neighbour's mean, "
    "and the other set-ups whose range holds the gap (empty: the opt-in search did not run)",
)
setups = EMPTY_SETUP_SUMMARY
if "neighbours" in given:
    refits = read_predictions(sm.input.refits) if "refits" in given else None
    setups = setup_summary(pd.read_csv(sm.input.neighbours), refits)
write_table(
    setups,
    out.setup_summary,
    digits=4,
    title="The exact search under the set-ups tried: chosen distance minus sqrt(2), and the share of chosen "
    "neighbours the LDA refit predicts 1 (empty: the opt-in search did not run)",
)
write_table(
    readings_summary(pd.read_csv(sm.input.readings)),
    out.readings_summary,
    title="Readings of Tables XI, XII, XIII and XV: how many were declared, and which reproduce the table",
)
logging.info("exact search view %d rows, set-up summary %d rows", len(exact), len(setups))
