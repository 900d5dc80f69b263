"""Check every file under data/raw against data/raw/SHA256SUMS; write the per-file report."""

import logging

from compendium.data.download import verify_manifest
from compendium.publish.reporting import atomic_write_text

logging.basicConfig(filename=snakemake.log[0], level=logging.INFO)  # noqa: F821
try:
    report = verify_manifest(snakemake.params.root)  # noqa: F821
except Exception:
    logging.exception("raw data check failed")
    raise
table = report.to_frame()
atomic_write_text(snakemake.output.report, table.to_csv(sep="\t", index=False, lineterminator="\n"))  # noqa: F821
logging.info("%d files match %s/SHA256SUMS", len(table), snakemake.params.root)  # noqa: F821
