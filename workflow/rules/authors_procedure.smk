# Rules for the authors-procedure stage: paper B's Tables XI-XXV by the authors' own procedures
# (compendium.paper_b.authors_procedure and friends; results under results/<experiment>/nij/authors_procedure/).
#
# The causal-discrimination refits: per test fold, the four paper-preset models refitted on the other folds with
# Race_WHITE dropped (the authors' script), original and race-flipped predictions. Fan-out as train_fold_chunk:
# one refit_authors_chunk job per (model, chunk of nij.chunk_size folds), each writing its own parquet file
# atomically (a killed run resumes without refitting finished chunks); gather_authors_refits writes one tidy file.
# The stage needs the authors' folds (nij.fold_scheme paper); other configurations leave it out.

AUTHORS_PROCEDURE = f"{RESULTS}/nij/authors_procedure"
AUTHORS_PROCEDURE_ON = config["nij"]["fold_scheme"] == "paper"
AUTHORS_REFITS = f"{AUTHORS_PROCEDURE}/predictions/refits.parquet"


rule refit_authors_chunk:
    input:
        table=rules.reconstruct_nij.output.table,
    output:
        predictions=f"{INTERIM}/nij/authors_procedure/chunks/{{model}}_{{chunk}}.parquet",
    params:
        folds=lambda wildcards: NIJ_CHUNKS[int(wildcards.chunk)],
        source=config["nij"]["source"],
        favorable=config["nij"]["favorable"],
    log:
        f"{RESULTS}/logs/nij/authors_procedure/refit_authors_chunk/{{model}}_{{chunk}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/nij/authors_procedure/refit_authors_chunk/{{model}}_{{chunk}}.tsv"
    threads: 1
    conda:
        "../../environment.yml"
    script:
        "../scripts/refit_authors_chunk.py"


rule gather_authors_refits:
    input:
        chunks=expand(
            f"{INTERIM}/nij/authors_procedure/chunks/{{model}}_{{chunk}}.parquet",
            model=NIJ_MODELS,
            chunk=NIJ_CHUNK_IDS,
        ),
    output:
        predictions=AUTHORS_REFITS,
    params:
        models=NIJ_MODELS,
    log:
        f"{RESULTS}/logs/nij/authors_procedure/gather_authors_refits.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/gather_predictions.py"


AP_CONFIG = config["nij"].get("authors_procedure", {})
AP_TABLES = f"{AUTHORS_PROCEDURE}/tables"


# The opt-in exact search's committed results (rules gather_awareness_exact_search, authors_exact_search below)
# enter the published-vs-reproduced piece where they exist; absent (another experiment), its rows say so and
# nothing schedules the hours-long search.
AP_EXACT = {
    "exact": f"{AP_TABLES}/awareness_exact_search.csv",
    "setup_counts": f"{AP_TABLES}/exact_search_setup_counts.csv",
}


# Tables XVI-XX from the refits, XXI-XXV as a random-neighbour Monte Carlo and (where run) the exact search with
# each count's gap against the other set-ups tried, the readings of XI-XIII and XV on the Table I scores (per
# table and per model), Tables XV and XXV as tests through the authors' procedure (for the conclusions table),
# and the published-vs-reproduced piece (source authors-procedure).
rule authors_procedure_tables:
    input:
        unpack(lambda wildcards: {k: ancient(v) for k, v in AP_EXACT.items() if os.path.exists(v)}),
        refits=AUTHORS_REFITS,
        predictions=expand(NIJ_PREDICTIONS, preset="paper")[0],
        published=NIJ_PUBLISHED_B,
        # whether our Table I fits are the authors' (per model), and the printed numbers arithmetic rules out
        agreement=rules.render_table1.output.agreement,
        impossible=f"{RESULTS}/nij/authors/tables/printed_impossible.csv",  # rule authors_battery
    output:
        causal_counts=f"{AP_TABLES}/causal_count_tables.csv",
        causal_counts_md=f"{AP_TABLES}/causal_count_tables.md",
        causal_tests=f"{AP_TABLES}/causal_mcnemar.csv",
        causal_tests_md=f"{AP_TABLES}/causal_mcnemar.md",
        random_counts=f"{AP_TABLES}/awareness_random_neighbour.csv",
        random_counts_md=f"{AP_TABLES}/awareness_random_neighbour.md",
        readings=f"{AP_TABLES}/readings.csv",
        readings_md=f"{AP_TABLES}/readings.md",
        readings_by_model=f"{AP_TABLES}/readings_by_model.csv",
        readings_by_model_md=f"{AP_TABLES}/readings_by_model.md",
        balance_tests=f"{AP_TABLES}/balance_reading_tests.csv",
        balance_tests_md=f"{AP_TABLES}/balance_reading_tests.md",
        awareness_tests=f"{AP_TABLES}/awareness_mcnemar.csv",
        awareness_tests_md=f"{AP_TABLES}/awareness_mcnemar.md",
        gaps=f"{AP_TABLES}/exact_search_gaps.csv",
        gaps_md=f"{AP_TABLES}/exact_search_gaps.md",
        pvr=f"{AUTHORS_PROCEDURE}/published-vs-reproduced.csv",
    params:
        favorable=config["nij"]["favorable"],
        alpha=config["nij"]["alpha"],
        n_bins=config["nij"]["calibration_bins"],
        n_draws=AP_CONFIG.get("monte_carlo_draws", 2000),
        seed=config["seed"],
    log:
        f"{RESULTS}/logs/nij/authors_procedure/authors_procedure_tables.log",
    benchmark:
        f"{RESULTS}/benchmarks/nij/authors_procedure/authors_procedure_tables.tsv"
    conda:
        "../../environment.yml"
    script:
        "../scripts/authors_procedure_tables.py"


