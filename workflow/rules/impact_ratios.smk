# Impact ratios in the regulators' terms (issue 25): the COMPAS people of one filter preset through
# `fairstats audit --impact-ratios` in NYC Local Law 144's layout (sex, race/ethnicity, their intersection,
# unknown counts, the 2 % rule, the data's date range), a person "selected" when rated low risk. Outputs under
# results/<experiment>/compas/impact_ratios/: audit/ (the audit folder: report.md, report.html,
# impact_ratios.csv, the figure), and the table and figure again under tables/ and figures/ for the site.
# Without a compas.impact_ratios block the stage is off.
import os.path

IMPACT = f"{RESULTS}/compas/impact_ratios"
IMPACT_RATIOS = config["compas"].get("impact_ratios")
if IMPACT_RATIOS is not None and IMPACT_RATIOS["filter"] not in config["compas"]["presets"]:
    raise ValueError(
        f"config compas.impact_ratios.filter: {IMPACT_RATIOS['filter']!r} is not a preset; compas.presets has "
        f"{sorted(config['compas']['presets'])}"
    )


if IMPACT_RATIOS is not None:

    rule audit_compas_impact_ratios:
        input:
            data=expand(rules.filter_compas.output.data, filter=IMPACT_RATIOS["filter"]),
        output:
            audit_table=f"{IMPACT}/audit/impact_ratios.csv",
            report=f"{IMPACT}/audit/report.md",
            report_html=f"{IMPACT}/audit/report.html",
            audit_figure=f"{IMPACT}/audit/impact_ratios.png",
            table=f"{IMPACT}/tables/impact_ratios.csv",
            table_md=f"{IMPACT}/tables/impact_ratios.md",
            figure=f"{IMPACT}/figures/impact_ratios.png",
        params:
            audit_dir=lambda wildcards, output: os.path.dirname(output.audit_table),
            decision=IMPACT_RATIOS["decision"],
            favorable=IMPACT_RATIOS["favorable"],
            date=IMPACT_RATIOS["date"],
            min_share=(
                f"--min-share {IMPACT_RATIOS['min_share']}" if IMPACT_RATIOS["min_share"] is not None else ""
            ),
            alpha=IMPACT_RATIOS["alpha"],
        log:
            f"{RESULTS}/logs/compas/audit_compas_impact_ratios.log",
        conda:
            "../../environment.yml"
        shell:
            "fairstats audit {input.data:q} --impact-ratios --y-pred {params.decision:q}"
            " --favorable {params.favorable:q} --standard ll144 --sex sex --race race --date {params.date:q}"
            " {params.min_share} --alpha {params.alpha} --out {params.audit_dir:q} > {log:q} 2>&1"
            " && cp {output.audit_table:q} {output.table:q}"
            " && cp {params.audit_dir:q}/impact_ratios.md {output.table_md:q}"
            " && cp {output.audit_figure:q} {output.figure:q}"


# Final files of this stage (appended to all_targets in common.smk).
impact_ratios_targets = lambda: list(rules.audit_compas_impact_ratios.output) if IMPACT_RATIOS is not None else []
