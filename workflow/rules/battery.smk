# Rules for the battery stage: paper B's fairness tests.
#
# One rule per source, each writing under results/<experiment>/nij/<source>/:
#   authors  - the authors' committed per-fold results (data/raw/paper-b-authors) through the paper's own
#              formula, beside correct tests (rule authors_battery);
#   <preset> - our rerun (paper/clean presets; rule run_battery), the models pairwise (compare_models,
#              summarise_model_comparison), the printed tables beside every source and the conclusions
#              (tabulate_paper_b), the erratum (write_paper_b_erratum), the figures (draw_paper_b_figures), and
#              the notebook that reads them all (render_paper_b); the paper preset's published-vs-reproduced
#              piece (source rerun) is appended to PVR_PIECES.
import os.path

AUTHORS_RAW = f"{RAW}/paper-b-authors"
AUTHORS_RESULTS = f"{RESULTS}/nij/authors"
PUBLISHED_B = "data/published/paper-b-tables.csv"


# The declared readings of the two printed numbers of Tables I-X that the authors' committed per-fold values
# miss: Table I's LR accuracy (rounding x a fold left out) and Tables III/VIII's XGBoost statistic (shares as
# committed or rounded x a fold left out of a group); compendium.paper_b.per_fold_searches.
rule search_authors_per_fold:
    input:
        fairness=ancient(
            f"{AUTHORS_RAW}/Fairness Metrics - All Predicted Outcome Binary Metrics from Verma Paper.csv"
        ),
        confusion=ancient(f"{AUTHORS_RAW}/Confusion Distribution.csv"),
        published=PUBLISHED_B,
    output:
        table_i=f"{AUTHORS_RESULTS}/tables/table_i_search.csv",
        table_i_md=f"{AUTHORS_RESULTS}/tables/table_i_search.md",
        ppv=f"{AUTHORS_RESULTS}/tables/ppv_search.csv",
        ppv_md=f"{AUTHORS_RESULTS}/tables/ppv_search.md",
    params:
        raw_dir=lambda wildcards, input: os.path.dirname(input.confusion),
    log:
        f"{RESULTS}/logs/search_authors_per_fold.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/search_authors_per_fold.py"


rule authors_battery:
    input:
        fairness=ancient(
            f"{AUTHORS_RAW}/Fairness Metrics - All Predicted Outcome Binary Metrics from Verma Paper.csv"
        ),
        confusion=ancient(f"{AUTHORS_RAW}/Confusion Distribution.csv"),
        contingencies=ancient(f"{AUTHORS_RAW}/Contingencies.csv"),
        published=PUBLISHED_B,
        table_i_search=rules.search_authors_per_fold.output.table_i,
        ppv_search=rules.search_authors_per_fold.output.ppv,
    output:
        battery=f"{AUTHORS_RESULTS}/tables/battery.csv",
        battery_md=f"{AUTHORS_RESULTS}/tables/battery.md",
        checks=f"{AUTHORS_RESULTS}/tables/printed-count-checks.csv",
        checks_md=f"{AUTHORS_RESULTS}/tables/printed-count-checks.md",
        impossible=f"{AUTHORS_RESULTS}/tables/printed_impossible.csv",
        impossible_md=f"{AUTHORS_RESULTS}/tables/printed_impossible.md",
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

# The rerun: paper B's battery on each preset's out-of-fold predictions (rule gather_predictions), and the
# notebook that sets both sources beside the printed tables and ends with the erratum.
BATTERY_RESULTS = f"{RESULTS}/nij/{{preset}}"