# What those tables show, for the notebook paper_b_battery.ipynb (compendium.paper_b.authors_procedure_views):
# the printed awareness counts against the random neighbour's range and beside the exact search, the search's
# distances under the set-ups tried, the readings that reproduce each table. The opt-in search's committed
# tables enter where they exist (their summaries are empty tables otherwise).
AP_SUMMARY_OPT_IN = {"exact": AP_EXACT["exact"], "neighbours": f"{AP_TABLES}/exact_search_neighbours.csv"}


rule summarise_authors_procedure:
    input:
        unpack(lambda wildcards: {k: ancient(v) for k, v in AP_SUMMARY_OPT_IN.items() if os.path.exists(v)}),
        refits=AUTHORS_REFITS,
        random_counts=rules.authors_procedure_tables.output.random_counts,
        readings=rules.authors_procedure_tables.output.readings,
        gaps=rules.authors_procedure_tables.output.gaps,
    output:
        random_view=f"{AP_TABLES}/awareness_random_neighbour_view.csv",
        random_view_md=f"{AP_TABLES}/awareness_random_neighbour_view.md",
        exact_view=f"{AP_TABLES}/awareness_exact_search_view.csv",
        exact_view_md=f"{AP_TABLES}/awareness_exact_search_view.md",
        setup_summary=f"{AP_TABLES}/exact_search_setups_summary.csv",
        setup_summary_md=f"{AP_TABLES}/exact_search_setups_summary.md",
        readings_summary=f"{AP_TABLES}/readings_summary.csv",
        readings_summary_md=f"{AP_TABLES}/readings_summary.md",
    log:
        f"{RESULTS}/logs/nij/authors_procedure/summarise_authors_procedure.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/summarise_authors_procedure.py"


# Opt-in (not in rule all; about 75 CPU-minutes, hours of wall time on a shared machine): the authors' exact
# neighbour search on every test fold in their set-up (feature set, file order, stack (person, candidate),
# strict <, float64, one BLAS thread, the declared OpenBLAS kernels), one job per chunk of
# nij.authors_procedure.exact_search_chunk_size folds (measured: 18 s of CPU per fold, 15 min of wall time per
# chunk of 10 on a busy shared machine). The search does not depend on the model, so each fold is searched once.
# Each chunk's neighbours are a committed result (exact_search/neighbours_<chunk>.csv; commit each finished
# chunk): a later run, in another session, skips them (the NIJ table enters as ancient(), so rebuilding it reruns
# nothing).
# gather_awareness_exact_search counts Tables XXI-XXIV from all chunks and the authors' refits.
# Run (docs/paper-b-conclusions.rst, "The exact neighbour search"), from a checkout with the committed refits:
#   nice -n 19 snakemake gather_awareness_exact_search --config exact_search=true --cores 1 \
#       --rerun-triggers mtime \
#       --allowed-rules verify_raw reconstruct_nij authors_exact_search_chunk gather_awareness_exact_search
EXACT_CHUNK_SIZE = AP_CONFIG.get("exact_search_chunk_size", 10)
EXACT_CHUNKS = [NIJ_TEST_FOLDS[i : i + EXACT_CHUNK_SIZE] for i in range(0, len(NIJ_TEST_FOLDS), EXACT_CHUNK_SIZE)]
EXACT_CHUNK_IDS = [f"{i:03d}" for i in range(len(EXACT_CHUNKS))]
EXACT_NEIGHBOURS = f"{AP_TABLES}/exact_search/neighbours_{{chunk}}.csv"


