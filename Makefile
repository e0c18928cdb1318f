# bnb-sim developer and user entry points. Needs only python3 (>= 3.10) and make.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install demo test lint bench warmup clean

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev,dask]'
	@touch $(STAMP)

install: $(STAMP)

## Run the main job on built-in defaults and write a report under reports/demo/.
demo: install
	$(BIN)/bnb run --builtin demo --out reports/demo --force

## Lint and the whole test suite (what CI runs).
# The kernels are compiled first (`bnb warmup`: numba's cache is not safe against two processes
# compiling the same kernel at once), then the tests run in one worker per usable core (at
# most 4; one more worker than cores measured no faster on 2 cores: 743 s against 728 s of
# pytest on a fresh clone). Whole files per worker, the longest first (tests/conftest.py).
WORKERS ?= $(shell $(PYTHON) -c "import os; n = len(os.sched_getaffinity(0)) if hasattr(os, 'sched_getaffinity') else os.cpu_count(); print(min(n, 4))")
test: install lint
	$(BIN)/bnb warmup --quiet --no-plugins
	$(BIN)/python -m pytest -q -n $(WORKERS) --dist loadfile --no-loadscope-reorder --durations=25

lint: install
	$(BIN)/ruff check bnb_sim tests scripts examples
	$(BIN)/ruff format --check bnb_sim tests scripts examples

bench: install
	$(BIN)/bnb bench

warmup: install
	$(BIN)/bnb warmup

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .ruff_cache .hypothesis
