# Anytime-valid fairness monitoring (issue 27): simulated streams with no disparity (the monitor's ever-alarm
# rate against a z test after every batch), a planted difference (decisions to alarm against a fixed-sample
# test sized with fairstats.mde_rate_difference), and COMPAS replayed in screening_date order. Outputs under
# results/<experiment>/monitoring/ (tables/, figures/, notebooks/). Without a monitoring block the stage is off.
import os.path

MONITORING = f"{RESULTS}/monitoring"
MONITOR = config.get("monitoring")
if MONITOR is not None and MONITOR["filter"] not in config["compas"]["presets"]:
    raise ValueError(
        f"config monitoring.filter: {MONITOR['filter']!r} is not a preset; compas.presets has "
        f"{sorted(config['compas']['presets'])}"
    )


if MONITOR is not None:

    # The three studies: compendium.paper_a.monitoring (its command line).
    rule simulate_monitoring:
        input:
            data=expand(rules.filter_compas.output.data, filter=MONITOR["filter"]),
        output:
            null=f"{MONITORING}/tables/null_ever_alarm.csv",
            null_md=f"{MONITORING}/tables/null_ever_alarm.md",
            planted=f"{MONITORING}/tables/planted_decisions.csv",
            planted_md=f"{MONITORING}/tables/planted_decisions.md",
            replay=f"{MONITORING}/tables/compas_replay.csv",
            replay_md=f"{MONITORING}/tables/compas_replay.md",
            changes=f"{MONITORING}/tables/compas_replay_changes.csv",
            changes_md=f"{MONITORING}/tables/compas_replay_changes.md",
            null_figure=f"{MONITORING}/figures/null_ever_alarm.png",
            null_figure_pdf=f"{MONITORING}/figures/null_ever_alarm.pdf",
            planted_figure=f"{MONITORING}/figures/planted_decisions.png",
            planted_figure_pdf=f"{MONITORING}/figures/planted_decisions.pdf",
            replay_figure=f"{MONITORING}/figures/compas_replay.png",
            replay_figure_pdf=f"{MONITORING}/figures/compas_replay.pdf",
        params:
            out_dir=lambda wildcards, output: os.path.dirname(os.path.dirname(output.null)),
            alpha=MONITOR["alpha"],
            n_streams=MONITOR["n_streams"],
            n_batches=MONITOR["n_batches"],
            batch_size=MONITOR["batch_size"],
            rate=MONITOR["rate"],
            difference=MONITOR["difference"],
            batch_days=MONITOR["batch_days"],
            seed=config["seed"],
        log:
            f"{RESULTS}/logs/monitoring/simulate_monitoring.log",
        conda:
            "../../environment.yml"
        shell:
            "python -m compendium.paper_a.monitoring {input.data:q} {params.out_dir:q} --alpha {params.alpha}"
            " --n-streams {params.n_streams} --n-batches {params.n_batches} --batch-size {params.batch_size}"
            " --rate {params.rate} --difference {params.difference} --batch-days {params.batch_days}"
            " --seed {params.seed}"
            " > {log:q} 2>&1"

    # The notebook reads what simulate_monitoring wrote and explains it; it computes nothing itself.
    rule render_monitoring:
        input:
            nb="notebooks/monitoring.ipynb",
            tables=list(rules.simulate_monitoring.output),
        output:
            nb=f"{MONITORING}/notebooks/monitoring.ipynb",
        params:
            results_dir=lambda wildcards, output: os.path.dirname(os.path.dirname(output.nb)),
        log:
            f"{RESULTS}/logs/monitoring/render_monitoring.log",
        conda:
            "../../environment.yml"
        shell:
            "papermill {input.nb:q} {output.nb:q} -k python3 --no-progress-bar"
            " -p results_dir {params.results_dir:q}"
            " > {log:q} 2>&1"
            " && python -m compendium.publish.executed_notebook {output.nb:q} >> {log:q} 2>&1"


# Final files of this stage (appended to all_targets in common.smk).
monitoring_targets = lambda: (
    list(rules.simulate_monitoring.output) + list(rules.render_monitoring.output) if MONITOR is not None else []
)
