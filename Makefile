# Quick start: `make sim` plays a demo pack, `make test` runs the tests.
# Both create .venv and install the project into it first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: test sim bench lint format clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@

test: $(STAMP)
	$(BIN)/python -m pytest -q

sim: $(STAMP)
	$(BIN)/faro-pi sim

bench: $(STAMP)
	$(BIN)/python -m tests.benchmarks.bench_rules

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: $(STAMP)
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

clean:
	rm -rf $(VENV) sim-out .pytest_cache .hypothesis
