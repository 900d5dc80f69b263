# Rules for the data stage: the vendored raw files (downloaded from their pinned URLs only when missing or
# forced), their checksums, and the tidy NIJ table.
#
# data/raw is read-only input: a normal run with the vendored files present never writes there. download_raw
# has no input and no script file, so it never runs because of timestamps, only for a missing file or with
#   snakemake --cores 1 --forcerun download_raw
# (which downloads every vendored file again and keeps each only if its sha256 matches SHA256SUMS).
# The raw files are immutable and checked by sha256, so reconstruct_nij reads them as ancient(): touching them
# (a fresh clone, a copy) does not rebuild the table and the 1,000 model fits behind it.
import os.path
import re

from compendium.data.download import (
    OFFICIAL_NIJ_URL,
    SOURCES,
    fetch,
    fetch_official_nij,
    read_manifest,
)
from compendium.data.nij import OFFICIAL_N_ROWS

RAW_MANIFEST = f"{RAW}/SHA256SUMS"
RAW_SHA256 = read_manifest(RAW_MANIFEST)
NIJ_FOLD_FILES = [f"{RAW}/nij-paper-folds/fold_{i:03d}.csv" for i in range(250)]
# Optional source (config nij.source: official); not vendored, so kept out of data/raw.
NIJ_OFFICIAL = "data/interim/external/nij-official.csv"


rule download_raw:
    output:
        f"{RAW}/{{raw_file}}",
    params:
        url=lambda wildcards: SOURCES[wildcards.raw_file],
        sha256=lambda wildcards: RAW_SHA256[wildcards.raw_file],
    log:
        f"{RESULTS}/logs/download_raw/{{raw_file}}.log",
    wildcard_constraints:
        raw_file="|".join(re.escape(name) for name in sorted(SOURCES)),
    # run, not script: Snakemake reruns a script rule whose script file is newer than its outputs, which would
    # plan downloads whenever the script was edited or checked out after the data. run also uses Snakemake's
    # own interpreter (where fairstats is installed), whatever `python` is on PATH.
    run:
        fetch(params.url, output[0], sha256=params.sha256, force=True, log=log[0])


rule verify_raw:
    input:
        manifest=RAW_MANIFEST,
        files=[f"{RAW}/{name}" for name in sorted(RAW_SHA256)],
    output:
        report=f"{INTERIM}/verify_raw.tsv",
    params:
        root=lambda wildcards, input: os.path.dirname(input.manifest),
    log:
        f"{RESULTS}/logs/verify_raw.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/verify_raw.py"


rule download_official_nij:
    output:
        csv=NIJ_OFFICIAL,
        sha256=f"{NIJ_OFFICIAL}.sha256",
    params:
        url=OFFICIAL_NIJ_URL,
        expected_rows=OFFICIAL_N_ROWS,
    log:
        f"{RESULTS}/logs/download_official_nij.log",
    run:
        fetch_official_nij(params.url, output.csv, expected_rows=params.expected_rows, log=log[0])


rule reconstruct_nij:
    input:
        unpack(
            lambda wildcards: (
                {"official": NIJ_OFFICIAL}
                if config["nij"]["source"] == "official"
                else {
                    "folds": [ancient(path) for path in NIJ_FOLD_FILES],
                    "manifest": RAW_MANIFEST,
                    "verified": ancient(rules.verify_raw.output.report),
                }
            )
        ),
    output:
        table=f"{INTERIM}/nij/table.parquet",
    params:
        source=config["nij"]["source"],
        expected_rows=OFFICIAL_N_ROWS,
    log:
        f"{RESULTS}/logs/reconstruct_nij.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/reconstruct_nij.py"


data_targets = lambda: [rules.verify_raw.output.report, rules.reconstruct_nij.output.table]
