"""Concatenate every stage's published-vs-reproduced piece into the one judged table: a class per row from
what the rows compute, one class per printed number, and the counts of both."""

import logging

from compendium.publish.published import (
    PVR_COLUMNS,
    collect_published_vs_reproduced,
    summarise_published_vs_reproduced,
)
from compendium.publish.pvr_classes import by_number, classify_published_vs_reproduced, summarise_by_number
from compendium.publish.reporting import atomic_write_text, write_table

sm = snakemake  # noqa: F821
logging.basicConfig(filename=sm.log[0], level=logging.INFO)
table = collect_published_vs_reproduced(list(sm.input.pieces))
# every row's class (compendium.publish.pvr_classes), from the rows' computations and the other sources'
table = classify_published_vs_reproduced(table)[[*PVR_COLUMNS, "class", "evidence", "basis"]]
atomic_write_text(sm.output.table, table.to_csv(index=False, lineterminator="\n"))
summary = summarise_published_vs_reproduced(table)
title = "Published vs reproduced: per table and source, the numbers matched and each row's class"
write_table(summary, sm.output.summary, title=title)
numbers = by_number(table)
title = "Published vs reproduced: every printed number's best class over the sources"
write_table(numbers, sm.output.by_number, title=title)
title = "Published vs reproduced: per table, the printed numbers by their best class over the sources"
write_table(summarise_by_number(numbers), sm.output.by_number_summary, title=title)
logging.info(
    "%d rows, %d matching; %d printed numbers, by best class: %s",
    len(table),
    int(summary["matching"].sum()),
    len(numbers),
    numbers["class"].value_counts().to_dict(),
)
