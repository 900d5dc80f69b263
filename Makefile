# Two commands for a fresh clone: `make reproduce` and `make test` (see README.md).
PYTHON ?= python3
VENV   := .venv
BIN    := $(CURDIR)/$(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
CORES  ?= all
export PATH := $(BIN):$(PATH)
export MPLBACKEND := Agg

.PHONY: reproduce verify test bench lint env clean-env docs course course-open

# The environment is the lock file (exact versions and hashes of every package; requirements/compendium.in says
# why each is there), then fairstats itself from this checkout and a path entry for src/compendium.
LOCK := requirements/compendium.lock.txt
$(STAMP): $(LOCK) pyproject.toml requirements/install-project.sh
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --require-hashes --no-deps -r $(LOCK)
	sh requirements/install-project.sh $(BIN)/python
	$(BIN)/python -m pip check
	touch $(STAMP)

# make lock: re-resolve requirements/compendium.in into the lock (needs the package registry); commit both.
.PHONY: lock
lock: $(STAMP)
	$(BIN)/uv pip compile requirements/compendium.in --generate-hashes --universal --python-version 3.11 \
	    --custom-compile-command "make lock" --quiet -o $(LOCK)

env: $(STAMP)

# make reproduce ends with make verify: were the committed results reproduced?
reproduce: $(STAMP)
	$(BIN)/snakemake --cores $(CORES)
	$(BIN)/python -m compendium.publish.verify --config config/verify.yaml

# make verify: the results in the working tree against the committed ones (git HEAD), file by file, with the
# tolerances and known machine-dependent numbers of config/verify.yaml; prints a one-line verdict and exits 1
# naming file, row and both values of every difference beyond tolerance. Reads git, writes nothing.
verify: $(STAMP)
	$(BIN)/python -m compendium.publish.verify --config config/verify.yaml

# make report [CONFIGFILE=config/teaching.yaml]: the HTML site results/<experiment>/report/index.html from the
# results already there (notebooks rendered, figures copied, index rebuilt; nothing is refitted: run
# `make reproduce`, or snakemake with that config, first), then Snakemake's provenance report beside it.
CONFIGFILE ?= config/config.yaml
SITE_RULES := collect_published_vs_reproduced render_html copy_site_figure copy_site_mathjax build_site_index \
              build_course_lab render_course_lab
.PHONY: report
report: $(STAMP)
	$(BIN)/snakemake build_site_index --cores $(CORES) --configfile $(CONFIGFILE) \
	    --allowed-rules $(SITE_RULES) --forcerun build_site_index \
	    || { echo "make report failed (see above); missing results? run the workflow first (make reproduce)" >&2; exit 1; }
	$(BIN)/snakemake build_site_index --configfile $(CONFIGFILE) --report "results/$$($(BIN)/python -c \
	    'import sys, yaml; print(yaml.safe_load(open(sys.argv[1]))["experiment"])' $(CONFIGFILE))/report/workflow.html"

# make course: the course labs (docs/course.md): student and instructor notebooks built from
# notebooks/course/*.py, the instructor ones executed full size (every check must say "right") into
# results/default/course/, the student ones rendered for the site.
course: $(STAMP)
	$(BIN)/snakemake course --cores $(CORES)

# make course-open: JupyterLab (from the lock) on a working copy of the student notebooks, course-work/ (made
# once; your answers there are never overwritten; git ignores it). Delete a file there to get it fresh. As root
# (a container, a fresh VM) Jupyter refuses to start without --allow-root, so it is passed when the user id is 0.
# JUPYTER_ARGS adds options (e.g. JUPYTER_ARGS="--no-browser --port 8890").
JUPYTER_ARGS ?=
course-open: $(STAMP)
	mkdir -p course-work
	for nb in notebooks/course/student/*.ipynb; do [ -e course-work/$$(basename $$nb) ] || cp $$nb course-work/; done
	$(BIN)/jupyter lab --notebook-dir=course-work $$([ "$$(id -u)" -eq 0 ] && echo --allow-root) $(JUPYTER_ARGS)

# make test: each side of the suite once (tests/conftest.py says which is which). The library's tests against the
# fairstats wheel installed alone in a fresh venv (.ci/library-tests.sh: built from src/fairstats, extras from the
# lock, no compendium), then the compendium's tests in the compendium's venv. Both without the slow marker, each
# on two workers (pytest-xdist; the budget is 15 minutes on 2 cores; --dist loadscope keeps a module's tests, and
# its fixtures, on one worker).
test: $(STAMP)
	bash .ci/ensure-chromium.sh
	bash .ci/ensure-java.sh
	bash .ci/library-tests.sh $(BIN)/python -m "not slow" -n 2 --dist loadscope
	$(BIN)/python -m pytest -m "not slow" -n 2 --dist loadscope tests/compendium

# make test-slow: the large simulations (size and coverage of the tests under their nulls, marker `slow`), both
# sides as make test runs them; .ci/run runs them after make test. pytest's exit 5 (no test collected) counts as
# a failure: each side has some.
.PHONY: test-slow
test-slow: $(STAMP)
	bash .ci/library-tests.sh $(BIN)/python -m slow
	$(BIN)/python -m pytest -m slow tests/compendium

# make test-cluster (root): a single-node Slurm on this machine (.ci/slurm/start.sh installs slurm-wlm + munge
# if missing), the tiny workflow through `snakemake --executor slurm` (profiles/slurm), compared byte for byte
# with a local run (tests/cluster/cluster_check.py); Slurm is stopped again whatever the outcome.
.PHONY: test-cluster
test-cluster: $(STAMP)
	bash .ci/slurm/start.sh || { bash .ci/slurm/stop.sh; exit 1; }
	$(BIN)/python -m pytest tests/cluster/cluster_check.py; status=$$?; bash .ci/slurm/stop.sh; exit $$status

lint: $(STAMP)
	$(BIN)/ruff check src tests workflow bench
	$(BIN)/snakemake --lint

bench: $(STAMP)
	$(BIN)/python bench/run.py

clean-env:
	rm -rf $(VENV)

# make docs: the API site (Sphinx, pydata-sphinx-theme, numpydoc) into docs/_build/html/, warnings as errors;
# it includes the committed results site of the default experiment (results/default/report/) as compendium/.
# It needs only the library and its [docs] extra, not the compendium's environment: its own venv, .venv-docs,
# holds fairstats from this checkout (editable) and the extra at the lock's versions (the lock's pins, markers
# kept and hashes dropped, as constraints; the test suite builds the same site in the compendium's venv).
DOCS_VENV  := .venv-docs
DOCS_STAMP := $(DOCS_VENV)/.installed-stamp
$(DOCS_STAMP): $(LOCK) pyproject.toml
	$(PYTHON) -m venv $(DOCS_VENV)
	sed -E -n 's/^([A-Za-z0-9_.-]+==[^ ]+( ; [^\\]+)?) \\$$/\1/p' $(LOCK) > $(DOCS_VENV)/constraints.txt
	$(DOCS_VENV)/bin/python -m pip install --quiet -c $(DOCS_VENV)/constraints.txt -e '.[docs]'
	touch $(DOCS_STAMP)

.PHONY: docs
docs: $(DOCS_STAMP)
	rm -rf docs/_build docs/api/generated
	$(DOCS_VENV)/bin/sphinx-build -W --keep-going -q -b html docs docs/_build/html
