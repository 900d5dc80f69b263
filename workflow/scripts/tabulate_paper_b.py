"""Paper B's Tables II-XXV beside every source (paper_b_tables.csv, its per-table summary and the paper's
layout), Table II's LR row by hand, the refits' matches of Tables XVI-XX and the conclusions under a correct
test. Thin adapter over compendium.paper_b.printed_layout, .conclusions and .authors_procedure_views."""

import logging

import pandas as pd

from compendium.paper_b.authors import authors_fold_metrics, read_published_b
from compendium.paper_b.authors_procedure_views import causal_matches
from compendium.paper_b.conclusions import conclusion_changes, conclusions
from compendium.paper_b.printed_layout import (
    combine_sources,
    layout_markdown,
    read_battery,
    read_pvr,
    source_summary,
    t_by_hand,
)
from fairstats.reporting import atomic_write_text, write_table

sm = snakemake  # noqa: F821
logging.basicConfig(filename=sm.log[0], level=logging.INFO, filemode="w")
p, out, preset = sm.params, sm.output, sm.wildcards.preset
published = read_published_b(sm.input.published)
battery = pd.concat(
    [read_battery(sm.input.authors_battery, align=True), read_battery(sm.input.battery)], ignore_index=True
)
pvr = {"authors-per-fold": read_pvr(sm.input.authors_pvr), "rerun": read_pvr(sm.input.pvr)}
if "ap_pvr" in sm.input.keys():
    pvr["authors-procedure"] = read_pvr(sm.input.ap_pvr)
combined = combine_sources(published, pvr)
write_table(
    combined,
    out.tables,
    digits=4,
    title=f"Paper B Tables II-XXV: printed, authors-per-fold, rerun (preset {preset}) and authors-procedure",
)
write_table(
    source_summary(combined).reset_index(),
    out.summary,
    digits=0,
    title="Paper B Tables II-XXV: printed numbers per table, and how many each source reproduces and "
    f"matches (rerun preset {preset})",
)
layout = layout_markdown(combined, battery, count_tables=pd.read_csv(sm.input.counts), preset=preset)
atomic_write_text(out.layout_md, layout)
folds = {"authors-per-fold": authors_fold_metrics(p.raw_dir), "rerun": pd.read_csv(sm.input.fold_metrics)}
write_table(
    t_by_hand(folds, table="II", model="lr", alpha=p.alpha),
    out.t_by_hand,
    digits=4,
    title="Table II, logistic regression, by hand from the per-fold values beside the battery's formulas",
)
write_table(
    causal_matches(combined),
    out.causal_matches,
    digits=0,
    title=f"Tables XVI-XX: printed numbers the authors' refits and our Table I models (preset {preset}) "
    "reproduce",
)
concl = conclusions(battery, published)
write_table(
    concl, out.conclusions, title=f"Paper B's conclusions under a correct test (rerun preset {preset})"
)
atomic_write_text(out.conclusion_changes, conclusion_changes(concl) + "\n")
logging.info("%d printed numbers, sources %s; %d conclusions", len(combined), list(pvr), len(concl))
