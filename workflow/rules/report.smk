# Report stage: the single published-vs-reproduced table (every published number beside ours).


rule collect_published_vs_reproduced:
    input:
        pieces=PVR_PIECES,
    output:
        table=config["published_vs_reproduced"],
        summary=f"{RESULTS}/published-vs-reproduced-summary.csv",
        summary_md=f"{RESULTS}/published-vs-reproduced-summary.md",
        # one class per printed number (the best any source gives it), and their counts per table
        by_number=f"{RESULTS}/published-vs-reproduced-by-number.csv",
        by_number_md=f"{RESULTS}/published-vs-reproduced-by-number.md",
        by_number_summary=f"{RESULTS}/published-vs-reproduced-by-number-summary.csv",
        by_number_summary_md=f"{RESULTS}/published-vs-reproduced-by-number-summary.md",
    log:
        f"{RESULTS}/logs/collect_published_vs_reproduced.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/collect_published_vs_reproduced.py"


report_targets = lambda: list(rules.collect_published_vs_reproduced.output) if PVR_PIECES else []
