# Which subgroup? (issue 17 B): the COMPAS people of one filter preset searched over conjunctions of up to
# compas.search.max_depth values of compas.search.attributes, p-values adjusted over the whole search by
# Westfall-Young max-T permutations (fairstats.subgroup_search), and a null simulation for students: the
# unadjusted minimum p of the search on label-permuted data. Outputs under results/<experiment>/compas/
# subgroup_search/ (tables/, figures/, notebooks/). Without a compas.search block (e.g. config/teaching.yaml)
# the stage is off.
import os.path

SUBGROUPS = f"{RESULTS}/compas/subgroup_search"
SEARCH = config["compas"].get("search")
if SEARCH is not None and SEARCH["filter"] not in config["compas"]["presets"]:
    raise ValueError(
        f"config compas.search.filter: {SEARCH['filter']!r} is not a preset; compas.presets has "
        f"{sorted(config['compas']['presets'])}"
    )


if SEARCH is not None:

    # The search and the null simulation: compendium.paper_a.subgroup_search (its command line).
    rule search_compas_subgroups:
        input:
            data=expand(rules.filter_compas.output.data, filter=SEARCH["filter"]),
        output:
            sizes=f"{SUBGROUPS}/tables/attribute_sizes.csv",
            sizes_md=f"{SUBGROUPS}/tables/attribute_sizes.md",
            subgroups=f"{SUBGROUPS}/tables/subgroups.csv",
            subgroups_md=f"{SUBGROUPS}/tables/subgroups.md",
            summary=f"{SUBGROUPS}/tables/subgroup_search_summary.csv",
            summary_md=f"{SUBGROUPS}/tables/subgroup_search_summary.md",
            warnings=f"{SUBGROUPS}/tables/subgroup_search_warnings.csv",
            warnings_md=f"{SUBGROUPS}/tables/subgroup_search_warnings.md",
            fpr=f"{SUBGROUPS}/tables/fpr_disparities.csv",
            fpr_md=f"{SUBGROUPS}/tables/fpr_disparities.md",
            residuals=f"{SUBGROUPS}/tables/subgroup_residuals.csv",
            residuals_md=f"{SUBGROUPS}/tables/subgroup_residuals.md",
            null=f"{SUBGROUPS}/tables/null_simulation.csv",
            null_md=f"{SUBGROUPS}/tables/null_simulation.md",
            null_summary=f"{SUBGROUPS}/tables/null_simulation_summary.csv",
            null_summary_md=f"{SUBGROUPS}/tables/null_simulation_summary.md",
            top=f"{SUBGROUPS}/figures/top_subgroups.png",
            top_pdf=f"{SUBGROUPS}/figures/top_subgroups.pdf",
            null_figure=f"{SUBGROUPS}/figures/null_minimum_p.png",
            null_figure_pdf=f"{SUBGROUPS}/figures/null_minimum_p.pdf",
        params:
            out_dir=lambda wildcards, output: os.path.dirname(os.path.dirname(output.subgroups)),
            filter_name=SEARCH["filter"],
            attributes=",".join(SEARCH["attributes"]),
            max_depth=SEARCH["max_depth"],
            min_size=SEARCH["min_size"],
            metrics=",".join(SEARCH["metrics"]),
            alpha=SEARCH["alpha"],
            n_resamples=SEARCH["n_resamples"],
            n_null=SEARCH["n_null"],
            n_null_resamples=SEARCH["n_null_resamples"],
            seed=config["seed"],
        log:
            f"{RESULTS}/logs/compas/search_compas_subgroups.log",
        conda:
            "../../environment.yml"
        shell:
            "python -m compendium.paper_a.subgroup_search {input.data:q} {params.out_dir:q}"
            " --filter-name {params.filter_name:q} --attributes {params.attributes:q}"
            " --max-depth {params.max_depth} --min-size {params.min_size} --metrics {params.metrics:q}"
            " --alpha {params.alpha} --n-resamples {params.n_resamples} --n-null {params.n_null}"
            " --n-null-resamples {params.n_null_resamples} --seed {params.seed}"
            " > {log:q} 2>&1"

    # The notebook reads what search_compas_subgroups wrote and explains it; it computes nothing itself.
    rule render_compas_subgroup_search:
        input:
            nb="notebooks/compas_subgroup_search.ipynb",
            tables=list(rules.search_compas_subgroups.output),
        output:
            nb=f"{SUBGROUPS}/notebooks/compas_subgroup_search.ipynb",
        params:
            results_dir=lambda wildcards, output: os.path.dirname(os.path.dirname(output.nb)),
        log:
            f"{RESULTS}/logs/compas/render_compas_subgroup_search.log",
        conda:
            "../../environment.yml"
        shell:
            "papermill {input.nb:q} {output.nb:q} -k python3 --no-progress-bar"
            " -p results_dir {params.results_dir:q}"
            " > {log:q} 2>&1"
            " && python -m compendium.publish.executed_notebook {output.nb:q} >> {log:q} 2>&1"


# Final files of this stage (appended to all_targets in common.smk).
subgroups_targets = lambda: (
    list(rules.search_compas_subgroups.output) + list(rules.render_compas_subgroup_search.output)
    if SEARCH is not None
    else []
)
