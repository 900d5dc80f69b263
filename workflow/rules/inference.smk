# Beyond the papers (issue 6): inference that holds up. Outputs under results/<experiment>/inference/:
#   compas/<filter>/  paper B's outcome tests without folds on COMPAS, bootstrap intervals (rule test_compas_outcomes)
#   nij/<preset>/     the equal confusion test, residuals and bootstrap disparities on the NIJ models' out-of-fold
#                     predictions, by race and race x gender (rule audit_nij_predictions)
#   nij/<source>/     Holm / Benjamini-Hochberg over paper B's battery and the verdict tables (rule adjust_battery);
#                     source = authors (the authors' per-fold results) or a preset (our rerun, rule run_battery)
#   notebooks/, figures/, tables/  the notebook for a reader who knows the papers (rule render_beyond_the_papers)
# Stages whose producing rule is not (yet) in the workflow are left out of the targets, so the workflow stays
# runnable while they are written: the NIJ part needs rule gather_predictions, the rerun battery rule run_battery.

import os.path

INFERENCE = f"{RESULTS}/inference"
INFERENCE_COMPAS_FILTER = (
    COMPAS_PAPER_FILTER if COMPAS_PAPER_FILTER in config["compas"]["filters"] else config["compas"]["filters"][0]
)
INFERENCE_NIJ_PRESETS = NIJ_PRESETS if hasattr(rules, "gather_predictions") else []
# Hook: the rerun battery joins as soon as rule run_battery (battery.smk) exists; the authors' battery always.
INFERENCE_SOURCES = ["authors"] + (NIJ_PRESETS if hasattr(rules, "run_battery") else [])
INFERENCE_METRICS = ["ppr", "tpr", "fpr", "fnr", "ppv", "npv", "accuracy", "fn_fp_ratio"]


rule test_compas_outcomes:
    input:
        data=rules.filter_compas.output.data,
    output:
        tests=f"{INFERENCE}/compas/{{filter}}/tables/outcome_tests.csv",
        tests_md=f"{INFERENCE}/compas/{{filter}}/tables/outcome_tests.md",
        cramers_v=f"{INFERENCE}/compas/{{filter}}/tables/cramers_v.csv",
        cramers_v_md=f"{INFERENCE}/compas/{{filter}}/tables/cramers_v.md",
    params:
        groupings=config["compas"]["groupings"],
        groups=config["inference"]["compas_groups"],
        favorable=config["nij"]["favorable"],
        alpha=config["nij"]["alpha"],
        n_resamples=config["inference"]["n_resamples"],
        confidence_level=config["inference"]["confidence_level"],
        seed=config["seed"],
    log:
        f"{RESULTS}/logs/inference/test_compas_outcomes_{{filter}}.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/inference_compas.py"


rule audit_nij_predictions:
    input:
        predictions=NIJ_PREDICTIONS,
        table=rules.reconstruct_nij.output.table,
    output:
        equal_confusion=f"{INFERENCE}/nij/{{preset}}/tables/equal_confusion.csv",
        equal_confusion_md=f"{INFERENCE}/nij/{{preset}}/tables/equal_confusion.md",
        residuals=f"{INFERENCE}/nij/{{preset}}/tables/residuals.csv",
        residuals_md=f"{INFERENCE}/nij/{{preset}}/tables/residuals.md",
        disparities=f"{INFERENCE}/nij/{{preset}}/tables/disparities.csv",
        disparities_md=f"{INFERENCE}/nij/{{preset}}/tables/disparities.md",
    params:
        groups=["WHITE", "BLACK"],
        metrics=INFERENCE_METRICS,
        favorable=config["nij"]["favorable"],
        alpha=config["inference"]["alpha"],
        n_resamples=config["inference"]["n_resamples"],
        confidence_level=config["inference"]["confidence_level"],
        seed=config["seed"],
    log:
        f"{RESULTS}/logs/inference/audit_nij_predictions_{{preset}}.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/inference_nij.py"


