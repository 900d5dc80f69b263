# Site stage (make report): an HTML site of the experiment under results/<experiment>/report/, self-contained
# (relative links only, inside that folder):
#   notebooks/<stage>/<name>.html  every executed notebook, rendered by nbconvert (render_html), its formulas
#                                  typeset by the site's own MathJax (no CDN: they render offline too);
#   mathjax/tex-svg.js             that MathJax, copied from the locked sphinx-mathjax-offline (copy_site_mathjax);
#   figures/<stage>/<name>.png     every figure, copied and flagged with a caption for `snakemake --report`
#                                  (copy_site_figure);
#   index.html, pages/*.html       published vs reproduced (deviations highlighted), each stage's tables and
#                                  figures, verdict tables, links to the notebooks, the course page
#                                  (build_site_index);
#   course/<lab>.html, .ipynb      the course labs' student notebooks, rendered and to download (course.smk);
#   workflow.html                  `snakemake --report`: the workflow's provenance (make report writes it last).
# A <stage> is a results folder below results/<experiment>: compas/<filter>, nij/authors, nij/<preset>, ...
# Which notebooks and figures exist is read from the other stages' rules at parse time: the outputs ending in
# .ipynb / .png of the jobs that make all_targets(), so a new notebook rule appears here without edits.
import os.path
import re

from compendium.publish.site import figure_caption

SITE = f"{RESULTS}/report"
SITE_STAGE = "[a-z0-9_]+(?:/[a-z0-9_]+)*"


report: "../report/workflow.rst"


SITE_RULES = {"render_html", "copy_site_figure", "copy_site_mathjax", "build_site_index"}
SITE_SOURCE = re.compile(
    rf"{re.escape(RESULTS)}/(?P<stage>{SITE_STAGE})/(?P<kind>notebooks|figures)/[^/]+\.(?:ipynb|png)"
)
# Every executed notebook and figure below RESULTS/<stage>/ written by the jobs that make all_targets().
SITE_SOURCES = sorted(
    {
        path
        for target in all_targets()
        for rule_ in workflow.rules
        if rule_.name not in SITE_RULES and rule_.is_producer(target)
        for path in rule_.expand_output(rule_.get_wildcards(target))[0]
        if SITE_SOURCE.fullmatch(path)
    }
)
# RESULTS/<stage>/<kind>/<name>.<ext> -> SITE/<kind>/<stage>/<name><suffix>
site_copy = lambda path, suffix: SITE_SOURCE.sub(
    lambda m: f"{SITE}/{m['kind']}/{m['stage']}/{os.path.splitext(os.path.basename(path))[0]}{suffix}", path
)
SITE_NOTEBOOKS = [site_copy(p, ".html") for p in SITE_SOURCES if p.endswith(".ipynb")]
SITE_FIGURES = [site_copy(p, ".png") for p in SITE_SOURCES if p.endswith(".png")]


rule copy_site_mathjax:
    output:
        js=f"{SITE}/mathjax/tex-svg.js",
    log:
        f"{RESULTS}/logs/site/copy_site_mathjax.log",
    conda:
        "../../environment.yml"
    shell:
        "python -m compendium.publish.notebook_html --mathjax {output.js:q} > {log:q} 2>&1"


rule render_html:
    input:
        nb=f"{RESULTS}/{{stage}}/notebooks/{{name}}.ipynb",
        mathjax=rules.copy_site_mathjax.output.js,
    output:
        # not flagged for `snakemake --report`: the site links it, and the provenance report stays small
        html=f"{SITE}/notebooks/{{stage}}/{{name}}.html",
    params:
        # the site's folder: the one holding mathjax/ (compendium.publish.notebook_html.MATHJAX)
        site=lambda wildcards, input: os.path.dirname(os.path.dirname(input.mathjax)),
    log:
        f"{RESULTS}/logs/site/render_html/{{stage}}/{{name}}.log",
    wildcard_constraints:
        stage=SITE_STAGE,
        name="[A-Za-z0-9_-]+",
    conda:
        "../../environment.yml"
    shell:
        "python -m compendium.publish.notebook_html {input.nb:q} {output.html:q} --site {params.site:q}"
        " > {log:q} 2>&1"


rule copy_site_figure:
    input:
        png=f"{RESULTS}/{{stage}}/figures/{{name}}.png",
    output:
        png=report(
            f"{SITE}/figures/{{stage}}/{{name}}.png",
            caption="../report/figure.rst",
            category="Figures",
            subcategory="{stage}",
            labels={"stage": "{stage}", "figure": "{name}"},
        ),
    params:
        caption=lambda wildcards: figure_caption(wildcards.name),
    log:
        f"{RESULTS}/logs/site/copy_site_figure/{{stage}}/{{name}}.log",
    wildcard_constraints:
        stage=SITE_STAGE,
        name="[A-Za-z0-9_-]+",
    conda:
        "../../environment.yml"
    shell:
        "cp {input.png:q} {output.png:q} > {log:q} 2>&1"


rule build_site_index:
    input:
        # the other stages' tables (not interim data or predictions: a fresh clone has the committed results only)
        tables=[t for t in all_targets() if t.endswith((".csv", ".md")) and not t.startswith(INTERIM)],
        notebooks=SITE_NOTEBOOKS,
        figures=SITE_FIGURES,
        pvr=[config["published_vs_reproduced"]] if PVR_PIECES else [],
        # the course labs' student notebooks, rendered (course.smk, included after this file)
        course=lambda wildcards: course_site_targets(),
    output:
        index=f"{SITE}/index.html",
        pages=directory(f"{SITE}/pages"),
    params:
        results_dir=lambda wildcards, output: os.path.dirname(os.path.dirname(output.index)),
        site_dir=lambda wildcards, output: os.path.dirname(output.index),
        experiment=config["experiment"],
    log:
        f"{RESULTS}/logs/site/build_site_index.log",
    conda:
        "../../environment.yml"
    script:
        "../scripts/build_site_index.py"


# Final files of this stage (make report asks for them; `rule all` does not, so `make reproduce` stays as it is).
site_targets = lambda: list(rules.build_site_index.output)
