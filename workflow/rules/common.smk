# Shared paths, wildcard constraints and target lists. Each rule file defines <name>_targets();
# rule all asks for the union.
import os
import sys


envvars:
    "PATH",


# Tools the shell rules call (papermill, jupyter) come from the environment Snakemake itself runs in, so that
# `.venv/bin/snakemake` works without activating the environment first.
os.environ["PATH"] = os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")

# One declared floating-point set-up for every job (config openblas_coretype, compendium.publish.blas): the paper
# preset's unconverged logistic regression moves with OpenBLAS's kernels. Warn where it cannot be applied.
from compendium.publish.blas import pin_openblas_coretype

BLAS_CORETYPE, BLAS_NOTE = pin_openblas_coretype(config["openblas_coretype"])  # schema default: Haswell
if BLAS_CORETYPE != config["openblas_coretype"]:
    print(f"fairstats compendium: {BLAS_NOTE}", file=sys.stderr)

RESULTS = f"results/{config['experiment']}"
RAW = "data/raw"
INTERIM = f"data/interim/{config['experiment']}"


wildcard_constraints:
    experiment="[a-z0-9_]+",
    filter="|".join(sorted(config["compas"]["presets"])),
    preset="|".join(["paper", "clean"]),
    model="|".join(["lr", "lda", "rf", "xgb"]),
    chunk=r"\d+",


# Pieces of the published-vs-reproduced table; each stage appends the files it writes.
PVR_PIECES = []


def all_targets():
    return (
        data_targets() + compas_targets() + nij_targets() + battery_targets() + authors_procedure_targets()
        + inference_targets()
        + compas_levels_targets()
        + subgroups_targets()
        + monitoring_targets()
        + impact_ratios_targets()
        + report_targets()
    )
