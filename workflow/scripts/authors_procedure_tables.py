"""Paper B's Tables XI-XXV by the authors' procedures: refit counts and McNemar rows (XVI-XX), the
random-neighbour Monte Carlo (XXI-XXV), the declared readings (XI-XIII, XV) per table and per model, Table
XV's test under the reading that reproduces it, and, where the opt-in exact search's committed results exist,
Table XXV from its counts and each count's gap against the other floating-point set-ups tried; then the
published-vs-reproduced piece."""

import logging

import pandas as pd

from compendium.paper_b.authors import read_published_b
from compendium.paper_b.authors_awareness import (
    awareness_mcnemar,
    printed_awareness_cells,
    random_neighbour_counts,
    setup_gaps,
    summarise_random_counts,
)
from compendium.paper_b.authors_procedure_pvr import published_vs_reproduced_authors_procedure
from compendium.paper_b.battery import causal_discrimination_tables
from compendium.paper_b.predictions import read_predictions
from compendium.paper_b.printed_readings import reading_tests, readings_by_model, run_readings
from compendium.publish.reporting import write_table

sm = snakemake  # noqa: F821
logging.basicConfig(filename=sm.log[0], level=logging.INFO, filemode="w")
p, out, given = sm.params, sm.output, sm.input.keys()
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
predictions = read_predictions(sm.input.predictions)
readings = run_readings(predictions, sm.input.published, n_bins=p.n_bins)
write_table(
    readings, out.readings, digits=6, title="Declared readings of Tables XI, XII, XIII, XV on LDA and RF"
)
by_model = readings_by_model(readings)
title = "Declared readings of Tables XI, XII, XIII, XV: per model and printed statistic, the nearest reading"
write_table(by_model, out.readings_by_model, digits=6, title=title)
balance = reading_tests(predictions, readings, "XV", alpha=p.alpha)
title = (
    "Table XV through the declared reading that reproduces it for LDA and RF: the paper's test, correct ones"
)
write_table(balance, out.balance_tests, digits=4, title=title)

# the opt-in exact search's committed counts, where they exist (else the tables below have no rows)
exact = pd.read_csv(sm.input.exact) if "exact" in given else None
no_counts = pd.DataFrame(columns=["model", "table", "group", "original", "neighbor", "n", "published"])
awareness = awareness_mcnemar(no_counts if exact is None else exact, alpha=p.alpha)
title = "Table XXV from the authors' exact search on every fold (mid-p and Table XX's formula)"
write_table(awareness, out.awareness_tests, digits=4, title=title)
gaps = None
if exact is not None and "setup_counts" in given:
    gaps = setup_gaps(exact, pd.read_csv(sm.input.setup_counts))
title = (
    "Tables XXI-XXIV: each printed count's gap from the exact search in the authors' set-up, against the "
    "change "
    "each other floating-point set-up tried would make (projected to 250 folds)"
)
no_setups = pd.DataFrame(
    columns=[
        "model",
        "table",
        "group",
        "original",
        "neighbor",
        "setup",
        "projected_change_low",
        "projected_change_high",
    ]
)
write_table(setup_gaps(no_counts, no_setups) if gaps is None else gaps, out.gaps, digits=4, title=title)
pvr = published_vs_reproduced_authors_procedure(
    sm.input.published,
    causal_counts=counts,
    causal_tests=tests,
    random_counts=random_counts,
    readings=readings,
    readings_by_model=by_model,
    agreement=pd.read_csv(sm.input.agreement),
    n_draws=p.n_draws,
    seed=p.seed,
    exact_counts=exact,
    setup_gaps=gaps,
    evidence={
        "readings": out.readings,
        "readings_by_model": out.readings_by_model,
        "causal_counts": out.causal_counts,
        "causal_tests": out.causal_tests,
        "random": out.random_counts,
        "gaps": out.gaps,
        "agreement": sm.input.agreement,
        "impossible": sm.input.impossible,
        **({"exact": sm.input.exact} if "exact" in given else {}),
    },
)
pvr.to_csv(out.pvr, index=False)
logging.info("authors-procedure: %d printed numbers, %d match", len(pvr), int(pvr["matches"].sum()))
