"""Paper A's published-vs-reproduced piece: every printed number beside ours (filter propublica_violent)."""

import logging
import warnings

import pandas as pd

from compendium.paper_a.case_study import published_vs_reproduced_a
from compendium.publish.reporting import atomic_write_text

logging.basicConfig(filename=snakemake.log[0], level=logging.INFO, filemode="w")  # noqa: F821
logging.captureWarnings(True)
data = pd.read_parquet(snakemake.input.data)  # noqa: F821
published = pd.read_csv(snakemake.input.published, comment="#", dtype=str, keep_default_na=False)  # noqa: F821
with warnings.catch_warnings():
    warnings.simplefilter("always")
    piece = published_vs_reproduced_a(
        data,
        published,
        posthoc_alpha=snakemake.params.posthoc_alpha,  # noqa: F821
        posthoc_strict_alpha=snakemake.params.posthoc_strict_alpha,  # noqa: F821
    )
atomic_write_text(snakemake.output.piece, piece.to_csv(index=False, lineterminator="\n"))  # noqa: F821
logging.info(
    "%d published numbers, %d match at the printed precision", len(piece), int(piece["matches"].sum())
)
