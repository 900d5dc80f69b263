# Shared paths, wildcard constraints and target lists. Each rule file defines <name>_targets();
# rule all asks for the union.
import os
import sys


envvars:
    "PATH",


# Tools the shell rules call (papermill, jupyter) come from the environment Snakemake itself runs in, so that
# `.venv/bin/snakemake` works without activating the environment first.
os.environ["PATH"] = os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")

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
        + subgroups_targets()
        + report_targets()
    )
