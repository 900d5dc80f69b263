"""Paper B's tables from the authors' own per-fold results: the battery, the printed-count checks and the
published-vs-reproduced piece (source authors-per-fold). Thin adapter over compendium.paper_b.authors."""

import logging

from compendium.paper_b.authors import authors_battery, printed_count_checks, published_vs_reproduced_authors
from fairstats.reporting import atomic_write_text, write_table

sm = snakemake  # noqa: F821
logging.basicConfig(filename=sm.log[0], level=logging.INFO)
raw_dir, alpha, published = sm.params.raw_dir, sm.params.alpha, sm.input.published

battery = authors_battery(raw_dir, alpha=alpha)
title = "Paper B's fold-based t-tests on the authors' per-fold results: the paper's formula vs correct tests"
write_table(battery, sm.output.battery, digits=4, title=title)
checks = printed_count_checks(published, raw_dir)
write_table(checks, sm.output.checks, title="Paper B: consistency of the printed counts (Tables XVI-XXV)")
pvr = published_vs_reproduced_authors(raw_dir, published, alpha=alpha)
atomic_write_text(sm.output.pvr, pvr.to_csv(index=False, lineterminator="\n"))
logging.info(
    "%d battery rows, %d verdicts change under the corrected t; "
    "%d printed numbers, %d match; %d of %d checks fail",
    len(battery),
    int(battery["verdict_changes"].sum()),
    len(pvr),
    int(pvr["matches"].sum()),
    int((~checks["ok"]).sum()),
    len(checks),
)
