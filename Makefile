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
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

env: $(STAMP)

reproduce: $(STAMP)
	$(BIN)/snakemake --cores $(CORES)

test: $(STAMP)
	$(BIN)/python -m pytest

lint: $(STAMP)
	$(BIN)/ruff check src tests workflow bench
	$(BIN)/snakemake --lint

bench: $(STAMP)
	$(BIN)/python bench/run.py

clean-env:
	rm -rf $(VENV)