rule adjust_battery:
    input:
        battery=lambda wildcards: (
            rules.authors_battery.output.battery
            if wildcards.source == "authors"
            else expand(rules.run_battery.output.battery, preset=wildcards.source)[0]
        ),
    output:
        adjusted=f"{INFERENCE}/nij/{{source}}/tables/battery_adjusted.csv",
        adjusted_md=f"{INFERENCE}/nij/{{source}}/tables/battery_adjusted.md",
        verdicts=f"{INFERENCE}/nij/{{source}}/tables/verdicts.csv",
        verdicts_md=f"{INFERENCE}/nij/{{source}}/tables/verdicts.md",
        verdicts_model=f"{INFERENCE}/nij/{{source}}/tables/verdicts_per_model.csv",
        verdicts_model_md=f"{INFERENCE}/nij/{{source}}/tables/verdicts_per_model.md",
    wildcard_constraints:
        source="authors|paper|clean",
    params:
        alpha=config["inference"]["alpha"],
    log:
        f"{RESULTS}/logs/inference/adjust_battery_{{source}}.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/inference_battery.py"


# Three-way verdicts over the battery (issue 12), a step of its own beside adjust_battery.
rule three_way_battery:
    input:
        battery=lambda wildcards: (
            rules.authors_battery.output.battery
            if wildcards.source == "authors"
            else expand(rules.run_battery.output.battery, preset=wildcards.source)[0]
        ),
        adjusted=rules.adjust_battery.output.adjusted,
    output:
        three_way=f"{INFERENCE}/nij/{{source}}/tables/three_way.csv",
        three_way_md=f"{INFERENCE}/nij/{{source}}/tables/three_way.md",
    wildcard_constraints:
        source="authors|paper|clean",
    params:
        alpha=config["inference"]["alpha"],
        margin=config["inference"]["margin"],
    log:
        f"{RESULTS}/logs/inference/three_way_battery_{{source}}.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/three_way_battery.py"


rule render_beyond_the_papers:
    input:
        nb="notebooks/beyond_the_papers.ipynb",
        compas_tests=expand(rules.test_compas_outcomes.output.tests, filter=INFERENCE_COMPAS_FILTER),
        compas_v=expand(rules.test_compas_outcomes.output.cramers_v, filter=INFERENCE_COMPAS_FILTER),
        nij_equal=expand(rules.audit_nij_predictions.output.equal_confusion, preset=INFERENCE_NIJ_PRESETS),
        nij_residuals=expand(rules.audit_nij_predictions.output.residuals, preset=INFERENCE_NIJ_PRESETS),
        nij_disparities=expand(rules.audit_nij_predictions.output.disparities, preset=INFERENCE_NIJ_PRESETS),
        adjusted=expand(rules.adjust_battery.output.adjusted, source=INFERENCE_SOURCES),
        verdicts=expand(rules.adjust_battery.output.verdicts, source=INFERENCE_SOURCES),
        published=NIJ_PUBLISHED_B,
        three_way=expand(rules.three_way_battery.output.three_way, source=INFERENCE_SOURCES),
        # Tables XX, XV and XXV through the authors' procedures: the authors' source of the conclusions table
        authors_procedure_tests=(
            [
                rules.authors_procedure_tables.output.causal_tests,
                rules.authors_procedure_tables.output.balance_tests,
                rules.authors_procedure_tables.output.awareness_tests,
            ]
            if AP_ON
            else []
        ),
        # issue 26: the sound score tests of paper B's probabilities and COMPAS' deciles
        # (rules test_scores_nij / test_scores_compas, below)
        nij_scores=expand(f"{INFERENCE}/nij/{{preset}}/tables/score_tests.csv", preset=INFERENCE_NIJ_PRESETS),
        compas_scores=expand(f"{INFERENCE}/compas/{{filter}}/tables/score_tests.csv", filter=INFERENCE_COMPAS_FILTER),
    output:
        nb=f"{INFERENCE}/notebooks/beyond_the_papers.ipynb",
        conclusions=f"{INFERENCE}/tables/paper_b_conclusions_survive.csv",
        conclusions_md=f"{INFERENCE}/tables/paper_b_conclusions_survive.md",
        forest=f"{INFERENCE}/figures/forest_disparities.png",
        pvalues=f"{INFERENCE}/figures/naive_vs_corrected_pvalues.png",
        verdicts=f"{INFERENCE}/figures/verdicts.png",
        margin_band=f"{INFERENCE}/figures/equivalence_margin.png",
        power=f"{INFERENCE}/figures/power_folds_vs_split.png",
    params:
        out_dir=lambda wildcards, output: os.path.dirname(os.path.dirname(output.conclusions)),
        alpha=config["inference"]["alpha"],
        nij_equal=lambda wildcards, input: ",".join(input.nij_equal),
        nij_residuals=lambda wildcards, input: ",".join(input.nij_residuals),
        nij_disparities=lambda wildcards, input: ",".join(input.nij_disparities),
        adjusted=lambda wildcards, input: ",".join(input.adjusted),
        verdicts=lambda wildcards, input: ",".join(input.verdicts),
        three_way=lambda wildcards, input: ",".join(input.three_way),
        authors_procedure_tests=lambda wildcards, input: ",".join(input.authors_procedure_tests),
        nij_scores=lambda wildcards, input: ",".join(input.nij_scores),
        margin=config["inference"]["margin"],
    log:
        f"{RESULTS}/logs/inference/render_beyond_the_papers.log",
    conda:
        "../../environment.yml"
    shell:
        "papermill {input.nb:q} {output.nb:q} -k python3 --no-progress-bar"
        " -p compas_outcome_tests {input.compas_tests:q} -p compas_cramers_v {input.compas_v:q}"
        " -p nij_equal_confusion {params.nij_equal:q} -p nij_residuals {params.nij_residuals:q}"
        " -p nij_disparities {params.nij_disparities:q} -p battery_adjusted {params.adjusted:q}"
        " -p verdicts {params.verdicts:q} -p published_csv {input.published:q}"
        " -p alpha {params.alpha} -p out_dir {params.out_dir:q}"
        " -p three_way {params.three_way:q} -p margin {params.margin}"
        # plain quotes, not :q: "" when the authors' procedures are off, and :q drops an empty word
        " -p authors_procedure_tests '{params.authors_procedure_tests}'"
        " -p nij_score_tests '{params.nij_scores}' -p compas_score_tests {input.compas_scores:q}"
        " > {log:q} 2>&1"
        " && python -m compendium.publish.executed_notebook {output.nb:q} >> {log:q} 2>&1"


