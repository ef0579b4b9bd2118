# llmbench developer entry points. `make serve` and `make test` work on a fresh clone.
PY      ?= python3
VENV    := .venv
BIN     := $(VENV)/bin
# STAMP: llmbench itself, enough to build and serve the site; TSTAMP: + pytest, playwright, ruff,
# check-jsonschema, zizmor, CPU torch + transformers for the engine tests and AIConfigurator for the
# estimate tests.
STAMP   := $(VENV)/.installed
TSTAMP  := $(VENV)/.installed-test
RESULTS := results
DB      := build/llmbench.duckdb
ADDR    ?= 127.0.0.1:8000

.PHONY: estimates help venv site serve test lint format perf perf-1m fresh-check clean

help:  ## list targets
	@grep -E '^[a-z0-9-]+:.*##' $(MAKEFILE_LIST) | sed 's/:.*## /\t/'

# One progress line per step (pip is quiet; a first install takes a minute or more).
$(STAMP): pyproject.toml
	@echo "[1/3] creating $(VENV) with $(PY)"
	@$(PY) -m venv $(VENV)
	@echo "[2/3] upgrading pip"
	@$(BIN)/pip install -q --upgrade pip
	@echo "[3/3] installing llmbench and its dependencies (mkdocs, duckdb, altair, ...); setuptools' \"Editable installation\" warning is expected"
	@$(BIN)/pip install -q -e .
	@touch $@

# torch for the engine tests: from PyTorch's CPU index when it answers (on PyPI, Linux torch is the
# multi-GB CUDA build on most machines; pip prefers the index's 2.13.0+cpu); else from PyPI, said so.
TORCH_CPU_INDEX := https://download.pytorch.org/whl/cpu

$(TSTAMP): $(STAMP)
	@if $(BIN)/python -c "import urllib.request as u; u.urlopen('$(TORCH_CPU_INDEX)/torch/', timeout=10)" 2>/dev/null; then \
	  echo "[test] installing the test tools (pytest, playwright, ruff, check-jsonschema, zizmor, transformers, aiconfigurator) and CPU torch from $(TORCH_CPU_INDEX)"; \
	  PIP_EXTRA_INDEX_URL=$(TORCH_CPU_INDEX) $(BIN)/pip install -q -e '.[test]'; \
	else \
	  echo "[test] installing the test tools; $(TORCH_CPU_INDEX) does not answer: torch from PyPI (the CPU wheel on some machines, a multi-GB CUDA build on others)"; \
	  $(BIN)/pip install -q -e '.[test]'; \
	fi
	@touch $@

venv: $(TSTAMP)  ## create .venv and install llmbench with its test tools

site: $(STAMP)  ## results/ -> DuckDB -> static site in site/ (mkdocs build --strict, swapped in atomically)
	$(BIN)/llmbench site build --results $(RESULTS) --db $(DB)
	@echo "site built: open site/index.html, or run make serve"

serve: $(STAMP)  ## serve the site on http://127.0.0.1:8000 (ADDR=host:port), rebuilt when docs/ or results/ change
	@echo "building and serving the site on http://$(ADDR)/ (Ctrl-C stops)"
	$(BIN)/llmbench site serve --results $(RESULTS) --db $(DB) --addr $(ADDR)

test: $(TSTAMP)  ## install system test deps (chromium, slurm, munge) when missing, lint, run the whole suite
	bash .ci/system-deps.sh
	$(BIN)/ruff format --check .
	$(BIN)/ruff check .
	$(BIN)/pytest -q

lint: $(TSTAMP)  ## ruff lint + format check
	$(BIN)/ruff format --check . && $(BIN)/ruff check .

format: $(TSTAMP)  ## apply ruff formatting and safe fixes
	$(BIN)/ruff format . && $(BIN)/ruff check --fix .

perf: $(TSTAMP)  ## benchmarks: throughput, memory, Lighthouse figures (not pass/fail tests)
	$(BIN)/python -m tests.perf

perf-1m: $(TSTAMP)  ## site build of today's results, 1,000,000 and 200,000 synthetic runs: time, peak RSS, site size, pass/miss (minutes)
	$(BIN)/python -m tests.perf.bench_scale 1000000 200000

estimates: $(TSTAMP)  ## AIConfigurator estimates of bench/data/estimate_grid/*.yaml into results/modelled/ (extra .[estimate])
	for s in bench/data/estimate_grid/*.yaml; do \
	  $(BIN)/llmbench estimate "$$s" --out results/modelled/aiconfigurator-0.12.0 || exit 1; \
	done

fresh-check:  ## as root: the README's commands on a bare Debian chroot (debootstrap; see docs/dev/)
	bash scripts/fresh-check.sh

clean:  ## remove build outputs (keeps .venv)
	rm -rf build site .site.* docs/generated  # docs/generated/: written by earlier versions
