# fairstats compendium: raw data -> filters -> 4 models x 250 folds -> fairness tests -> tables and figures.
# Run: snakemake --cores all            (default experiment, config/config.yaml)
#      snakemake --cores all --configfile config/teaching.yaml
#      snakemake course --cores all       (the course labs: student + instructor versions, executed)
from snakemake.utils import min_version, validate

min_version("9.0")


configfile: "config/config.yaml"


validate(config, "workflow/schemas/config.schema.yaml")


include: "workflow/rules/common.smk"
include: "workflow/rules/data.smk"
include: "workflow/rules/compas.smk"
include: "workflow/rules/compas_levels.smk"
include: "workflow/rules/nij.smk"
include: "workflow/rules/authors_procedure.smk"
include: "workflow/rules/battery.smk"
include: "workflow/rules/inference.smk"
include: "workflow/rules/subgroups.smk"
include: "workflow/rules/monitoring.smk"
include: "workflow/rules/impact_ratios.smk"
include: "workflow/rules/report.smk"
include: "workflow/rules/site.smk"
include: "workflow/rules/course.smk"


rule all:
    input:
        all_targets(),
    default_target: True