rule run_battery:
    input:
        predictions=NIJ_PREDICTIONS,
        table=rules.reconstruct_nij.output.table,
        confusion=ancient(f"{AUTHORS_RAW}/Confusion Distribution.csv"),
        fairness=ancient(
            f"{AUTHORS_RAW}/Fairness Metrics - All Predicted Outcome Binary Metrics from Verma Paper.csv"
        ),
        contingencies=ancient(f"{AUTHORS_RAW}/Contingencies.csv"),
        published=PUBLISHED_B,
        # cited in the published-vs-reproduced piece: the authors' battery and the printed numbers ruled out
        authors_battery=rules.authors_battery.output.battery,
        impossible=rules.authors_battery.output.impossible,
    output:
        battery=f"{BATTERY_RESULTS}/tables/battery.csv",
        battery_md=f"{BATTERY_RESULTS}/tables/battery.md",
        fold_metrics=f"{BATTERY_RESULTS}/tables/battery_fold_metrics.csv",
        fold_agreement=f"{BATTERY_RESULTS}/tables/battery_fold_agreement.csv",
        fold_agreement_md=f"{BATTERY_RESULTS}/tables/battery_fold_agreement.md",
        counts=f"{BATTERY_RESULTS}/tables/battery_count_tables.csv",
        counts_md=f"{BATTERY_RESULTS}/tables/battery_count_tables.md",
        calibration_bins=f"{BATTERY_RESULTS}/tables/battery_calibration_bins.csv",
        calibration_bins_md=f"{BATTERY_RESULTS}/tables/battery_calibration_bins.md",
        well_terms=f"{BATTERY_RESULTS}/tables/battery_well_calibration_terms.csv",
        well_terms_md=f"{BATTERY_RESULTS}/tables/battery_well_calibration_terms.md",
        features=f"{BATTERY_RESULTS}/tables/battery_awareness_features.csv",
        features_md=f"{BATTERY_RESULTS}/tables/battery_awareness_features.md",
        neighbours=f"{BATTERY_RESULTS}/tables/battery_awareness_neighbours.parquet",
        pvr=f"{BATTERY_RESULTS}/published-vs-reproduced-battery.csv",
    params:
        raw_dir=lambda wildcards, input: os.path.dirname(input.confusion),
        favorable=config["nij"]["favorable"],
        alpha=config["nij"]["alpha"],
        n_bins=config["nij"]["calibration_bins"],
    log:
        f"{RESULTS}/logs/nij/{{preset}}/run_battery.log",
    benchmark:
        f"{RESULTS}/benchmarks/nij/{{preset}}/run_battery.tsv"
    conda:
        "../../environment.yml"
    script:
        "../scripts/run_battery.py"


# Model against model (issue 42): every pair of the four models, the paired change of each disparity over the
# shared folds (the rerun's out-of-fold predictions; the authors' per-fold results), Holm over all pairs.
rule compare_models:
    input:
        predictions=NIJ_PREDICTIONS,
        fairness=ancient(
            f"{AUTHORS_RAW}/Fairness Metrics - All Predicted Outcome Binary Metrics from Verma Paper.csv"
        ),
        confusion=ancient(f"{AUTHORS_RAW}/Confusion Distribution.csv"),
    output:
        table=f"{BATTERY_RESULTS}/tables/model_comparison.csv",
        table_md=f"{BATTERY_RESULTS}/tables/model_comparison.md",
        figure=f"{BATTERY_RESULTS}/figures/model_comparison.png",
        figure_pdf=f"{BATTERY_RESULTS}/figures/model_comparison.pdf",
    params:
        raw_dir=lambda wildcards, input: os.path.dirname(input.confusion),
        favorable=config["nij"]["favorable"],
        alpha=config["inference"]["alpha"],
        margin=config["inference"]["margin"],
        models=config["nij"]["models"],
    log:
        f"{RESULTS}/logs/nij/{{preset}}/compare_models.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/compare_models.py"


# What the pairwise comparison finds, for the notebook: the pairs fairer or less fair beyond chance, and the
# count of each verdict (compendium.paper_b.model_comparison).
rule summarise_model_comparison:
    input:
        table=rules.compare_models.output.table,
    output:
        fairer=f"{BATTERY_RESULTS}/tables/model_comparison_fairer.csv",
        fairer_md=f"{BATTERY_RESULTS}/tables/model_comparison_fairer.md",
        verdicts=f"{BATTERY_RESULTS}/tables/model_comparison_verdicts.csv",
        verdicts_md=f"{BATTERY_RESULTS}/tables/model_comparison_verdicts.md",
    log:
        f"{RESULTS}/logs/nij/{{preset}}/summarise_model_comparison.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/summarise_model_comparison.py"


