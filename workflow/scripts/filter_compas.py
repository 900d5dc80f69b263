"""Filter one COMPAS file by a preset: tidy parquet for the analyses, removal report for the reader."""

import logging
import os

from compendium.data.compas import filter_compas, read_compas
from compendium.publish.reporting import write_table

logging.basicConfig(filename=snakemake.log[0], level=logging.INFO, filemode="w")  # noqa: F821
preset = dict(snakemake.params.preset)  # noqa: F821
result = filter_compas(read_compas(snakemake.input.raw), **preset)  # noqa: F821
for row in result.report.itertuples(index=False):
    logging.info("%s: removed %d, left %d", row.condition, row.rows_removed, row.rows_left)
logging.info("filter %s (%s): %d rows", snakemake.wildcards.filter, preset, len(result.frame))  # noqa: F821

out = snakemake.output.data  # noqa: F821
tmp = f"{out}.tmp"
result.frame.to_parquet(tmp, index=False)
os.replace(tmp, out)
write_table(
    result.to_frame(),
    snakemake.output.report,  # noqa: F821
    digits=0,
    title=f"Rows removed by each condition of filter {snakemake.wildcards.filter} ({result.source})",  # noqa: F821
)
