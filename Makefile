# Two commands for a fresh clone: `make reproduce` and `make test` (see README.md).
PYTHON ?= python3
VENV   := .venv
BIN    := $(CURDIR)/$(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
CORES  ?= all
export PATH := $(BIN):$(PATH)
export MPLBACKEND := Agg

.PHONY: reproduce test bench lint env clean-env

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev,polars,spark]'
	touch $(STAMP)

env: $(STAMP)

reproduce: $(STAMP)
	$(BIN)/snakemake --cores $(CORES)

# make report [CONFIGFILE=config/teaching.yaml]: the HTML site results/<experiment>/report/index.html from the
# results already there (notebooks rendered, figures copied, index rebuilt; nothing is refitted: run
# `make reproduce`, or snakemake with that config, first), then Snakemake's provenance report beside it.
CONFIGFILE ?= config/config.yaml
SITE_RULES := collect_published_vs_reproduced render_html copy_site_figure build_site_index
.PHONY: report
report: $(STAMP)
	$(BIN)/snakemake build_site_index --cores $(CORES) --configfile $(CONFIGFILE) \
	    --allowed-rules $(SITE_RULES) --forcerun build_site_index \
	    || { echo "make report failed (see above); missing results? run the workflow first (make reproduce)" >&2; exit 1; }
	$(BIN)/snakemake build_site_index --configfile $(CONFIGFILE) --report "results/$$($(BIN)/python -c \
	    'import sys, yaml; print(yaml.safe_load(open(sys.argv[1]))["experiment"])' $(CONFIGFILE))/report/workflow.html"

test: $(STAMP)
	bash .ci/ensure-chromium.sh
	bash .ci/ensure-java.sh
	$(BIN)/python -m pytest

# make test-cluster (root): a single-node Slurm on this machine (.ci/slurm/start.sh installs slurm-wlm + munge
# if missing), the tiny workflow through `snakemake --executor slurm` (profiles/slurm), compared byte for byte
# with a local run (tests/cluster/cluster_check.py); Slurm is stopped again whatever the outcome.
CLUSTER_STAMP := $(VENV)/.cluster-stamp
$(CLUSTER_STAMP): pyproject.toml $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[dev,cluster]'
	touch $(CLUSTER_STAMP)

.PHONY: test-cluster
test-cluster: $(CLUSTER_STAMP)
	bash .ci/slurm/start.sh || { bash .ci/slurm/stop.sh; exit 1; }
	$(BIN)/python -m pytest tests/cluster/cluster_check.py; status=$$?; bash .ci/slurm/stop.sh; exit $$status

lint: $(STAMP)
	$(BIN)/ruff check src tests workflow bench
	$(BIN)/snakemake --lint

bench: $(STAMP)
	$(BIN)/python bench/run.py

clean-env:
	rm -rf $(VENV)
