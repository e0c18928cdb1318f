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
# The kernels are compiled once by one process (numba's cache is not safe against two
# processes compiling the same kernel at once), then the tests run on every core (at most 4).
test: install lint
	$(BIN)/bnb warmup --quiet --no-plugins
	$(BIN)/python -m pytest -q -n auto --maxprocesses 4 --dist loadfile --no-loadscope-reorder --durations=25

lint: install
	$(BIN)/ruff check bnb_sim tests scripts examples
	$(BIN)/ruff format --check bnb_sim tests scripts examples

bench: install
	$(BIN)/bnb bench

warmup: install
	$(BIN)/bnb warmup

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .ruff_cache .hypothesis
