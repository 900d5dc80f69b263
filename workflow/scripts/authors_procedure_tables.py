"""Paper B's Tables XI-XXV by the authors' procedures: refit counts and McNemar rows (XVI-XX), the
random-neighbour Monte Carlo (XXI-XXV), the declared readings (XI-XIII, XV), the published-vs-reproduced
piece (XXI-XXV from the opt-in exact search on every fold where its committed results exist)."""

import logging

import pandas as pd

from compendium.paper_b.authors import read_published_b
from compendium.paper_b.authors_awareness import (
    printed_awareness_cells,
    random_neighbour_counts,
    summarise_random_counts,
)
from compendium.paper_b.authors_procedure_pvr import published_vs_reproduced_authors_procedure
from compendium.paper_b.battery import causal_discrimination_tables
from compendium.paper_b.predictions import read_predictions
from compendium.paper_b.printed_readings import run_readings
from fairstats.reporting import write_table

sm = snakemake  # noqa: F821
logging.basicConfig(filename=sm.log[0], level=logging.INFO, filemode="w")
p, out = sm.params, sm.output
refits = read_predictions(sm.input.refits)
tests, counts = causal_discrimination_tables(
    refits, favorable=p.favorable, alpha=p.alpha, source="authors-procedure"
)
write_table(counts, out.causal_counts, title="Tables XVI-XIX by the authors' refits (Race_WHITE dropped)")
write_table(
    tests, out.causal_tests, digits=4, title="Table XX by the authors' refits (mid-p and Table XX's formula)"
)

draws = random_neighbour_counts(refits, n_draws=p.n_draws, seed=p.seed)
printed = printed_awareness_cells(read_published_b(sm.input.published))
random_counts = summarise_random_counts(draws, printed)
write_table(
    random_counts,
    out.random_counts,
    digits=4,
    title=f"Tables XXI-XXIV, neighbour a uniformly random other-race person of the fold ({p.n_draws} draws)",
)
readings = run_readings(read_predictions(sm.input.predictions), sm.input.published, n_bins=p.n_bins)
write_table(
    readings, out.readings, digits=6, title="Declared readings of Tables XI, XII, XIII, XV on LDA and RF"
)
pvr = published_vs_reproduced_authors_procedure(
    sm.input.published,
    causal_counts=counts,
    causal_tests=tests,
    random_counts=random_counts,
    readings=readings,
    n_draws=p.n_draws,
    seed=p.seed,
    exact_counts=pd.read_csv(sm.input.exact) if "exact" in sm.input.keys() else None,
    setup_counts=pd.read_csv(sm.input.setup_counts) if "setup_counts" in sm.input.keys() else None,
)
pvr.to_csv(out.pvr, index=False)
logging.info("authors-procedure: %d printed numbers, %d match", len(pvr), int(pvr["matches"].sum()))