# The three opt-in rules exist only when asked for (--config exact_search=true): defined always, they were
# scheduled by a fresh `make reproduce` (their committed outputs' input, the NIJ table, is rebuilt in the same run,
# which reruns a job whatever ancient() says), hours of search for the same numbers. Without them the committed
# outputs are inputs like the raw data.
if config.get("exact_search", False):

    rule authors_exact_search_chunk:
        input:
            table=ancient(rules.reconstruct_nij.output.table),
        output:
            neighbours=EXACT_NEIGHBOURS,
        params:
            folds=lambda wildcards: EXACT_CHUNKS[int(wildcards.chunk)],
        log:
            f"{RESULTS}/logs/nij/authors_procedure/authors_exact_search_chunk/{{chunk}}.log",
        benchmark:
            f"{RESULTS}/benchmarks/nij/authors_procedure/authors_exact_search_chunk/{{chunk}}.tsv"
        threads: 1
        conda:
            "../../environment.yml"
        script:
            "../scripts/authors_exact_search_chunk.py"


    # Opt-in (not in rule all; one 137 x 137 pseudo-inverse per pair, ~5,000 per fold and set-up): the set-up
    # sensitivity of the authors' exact neighbour search. The folds nij.authors_procedure.exact_search_folds are
    # searched under three floating-point set-ups (the authors' stacking order with 1 and 2 BLAS threads, and the
    # pair stacked the other way round: the same matrix in exact arithmetic); the chosen neighbours, how many change,
    # the first set-up checked against the every-fold run's chunks, and Tables XXI-XXIV's counts on those folds
    # under each set-up (exact_search_setup_counts.csv, with the authors' refits).
    # Run: snakemake --cores 1 authors_exact_search --config exact_search=true --allowed-rules authors_exact_search
    rule authors_exact_search:
        input:
            table=ancient(rules.reconstruct_nij.output.table),
            refits=ancient(AUTHORS_REFITS),
            chunks=lambda wildcards: [
                ancient(EXACT_NEIGHBOURS.format(chunk=EXACT_CHUNK_IDS[i]))
                for i, folds in enumerate(EXACT_CHUNKS)
                if set(folds) & set(AP_CONFIG.get("exact_search_folds", [0]))
            ],
        output:
            pairs=f"{AP_TABLES}/exact_search_neighbours.csv",
            pairs_md=f"{AP_TABLES}/exact_search_neighbours.md",
            summary=f"{AP_TABLES}/exact_search_setups.csv",
            summary_md=f"{AP_TABLES}/exact_search_setups.md",
            counts=f"{AP_TABLES}/exact_search_setup_counts.csv",
            counts_md=f"{AP_TABLES}/exact_search_setup_counts.md",
        params:
            folds=AP_CONFIG.get("exact_search_folds", [0]),
        log:
            f"{RESULTS}/logs/nij/authors_procedure/authors_exact_search.log",
        benchmark:
            f"{RESULTS}/benchmarks/nij/authors_procedure/authors_exact_search.tsv"
        threads: 2
        conda:
            "../../environment.yml"
        script:
            "../scripts/authors_exact_search.py"


    rule gather_awareness_exact_search:
        input:
            chunks=expand(EXACT_NEIGHBOURS, chunk=EXACT_CHUNK_IDS),
            refits=ancient(AUTHORS_REFITS),
            published=NIJ_PUBLISHED_B,
        output:
            counts=f"{AP_TABLES}/awareness_exact_search.csv",
            counts_md=f"{AP_TABLES}/awareness_exact_search.md",
        log:
            f"{RESULTS}/logs/nij/authors_procedure/gather_awareness_exact_search.log",
        conda:
            "../../environment.yml"
        script:
            "../scripts/gather_awareness_exact_search.py"


AP_ON = AUTHORS_PROCEDURE_ON and "paper" in NIJ_PRESETS and set(NIJ_MODELS) >= {"lda", "rf"}
if AP_ON:
    PVR_PIECES.append(rules.authors_procedure_tables.output.pvr)

# Final files of this stage.
authors_procedure_targets = lambda: (
    [AUTHORS_REFITS] + list(rules.authors_procedure_tables.output) + list(rules.summarise_authors_procedure.output)
    if AP_ON
    else []
)
