# Rules for the battery stage: paper B's fairness tests.
#
# One rule per source, each writing under results/<experiment>/nij/<source>/:
#   authors  - the authors' committed per-fold results (data/raw/paper-b-authors) through the paper's own
#              formula, beside correct tests (rule authors_battery);
#   <preset> - our rerun (paper/clean presets), to be added here: its rule, its outputs appended to
#              battery_targets below, its published-vs-reproduced piece appended to PVR_PIECES.
import os.path

AUTHORS_RAW = f"{RAW}/paper-b-authors"
AUTHORS_RESULTS = f"{RESULTS}/nij/authors"
PUBLISHED_B = "data/published/paper-b-tables.csv"


rule authors_battery:
    input:
        fairness=ancient(
            f"{AUTHORS_RAW}/Fairness Metrics - All Predicted Outcome Binary Metrics from Verma Paper.csv"
        ),
        confusion=ancient(f"{AUTHORS_RAW}/Confusion Distribution.csv"),
        contingencies=ancient(f"{AUTHORS_RAW}/Contingencies.csv"),
        published=PUBLISHED_B,
    output:
        battery=f"{AUTHORS_RESULTS}/tables/battery.csv",
        battery_md=f"{AUTHORS_RESULTS}/tables/battery.md",
        checks=f"{AUTHORS_RESULTS}/tables/printed-count-checks.csv",
        checks_md=f"{AUTHORS_RESULTS}/tables/printed-count-checks.md",
        pvr=f"{AUTHORS_RESULTS}/published-vs-reproduced.csv",
    params:
        raw_dir=lambda wildcards, input: os.path.dirname(input.confusion),
        alpha=config["nij"]["alpha"],
    log:
        f"{RESULTS}/logs/authors_battery.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/authors_battery.py"


PVR_PIECES.append(rules.authors_battery.output.pvr)

# Final files of this stage (add the rerun battery's outputs here).
battery_targets = lambda: list(rules.authors_battery.output)
