"""Paper B's erratum: every printed number of Tables II-XXV that is wrong or cannot be reproduced, its cause
and the evidence, from the tables the workflow has written; its count per cause, and the paper's conclusions
that change. Thin adapter over compendium.paper_b.erratum."""

import logging

import pandas as pd

from compendium.paper_b.authors import printed_count_checks, read_published_b
from compendium.paper_b.conclusions import read_conclusions
from compendium.paper_b.erratum import (
    AuthorsProcedureTables,
    changed_conclusions,
    erratum_by_kind,
    paper_b_erratum,
)
from compendium.paper_b.printed_layout import read_battery, read_combined
from fairstats.reporting import atomic_write_text, write_table

sm = snakemake  # noqa: F821
logging.basicConfig(filename=sm.log[0], level=logging.INFO, filemode="w")
given = sm.input.keys()
battery = pd.concat(
    [read_battery(sm.input.authors_battery, align=True), read_battery(sm.input.battery)], ignore_index=True
)
erratum = paper_b_erratum(
    read_combined(sm.input.tables),
    battery,
    published=read_published_b(sm.input.published),
    count_checks=printed_count_checks(sm.input.published, sm.params.raw_dir),
    impossible=pd.read_csv(sm.input.impossible, dtype={"published": str}),
    authors_procedure=AuthorsProcedureTables.from_files(
        **{name: sm.input[name] for name in AuthorsProcedureTables.FILES if name in given}
    ),
    alpha=sm.params.alpha,
    preset=sm.wildcards.preset,
)
write_table(erratum, sm.output.erratum, title="Paper B: erratum (computed from the tables)")
write_table(
    erratum_by_kind(erratum).reset_index(),
    sm.output.by_kind,
    title="Paper B's erratum: printed numbers (rows) and tables per cause",
)
# the erratum as the notebook reads it back (every cell text), so that its summary is the same
erratum = pd.read_csv(sm.output.erratum, dtype=str, keep_default_na=False)
text = changed_conclusions(erratum, read_conclusions(sm.input.conclusions), battery, alpha=sm.params.alpha)
atomic_write_text(sm.output.changed, text + "\n")
logging.info("%d rows: %s", len(erratum), erratum["kind"].value_counts(sort=False).to_dict())