# Final files of this stage (appended to all_targets in common.smk).
rule test_scores_compas:
    # issue 26: COMPAS' decile score (1-10) by sex, race and sex x race: AUC (DeLong), score distributions per
    # outcome class; no calibration (the deciles are not probabilities)
    input:
        data=rules.filter_compas.output.data,
    output:
        tests=f"{INFERENCE}/compas/{{filter}}/tables/score_tests.csv",
        tests_md=f"{INFERENCE}/compas/{{filter}}/tables/score_tests.md",
    params:
        title="COMPAS decile score (predicts two-year recidivism)",
        groupings=config["compas"]["groupings"],
        alpha=config["inference"]["alpha"],
        confidence_level=config["inference"]["confidence_level"],
        margin=config["inference"]["margin"],
        n_resamples=config["inference"]["score_n_resamples"],
        seed=config["seed"],
    log:
        f"{RESULTS}/logs/inference/test_scores_compas_{{filter}}.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/score_tests.py"


rule test_scores_nij:
    # issue 26: paper B's predicted probabilities (out-of-fold, each model) by race: AUC, logistic
    # recalibration and ICI, score distributions per outcome class (Tables XII-XV's subject, with sound tests)
    input:
        data=NIJ_PREDICTIONS,
    output:
        tests=f"{INFERENCE}/nij/{{preset}}/tables/score_tests.csv",
        tests_md=f"{INFERENCE}/nij/{{preset}}/tables/score_tests.md",
        calibration=f"{INFERENCE}/nij/{{preset}}/tables/score_calibration.csv",
        calibration_md=f"{INFERENCE}/nij/{{preset}}/tables/score_calibration.md",
    params:
        title="Paper B's predicted probabilities of recidivism (out-of-fold, per model)",
        groupings={"race": ["race"]},
        alpha=config["inference"]["alpha"],
        confidence_level=config["inference"]["confidence_level"],
        margin=config["inference"]["margin"],
        n_resamples=config["inference"]["score_n_resamples"],
        seed=config["seed"],
    log:
        f"{RESULTS}/logs/inference/test_scores_nij_{{preset}}.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/score_tests.py"


inference_targets = lambda: (
    expand(rules.test_compas_outcomes.output, filter=config["compas"]["filters"])
    + expand(rules.test_scores_compas.output, filter=config["compas"]["filters"])
    + expand(rules.test_scores_nij.output, preset=INFERENCE_NIJ_PRESETS)
    + expand(rules.audit_nij_predictions.output, preset=INFERENCE_NIJ_PRESETS)
    + expand(rules.adjust_battery.output, source=INFERENCE_SOURCES)
    + expand(rules.three_way_battery.output, source=INFERENCE_SOURCES)
    + list(rules.render_beyond_the_papers.output)
)