# Paper B's tables beside the printed ones, in the paper's layout, and the conclusions under a correct test, from
# both batteries and the published-vs-reproduced pieces (compendium.paper_b.printed_layout, .conclusions).
rule tabulate_paper_b:
    input:
        unpack(lambda wildcards: {"ap_pvr": rules.authors_procedure_tables.output.pvr} if AP_ON else {}),
        battery=rules.run_battery.output.battery,
        fold_metrics=rules.run_battery.output.fold_metrics,
        counts=rules.run_battery.output.counts,
        pvr=rules.run_battery.output.pvr,
        authors_battery=rules.authors_battery.output.battery,
        authors_pvr=rules.authors_battery.output.pvr,
        confusion=ancient(f"{AUTHORS_RAW}/Confusion Distribution.csv"),
        fairness=ancient(
            f"{AUTHORS_RAW}/Fairness Metrics - All Predicted Outcome Binary Metrics from Verma Paper.csv"
        ),
        published=PUBLISHED_B,
    output:
        tables=f"{BATTERY_RESULTS}/tables/paper_b_tables.csv",
        tables_md=f"{BATTERY_RESULTS}/tables/paper_b_tables.md",
        summary=f"{BATTERY_RESULTS}/tables/paper_b_tables_summary.csv",
        summary_md=f"{BATTERY_RESULTS}/tables/paper_b_tables_summary.md",
        layout_md=f"{BATTERY_RESULTS}/tables/paper_b_tables_layout.md",
        t_by_hand=f"{BATTERY_RESULTS}/tables/paper_b_t_by_hand.csv",
        t_by_hand_md=f"{BATTERY_RESULTS}/tables/paper_b_t_by_hand.md",
        causal_matches=f"{BATTERY_RESULTS}/tables/paper_b_causal_matches.csv",
        causal_matches_md=f"{BATTERY_RESULTS}/tables/paper_b_causal_matches.md",
        conclusions=f"{BATTERY_RESULTS}/tables/paper_b_conclusions.csv",
        conclusions_md=f"{BATTERY_RESULTS}/tables/paper_b_conclusions.md",
        conclusion_changes=f"{BATTERY_RESULTS}/tables/paper_b_conclusion_changes.md",
    params:
        raw_dir=lambda wildcards, input: os.path.dirname(input.confusion),
        alpha=config["nij"]["alpha"],
    log:
        f"{RESULTS}/logs/nij/{{preset}}/tabulate_paper_b.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/tabulate_paper_b.py"


# The erratum (compendium.paper_b.erratum): every printed number that is wrong or cannot be reproduced, from the
# tables above, the printed-count checks and, where they ran, the authors' procedures' tables; the opt-in exact
# search's committed tables enter where they exist (rules authors_exact_search and gather_awareness_exact_search;
# nothing schedules them).
ERRATUM_OPT_IN = {"setups": f"{AP_TABLES}/exact_search_setups.csv", "exact_search": AP_EXACT["exact"]}


rule write_paper_b_erratum:
    input:
        unpack(
            lambda wildcards: (
                {
                    "causal_counts": rules.authors_procedure_tables.output.causal_counts,
                    "random_neighbour": rules.authors_procedure_tables.output.random_counts,
                    "gaps": rules.authors_procedure_tables.output.gaps,
                }
                | {k: ancient(v) for k, v in ERRATUM_OPT_IN.items() if os.path.exists(v)}
                if AP_ON
                else {}
            )
        ),
        tables=rules.tabulate_paper_b.output.tables,
        conclusions=rules.tabulate_paper_b.output.conclusions,
        battery=rules.run_battery.output.battery,
        authors_battery=rules.authors_battery.output.battery,
        impossible=rules.authors_battery.output.impossible,
        contingencies=ancient(f"{AUTHORS_RAW}/Contingencies.csv"),
        published=PUBLISHED_B,
    output:
        erratum=f"{BATTERY_RESULTS}/tables/paper_b_erratum.csv",
        erratum_md=f"{BATTERY_RESULTS}/tables/paper_b_erratum.md",
        by_kind=f"{BATTERY_RESULTS}/tables/paper_b_erratum_by_kind.csv",
        by_kind_md=f"{BATTERY_RESULTS}/tables/paper_b_erratum_by_kind.md",
        changed=f"{BATTERY_RESULTS}/tables/paper_b_erratum_conclusions.md",
    params:
        raw_dir=lambda wildcards, input: os.path.dirname(input.contingencies),
        alpha=config["nij"]["alpha"],
    log:
        f"{RESULTS}/logs/nij/{{preset}}/write_paper_b_erratum.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/write_paper_b_erratum.py"


