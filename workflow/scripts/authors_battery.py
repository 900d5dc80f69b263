"""Paper B's tables from the authors' own per-fold results: the battery, the printed-count checks, the
printed numbers that arithmetic rules out and the published-vs-reproduced piece (source authors-per-fold).
Thin adapter over compendium.paper_b.authors."""

import logging

import pandas as pd

from compendium.paper_b.authors import (
    authors_battery,
    printed_count_checks,
    published_vs_reproduced_authors,
    read_published_b,
)
from compendium.paper_b.per_fold_searches import search_summary
from compendium.paper_b.printed_arithmetic import impossible_printed_numbers
from compendium.publish.reporting import atomic_write_text, write_table

sm = snakemake  # noqa: F821
logging.basicConfig(filename=sm.log[0], level=logging.INFO)
raw_dir, alpha, published = sm.params.raw_dir, sm.params.alpha, sm.input.published

battery = authors_battery(raw_dir, alpha=alpha)
title = "Paper B's fold-based t-tests on the authors' per-fold results: the paper's formula vs correct tests"
write_table(battery, sm.output.battery, digits=4, title=title)
checks = printed_count_checks(published, raw_dir)
write_table(checks, sm.output.checks, title="Paper B: consistency of the printed counts (Tables XVI-XXV)")
impossible = impossible_printed_numbers(read_published_b(published))
title = "Paper B: printed counts that arithmetic on the other printed counts rules out (Tables XVI-XXV)"
write_table(impossible, sm.output.impossible, title=title)
searches = {key: search_summary(pd.read_csv(sm.input[key])) for key in ("table_i_search", "ppv_search")}
evidence = {
    "battery": sm.output.battery,
    "impossible": sm.output.impossible,
    "table_i_search": sm.input.table_i_search,
    "ppv_search": sm.input.ppv_search,
}
pvr = published_vs_reproduced_authors(raw_dir, published, alpha=alpha, searches=searches, evidence=evidence)
atomic_write_text(sm.output.pvr, pvr.to_csv(index=False, lineterminator="\n"))
logging.info(
    "%d battery rows, %d verdicts change under the corrected t; "
    "%d printed numbers, %d match; %d of %d checks fail; %d printed numbers ruled out",
    len(battery),
    int(battery["verdict_changes"].sum()),
    len(pvr),
    int(pvr["matches"].sum()),
    int((~checks["ok"]).sum()),
    len(checks),
    len(impossible),
)
