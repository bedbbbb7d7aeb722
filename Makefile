# `make run` and `make test` are the README's two commands.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
TEST_STAMP := $(VENV)/.installed-test

.PHONY: run test test-fast test-realmd screenshots perf clean

# The built-in themes live in the top-level themes/ folder and are mapped into
# the package, so setuptools makes the editable install with an import hook and
# says so in a multi-line note; and it calls the C modules' table in
# pyproject.toml experimental, three times an install. Those two modules' notes
# (only theirs) are silenced.
QUIET_EDITABLE := PYTHONWARNINGS="ignore:::setuptools.command.editable_wheel,ignore:::setuptools.config.pyprojecttoml"

# The C modules are built by the install, so a change to it installs again.
$(STAMP): pyproject.toml raidtop/collect/_diskstats_native.c raidtop/collect/rates/_disk_rates_native.c
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(QUIET_EDITABLE) $(BIN)/pip install -q -e .
	touch $@

$(TEST_STAMP): $(STAMP) tests/constraints.txt
	$(QUIET_EDITABLE) $(BIN)/pip install -q -c tests/constraints.txt -e '.[test]'
	touch $@

run: $(STAMP)
	$(BIN)/raidtop $(ARGS)

# The whole suite: unit, UI, live (root + loop devices) and, when qemu is
# installed, the real-md VM scenarios, run beside the rest (tests/run_tiers.sh).
test: $(TEST_STAMP)
	PYTHON=$(BIN)/python bash tests/run_tiers.sh $(ARGS)

test-fast: $(TEST_STAMP)
	$(BIN)/python -m pytest -q -m "not realmd and not live and not wheel"

test-realmd: $(TEST_STAMP)
	$(BIN)/python -m pytest -q tests/realmd

screenshots: $(TEST_STAMP)
	$(BIN)/python screenshots/make_screenshots.py

perf: $(TEST_STAMP)
	$(BIN)/python perf/sampler.py

clean:
	rm -rf $(VENV) .pytest_cache
