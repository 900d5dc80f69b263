# Issue 17 A: COMPAS with a multi-level decision (compas.variants, e.g. violent_three_level: v_score_text
# Low/Medium/High x two-year violent recidivism). A variant reuses a filter preset's rows and writes its own
# folder results/<experiment>/compas/<variant>/tables/.

COMPAS_VARIANTS = config["compas"].get("variants", {})
# A variant names a preset and groupings (the schema cannot say so) and must not shadow a preset's folder.
for _name, _variant in COMPAS_VARIANTS.items():
    if _name in config["compas"]["presets"]:
        raise ValueError(f"config compas.variants: {_name!r} is also a preset name; give the variant its own")
    if _variant["filter"] not in config["compas"]["presets"]:
        raise ValueError(f"config compas.variants.{_name}.filter: {_variant['filter']!r} is not a preset")
    for _grouping in _variant["groupings"]:
        if _grouping not in config["compas"]["groupings"]:
            raise ValueError(f"config compas.variants.{_name}.groupings: {_grouping!r} is not a grouping")


rule test_compas_levels:
    input:
        data=lambda wildcards: f"{INTERIM}/compas/{COMPAS_VARIANTS[wildcards.variant]['filter']}.parquet",
    output:
        tables=f"{RESULTS}/compas/{{variant}}/tables/equal_confusion.csv",
        residuals=f"{RESULTS}/compas/{{variant}}/tables/residuals.csv",
        levels=f"{RESULTS}/compas/{{variant}}/tables/level_tests.csv",
        ordinal=f"{RESULTS}/compas/{{variant}}/tables/ordinal_tests.csv",
    params:
        variant=lambda wildcards: COMPAS_VARIANTS[wildcards.variant],
        groupings=lambda wildcards: {
            g: config["compas"]["groupings"][g] for g in COMPAS_VARIANTS[wildcards.variant]["groupings"]
        },
        n_resamples=config["compas"]["n_resamples"],
        seed=config["seed"],
    wildcard_constraints:
        variant="|".join(sorted(COMPAS_VARIANTS)) or "no_variant",
    log:
        f"{RESULTS}/logs/compas/test_compas_levels_{{variant}}.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/compas_levels.py"


# Final files of this stage (appended to all_targets in common.smk).
compas_levels_targets = lambda: [
    t for v in COMPAS_VARIANTS for t in expand(rules.test_compas_levels.output, variant=v)
]
