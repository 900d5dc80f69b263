# Course stage (issues 28 and 41; `snakemake course`): the nine labs of notebooks/course/*.py (jupytext percent-format
# sources, catalogue compendium.course.labs.LABS), each built into
#   notebooks/course/student/<lab>.ipynb         the student version, solutions removed (committed);
#   results/<experiment>/course/instructor/...   the instructor version, solutions in place (built on demand,
#                                                not committed, never on the site),
# the instructor version executed full size by papermill into
# results/<experiment>/course/executed/<lab>.ipynb, failing unless every check of it says "right"
# (compendium.course.executed); and the student version rendered for the site (report/course/<lab>.html, its
# formulas typeset by the site's own MathJax, beside a copy of the .ipynb; linked from the index's "Course"
# section by build_site_index). Not in `rule all`: `make reproduce` is unchanged; `make report` renders the
# labs.
import os.path

from compendium.course.labs import LABS

COURSE = f"{RESULTS}/course"
COURSE_LABS = [lab.stem for lab in LABS]


wildcard_constraints:
    lab="|".join(COURSE_LABS),


rule build_course_lab:
    input:
        source="notebooks/course/{lab}.py",
    output:
        student="notebooks/course/student/{lab}.ipynb",
        instructor=f"{COURSE}/instructor/{{lab}}.ipynb",
    log:
        f"{RESULTS}/logs/course/build_course_lab/{{lab}}.log",
    conda:
        "../../environment.yml"
    shell:
        "python -m compendium.course.build {input.source:q} --student {output.student:q}"
        " --instructor {output.instructor:q} > {log:q} 2>&1"


rule run_course_lab:
    input:
        nb=rules.build_course_lab.output.instructor,
    output:
        nb=f"{COURSE}/executed/{{lab}}.ipynb",
    log:
        f"{RESULTS}/logs/course/run_course_lab/{{lab}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/course/run_course_lab/{{lab}}.tsv"
    conda:
        "../../environment.yml"
    shell:
        "papermill {input.nb:q} {output.nb:q} -k python3 --no-progress-bar > {log:q} 2>&1"
        " && python -m compendium.publish.executed_notebook {output.nb:q} >> {log:q} 2>&1"
        " && python -m compendium.course.executed {output.nb:q} >> {log:q} 2>&1"


rule render_course_lab:
    input:
        nb=rules.build_course_lab.output.student,
        mathjax=rules.copy_site_mathjax.output.js,
    output:
        html=f"{SITE}/course/{{lab}}.html",
        ipynb=f"{SITE}/course/{{lab}}.ipynb",
    params:
        # the site's folder: the one holding mathjax/ (compendium.publish.notebook_html.MATHJAX)
        site=lambda wildcards, input: os.path.dirname(os.path.dirname(input.mathjax)),
    log:
        f"{RESULTS}/logs/course/render_course_lab/{{lab}}.log",
    conda:
        "../../environment.yml"
    shell:
        "python -m compendium.publish.notebook_html {input.nb:q} {output.html:q} --site {params.site:q}"
        " > {log:q} 2>&1"
        " && cp {input.nb:q} {output.ipynb:q}"


rule course:
    input:
        executed=expand(rules.run_course_lab.output.nb, lab=COURSE_LABS),
        site=expand(rules.render_course_lab.output.html, lab=COURSE_LABS),


# The site's course pages (build_site_index links them).
course_site_targets = lambda: expand(rules.render_course_lab.output, lab=COURSE_LABS)
