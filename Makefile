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
	$(BIN)/python -m ocr_tui.ui.screenshots screenshots

clean:
	rm -rf $(VENV) .pytest_cache build dist *.egg-info
