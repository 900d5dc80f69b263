"""The declared readings of the two printed numbers of Tables I-X that the authors' committed per-fold values
miss (Table I's LR accuracy, Tables III/VIII's XGBoost statistic). Thin adapter over
compendium.paper_b.per_fold_searches."""

import logging

from compendium.paper_b.per_fold_searches import ppv_search, search_summary, table_i_search
from compendium.publish.reporting import write_table

sm = snakemake  # noqa: F821
logging.basicConfig(filename=sm.log[0], level=logging.INFO, filemode="w")
raw_dir, published = sm.params.raw_dir, sm.input.published

table_i = table_i_search(raw_dir, published)
title = "Table I under every declared reading: rounding to three decimals x all folds or one fold left out"
write_table(table_i, sm.output.table_i, digits=6, title=title)
logging.info("%s", search_summary(table_i))
ppv = ppv_search(raw_dir, published)
title = (
    "Tables III and VIII under every declared reading: confusion shares as committed or rounded x no fold or "
    "one fold left out of the White, Black or both groups' values"
)
write_table(ppv, sm.output.ppv, digits=6, title=title)
logging.info("%s", search_summary(ppv))
