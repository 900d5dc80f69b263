"""Concatenate every stage's published-vs-reproduced piece into the one judged table."""

import logging

from compendium.publish.published import collect_published_vs_reproduced, summarise_published_vs_reproduced
from compendium.publish.pvr_classes import classify_published_vs_reproduced
from fairstats.reporting import atomic_write_text, write_table

logging.basicConfig(filename=snakemake.log[0], level=logging.INFO)  # noqa: F821
table = collect_published_vs_reproduced(list(snakemake.input.pieces))  # noqa: F821
# every row's class (exact, saturated, circular, differs, impossible, unexplained) and its evidence (issue 21)
table = classify_published_vs_reproduced(table)
atomic_write_text(snakemake.output.table, table.to_csv(index=False, lineterminator="\n"))  # noqa: F821
summary = summarise_published_vs_reproduced(table)
title = "Published vs reproduced: matches per table, and each class (exact apart from saturated and circular)"
write_table(summary, snakemake.output.summary, title=title)  # noqa: F821
logging.info("%d numbers, %d matching", len(table), int(summary["matching"].sum()))
