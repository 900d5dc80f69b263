# Report stage: the single published-vs-reproduced table (every published number beside ours).


rule collect_published_vs_reproduced:
    input:
        pieces=PVR_PIECES,
    output:
        table=config["published_vs_reproduced"],
        summary=f"{RESULTS}/published-vs-reproduced-summary.csv",
    log:
        f"{RESULTS}/logs/collect_published_vs_reproduced.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/collect_published_vs_reproduced.py"


report_targets = lambda: list(rules.collect_published_vs_reproduced.output) if PVR_PIECES else []
