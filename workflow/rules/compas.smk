# Paper A (equal confusion fairness on COMPAS): filter by preset -> notebook (Tables III-X, figures)
# -> published-vs-reproduced piece. A preset name is the {filter} path segment of its results.

COMPAS_FILES = {
    "violent": "compas-scores-two-years-violent.csv",
    "general": "compas-scores-two-years.csv",
}
COMPAS_GROUPINGS = list(config["compas"]["groupings"])
COMPAS_PAPER_FILTER = "propublica_violent"
# compas.filters names keys of compas.presets (the schema cannot say so): refuse an unknown name here, by name.
for _name in config["compas"]["filters"]:
    if _name not in config["compas"]["presets"]:
        raise ValueError(
            f"config compas.filters: {_name!r} is not a preset; compas.presets has "
            f"{sorted(config['compas']['presets'])}"
        )


rule filter_compas:
    input:
        raw=lambda wildcards: f"{RAW}/{COMPAS_FILES[config['compas']['presets'][wildcards.filter]['outcome']]}",
    output:
        data=f"{INTERIM}/compas/{{filter}}.parquet",
        report=f"{RESULTS}/compas/{{filter}}/tables/filter_report.csv",
        report_md=f"{RESULTS}/compas/{{filter}}/tables/filter_report.md",
    params:
        preset=lambda wildcards: config["compas"]["presets"][wildcards.filter],
    log:
        f"{RESULTS}/logs/compas/filter_compas_{{filter}}.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/filter_compas.py"


rule render_paper_a:
    input:
        nb="notebooks/paper_a_equal_confusion.ipynb",
        data=rules.filter_compas.output.data,
    output:
        nb=f"{RESULTS}/compas/{{filter}}/notebooks/paper_a_equal_confusion.ipynb",
        tests=f"{RESULTS}/compas/{{filter}}/tables/equal_confusion_tests.csv",
        table_iii=f"{RESULTS}/compas/{{filter}}/tables/table_iii_cases_by_race_sex.csv",
        table_iv=f"{RESULTS}/compas/{{filter}}/tables/table_iv_overall_confusion.csv",
        cells=expand(
            f"{RESULTS}/compas/{{{{filter}}}}/tables/{{grouping}}_cells.csv", grouping=COMPAS_GROUPINGS
        ),
        ratios=expand(
            f"{RESULTS}/compas/{{{{filter}}}}/tables/{{grouping}}_ratios.csv", grouping=COMPAS_GROUPINGS
        ),
        heatmaps=expand(
            f"{RESULTS}/compas/{{{{filter}}}}/figures/{{grouping}}_residuals.png", grouping=COMPAS_GROUPINGS
        ),
        matrices=expand(
            f"{RESULTS}/compas/{{{{filter}}}}/figures/{{grouping}}_confusion_matrices.png",
            grouping=COMPAS_GROUPINGS,
        ),
    params:
        out_dir=lambda wildcards: f"{RESULTS}/compas/{wildcards.filter}",
        groupings=",".join(f"{k}:{'+'.join(v)}" for k, v in config["compas"]["groupings"].items()),
        alpha=config["compas"]["alpha"],
        posthoc_alpha=config["compas"]["posthoc_alpha"],
        posthoc_strict_alpha=config["compas"]["posthoc_strict_alpha"],
        n_resamples=config["compas"]["n_resamples"],
        seed=config["seed"],
    log:
        f"{RESULTS}/logs/compas/render_paper_a_{{filter}}.log",
    conda:
        "../../environment.yml"
    shell:
        "papermill {input.nb:q} {output.nb:q} -k python3 --no-progress-bar"
        " -p data_path {input.data:q} -p out_dir {params.out_dir:q} -p filter_name {wildcards.filter}"
        " -p groupings {params.groupings:q} -p alpha {params.alpha} -p posthoc_alpha {params.posthoc_alpha}"
        " -p posthoc_strict_alpha {params.posthoc_strict_alpha} -p n_resamples {params.n_resamples}"
        " -p seed {params.seed} > {log:q} 2>&1"
        " && python -m compendium.publish.executed_notebook {output.nb:q} >> {log:q} 2>&1"


rule compare_paper_a:
    input:
        data=f"{INTERIM}/compas/{COMPAS_PAPER_FILTER}.parquet",
        published="data/published/paper-a-tables.csv",
    output:
        piece=f"{RESULTS}/compas/{COMPAS_PAPER_FILTER}/published-vs-reproduced.csv",
    params:
        posthoc_alpha=config["compas"]["posthoc_alpha"],
        posthoc_strict_alpha=config["compas"]["posthoc_strict_alpha"],
    log:
        f"{RESULTS}/logs/compas/compare_paper_a.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/compare_paper_a.py"


if COMPAS_PAPER_FILTER in config["compas"]["presets"]:
    PVR_PIECES.append(rules.compare_paper_a.output.piece)


# Final files of this stage: each filter's executed notebook and tables, and paper A's PVR piece.
compas_targets = lambda: (
    expand(rules.render_paper_a.output.nb, filter=config["compas"]["filters"])
    + expand(rules.render_paper_a.output.tests, filter=config["compas"]["filters"])
    + expand(rules.filter_compas.output.report, filter=config["compas"]["filters"])
    + (list(rules.compare_paper_a.output) if COMPAS_PAPER_FILTER in config["compas"]["presets"] else [])
)
