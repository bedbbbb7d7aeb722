# `make run` and `make test` are the README's two commands.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
TEST_STAMP := $(VENV)/.installed-test

.PHONY: run test test-fast test-realmd screenshots bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e .
	touch $@

$(TEST_STAMP): $(STAMP)
	$(BIN)/pip install -q -e '.[test]'
	touch $@

run: $(STAMP)
	$(BIN)/raidtop $(ARGS)

# The whole suite: unit, UI, live (root + loop devices) and, when qemu is
# installed, the real-md VM scenarios.
test: $(TEST_STAMP)
	$(BIN)/python -m pytest -q

test-fast: $(TEST_STAMP)
	$(BIN)/python -m pytest -q -m "not realmd and not live and not wheel"

test-realmd: $(TEST_STAMP)
	$(BIN)/python -m pytest -q tests/realmd

screenshots: $(TEST_STAMP)
	$(BIN)/python screenshots/make_screenshots.py

bench: $(TEST_STAMP)
	$(BIN)/python bench/sampler.py

clean:
	rm -rf $(VENV) .pytest_cache
