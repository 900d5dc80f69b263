# Rules for the nij stage: paper B's four models across the folds -> out-of-fold and race-flipped predictions
# -> Table I and the agreement with the authors' per-fold accuracies.
#
# Fan-out: one train_fold_chunk job per (preset, model, chunk of nij.chunk_size test folds), each writing its own
# parquet file atomically; so any executor (local cores, Slurm, ...) spreads the fits, and a killed run resumes
# without refitting finished chunks. gather_predictions writes one tidy file per preset.

import os.path

NIJ_AUTHORS_FAIRNESS = (
    f"{RAW}/paper-b-authors/Fairness Metrics - All Predicted Outcome Binary Metrics from Verma Paper.csv"
)
NIJ_PUBLISHED_B = "data/published/paper-b-tables.csv"


# The test folds: every fold of the scheme (paper: the authors' 250 fold files), or config nij.test_folds.
if config["nij"]["fold_scheme"] == "stratified":
    NIJ_ALL_FOLDS = list(range(config["nij"]["n_splits"]))
elif config["nij"]["source"] != "paper":
    raise ValueError(
        "config nij.fold_scheme: 'paper' needs nij.source 'paper' (the authors' fold files), got nij.source "
        f"{config['nij']['source']!r}; use fold_scheme 'stratified' with the official file"
    )
else:
    NIJ_ALL_FOLDS = list(range(len(NIJ_FOLD_FILES)))
NIJ_TEST_FOLDS = sorted(config["nij"].get("test_folds") or NIJ_ALL_FOLDS)
if not set(NIJ_TEST_FOLDS) <= set(NIJ_ALL_FOLDS):
    raise ValueError(
        f"config nij.test_folds: fold {min(set(NIJ_TEST_FOLDS) - set(NIJ_ALL_FOLDS))} does not exist (folds "
        f"{NIJ_ALL_FOLDS[0]}..{NIJ_ALL_FOLDS[-1]} under fold_scheme {config['nij']['fold_scheme']!r})"
    )
NIJ_CHUNK_SIZE = config["nij"]["chunk_size"]
NIJ_CHUNKS = [
    NIJ_TEST_FOLDS[i : i + NIJ_CHUNK_SIZE] for i in range(0, len(NIJ_TEST_FOLDS), NIJ_CHUNK_SIZE)
]
NIJ_CHUNK_IDS = [f"{i:03d}" for i in range(len(NIJ_CHUNKS))]
NIJ_PRESETS = config["nij"]["presets"]
NIJ_MODELS = config["nij"]["models"]
NIJ_PREDICTIONS = f"{RESULTS}/nij/{{preset}}/predictions/predictions.parquet"


rule train_fold_chunk:
    input:
        table=rules.reconstruct_nij.output.table,
    output:
        predictions=f"{INTERIM}/nij/{{preset}}/predictions/chunks/{{model}}_{{chunk}}.parquet",
    params:
        folds=lambda wildcards: NIJ_CHUNKS[int(wildcards.chunk)],
        fold_scheme=config["nij"]["fold_scheme"],
        n_splits=config["nij"]["n_splits"],
        source=config["nij"]["source"],
        favorable=config["nij"]["favorable"],
        seed=config["seed"],
    log:
        f"{RESULTS}/logs/nij/{{preset}}/train_fold_chunk/{{model}}_{{chunk}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/nij/{{preset}}/train_fold_chunk/{{model}}_{{chunk}}.tsv"
    threads: 1
    conda:
        "../../environment.yml"
    script:
        "../scripts/train_fold_chunk.py"


rule gather_predictions:
    input:
        chunks=expand(
            f"{INTERIM}/nij/{{{{preset}}}}/predictions/chunks/{{model}}_{{chunk}}.parquet",
            model=NIJ_MODELS,
            chunk=NIJ_CHUNK_IDS,
        ),
    output:
        predictions=NIJ_PREDICTIONS,
    params:
        models=NIJ_MODELS,
    log:
        f"{RESULTS}/logs/nij/{{preset}}/gather_predictions.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/gather_predictions.py"


rule render_table1:
    input:
        nb="notebooks/paper_b_table1.ipynb",
        paper=expand(NIJ_PREDICTIONS, preset="paper"),
        clean=expand(NIJ_PREDICTIONS, preset="clean") if "clean" in NIJ_PRESETS else [],
        authors=ancient(NIJ_AUTHORS_FAIRNESS),
        published=NIJ_PUBLISHED_B,
        # make verify's tolerances: the measured spread of the paper preset's LR, quoted in its note
        verify="config/verify.yaml",
    output:
        nb=f"{RESULTS}/nij/paper/notebooks/paper_b_table1.ipynb",
        table1=f"{RESULTS}/nij/paper/tables/table1.csv",
        table1_md=f"{RESULTS}/nij/paper/tables/table1.md",
        agreement=f"{RESULTS}/nij/paper/tables/table1_agreement.csv",
        agreement_md=f"{RESULTS}/nij/paper/tables/table1_agreement.md",
        per_fold=f"{RESULTS}/nij/paper/tables/table1_per_fold_accuracy.csv",
        distribution=f"{RESULTS}/nij/paper/figures/table1_accuracy_distribution.png",
        ours_vs_authors=f"{RESULTS}/nij/paper/figures/table1_ours_vs_authors.png",
        pvr=f"{RESULTS}/nij/paper/published-vs-reproduced-table1.csv",
    params:
        out_dir=lambda wildcards, output: os.path.dirname(os.path.dirname(output.table1)),
        clean=lambda wildcards, input: input.clean[0] if input.clean else "",
    log:
        f"{RESULTS}/logs/nij/render_table1.log",
    conda:
        "../../environment.yml"
    shell:
        "papermill {input.nb:q} {output.nb:q} -k python3 --no-progress-bar"
        " -p paper_predictions {input.paper:q} -p clean_predictions '{params.clean}'"  # '': :q drops an empty word
        " -p authors_csv {input.authors:q} -p published_csv {input.published:q}"
        " -p verify_config {input.verify:q} -p out_dir {params.out_dir:q} > {log:q} 2>&1"
        " && python -m compendium.publish.executed_notebook {output.nb:q} >> {log:q} 2>&1"


if "paper" in NIJ_PRESETS:
    PVR_PIECES.append(rules.render_table1.output.pvr)


# Final files of this stage: each preset's predictions, and Table I with the agreement (paper preset).
nij_targets = lambda: expand(NIJ_PREDICTIONS, preset=NIJ_PRESETS) + (
    list(rules.render_table1.output) if "paper" in NIJ_PRESETS else []
)