rule draw_paper_b_figures:
    input:
        battery=rules.run_battery.output.battery,
        fold_metrics=rules.run_battery.output.fold_metrics,
        calibration_bins=rules.run_battery.output.calibration_bins,
        authors_battery=rules.authors_battery.output.battery,
        confusion=ancient(f"{AUTHORS_RAW}/Confusion Distribution.csv"),
        fairness=ancient(
            f"{AUTHORS_RAW}/Fairness Metrics - All Predicted Outcome Binary Metrics from Verma Paper.csv"
        ),
    output:
        distributions=f"{BATTERY_RESULTS}/figures/paper_b_fold_distributions.png",
        distributions_pdf=f"{BATTERY_RESULTS}/figures/paper_b_fold_distributions.pdf",
        calibration=f"{BATTERY_RESULTS}/figures/paper_b_calibration_curves.png",
        calibration_pdf=f"{BATTERY_RESULTS}/figures/paper_b_calibration_curves.pdf",
        pvalues=f"{BATTERY_RESULTS}/figures/paper_b_naive_vs_corrected_pvalues.png",
        pvalues_pdf=f"{BATTERY_RESULTS}/figures/paper_b_naive_vs_corrected_pvalues.pdf",
    params:
        raw_dir=lambda wildcards, input: os.path.dirname(input.confusion),
        alpha=config["nij"]["alpha"],
        favorable=config["nij"]["favorable"],
    log:
        f"{RESULTS}/logs/nij/{{preset}}/draw_paper_b_figures.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/draw_paper_b_figures.py"


# The notebook reads what the rules above (and run_battery, compare_models, the authors' procedures) wrote, and
# explains it; it computes nothing itself.
rule render_paper_b:
    input:
        unpack(
            lambda wildcards: (
                {
                    "ap_summaries": list(rules.summarise_authors_procedure.output),
                    "ap_tables": [
                        rules.authors_procedure_tables.output.readings_by_model,
                        rules.authors_procedure_tables.output.gaps,
                    ],
                }
                if AP_ON
                else {}
            )
        ),
        nb="notebooks/paper_b_battery.ipynb",
        battery=rules.run_battery.output.battery,
        fold_metrics=rules.run_battery.output.fold_metrics,
        authors_battery=rules.authors_battery.output.battery,
        tables=list(rules.tabulate_paper_b.output),
        erratum=list(rules.write_paper_b_erratum.output),
        figures=list(rules.draw_paper_b_figures.output),
        model_comparison=rules.compare_models.output.table,
        model_comparison_figure=rules.compare_models.output.figure,
        model_comparison_summaries=list(rules.summarise_model_comparison.output),
    output:
        nb=f"{BATTERY_RESULTS}/notebooks/paper_b_battery.ipynb",
    params:
        results_dir=lambda wildcards, output: os.path.dirname(os.path.dirname(output.nb)),
        ap_dir=lambda wildcards, input: os.path.dirname(input.ap_tables[0]) if AP_ON else "",
    log:
        f"{RESULTS}/logs/nij/{{preset}}/render_paper_b.log",
    conda:
        "../../environment.yml"
    shell:
        "papermill {input.nb:q} {output.nb:q} -k python3 --no-progress-bar"
        " -p results_dir {params.results_dir:q} -p authors_battery_csv {input.authors_battery:q}"
        # plain quotes, not :q: "" when the authors' procedures are off, and :q drops an empty word
        " -p authors_procedure_dir '{params.ap_dir}'"
        " -p preset {wildcards.preset:q}"
        " > {log:q} 2>&1"
        " && python -m compendium.publish.executed_notebook {output.nb:q} >> {log:q} 2>&1"


if "paper" in NIJ_PRESETS:
    PVR_PIECES.append(expand(rules.run_battery.output.pvr, preset="paper")[0])

# Final files of this stage.
battery_targets = lambda: list(rules.search_authors_per_fold.output) + list(rules.authors_battery.output) + expand(
    list(rules.run_battery.output)
    + list(rules.compare_models.output)
    + list(rules.summarise_model_comparison.output)
    + list(rules.tabulate_paper_b.output)
    + list(rules.write_paper_b_erratum.output)
    + list(rules.draw_paper_b_figures.output)
    + list(rules.render_paper_b.output),
    preset=NIJ_PRESETS,
)
