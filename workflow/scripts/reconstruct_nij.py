"""Rebuild the tidy NIJ table (fold files or official CSV) and write it as parquet."""

import logging
import os
from pathlib import Path

from compendium.data import nij

logging.basicConfig(filename=snakemake.log[0], level=logging.INFO)  # noqa: F821
source = snakemake.params.source  # noqa: F821
try:
    if source == "paper":
        table = nij.read_paper_folds(Path(snakemake.input.folds[0]).parent)  # noqa: F821
    else:
        table = nij.read_official(snakemake.input.official, expected_rows=snakemake.params.expected_rows)  # noqa: F821
except Exception:
    logging.exception("reading the NIJ %s source failed", source)
    raise
out = Path(snakemake.output.table)  # noqa: F821
tmp = out.with_name(f".{out.name}.tmp")
table.to_parquet(tmp, index=False)
os.replace(tmp, out)
logging.info(
    "source %s: %d rows, %d unique IDs, race %s, %s = 1: %d, missing %s",
    source,
    len(table),
    table["ID"].nunique(),
    table[nij.SENSITIVE].value_counts().to_dict(),
    nij.TARGET,
    int(table[nij.TARGET].sum()),
    {k: int(v) for k, v in table.isna().sum().items() if v and k != "fold"},
)
