PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint bench screenshots fuzz clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/ocr-tui demo

test: $(STAMP)
	$(BIN)/python -m pytest -n 2 -q

lint: $(STAMP)
	$(BIN)/ruff check ocr_tui tests benchmarks

bench: $(STAMP)
	$(BIN)/python -m benchmarks

screenshots: $(STAMP)
	$(BIN)/python -m ocr_tui.screenshots screenshots

# Longer property-test runs: FUZZ_EXAMPLES sequences of up to 40 actions on every native
# watcher backend (ROBUSTNESS_POLL=1 adds polling). Not derandomized: each run explores anew.
# Then the triage race's long form: RACE_RUNS runs of RACE_MARKS marks against a process that
# replaces ocr.db as OCR's CLI does, in a tight loop (docs/triage.md).
FUZZ_EXAMPLES ?= 5000
RACE_RUNS ?= 20
RACE_MARKS ?= 400
fuzz: $(STAMP)
	HYPOTHESIS_PROFILE=fuzz ROBUSTNESS_EXAMPLES=$(FUZZ_EXAMPLES) \
		$(BIN)/python -m pytest tests/robustness/test_stateful.py \
		tests/robustness/test_property_text.py -q -p no:cacheprovider \
		--hypothesis-show-statistics
	RACE_RUNS=$(RACE_RUNS) RACE_MARKS=$(RACE_MARKS) $(BIN)/python -m pytest \
		tests/triage/test_race.py -q -p no:cacheprovider -k kept

clean:
	rm -rf $(VENV) .pytest_cache build dist *.egg-info
