# The two entry points are `make lab` and `make test`; both set everything up first.
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.lab-widget-installed
TOOLS  := tools/.lab-widget-installed

.PHONY: lab test setup system lint typecheck unit live notebooks bench clean

lab: setup
	$(VENV)/bin/jupyter lab notebooks/quickstart.ipynb

test: setup lint typecheck
	$(PY) -m pytest -p no:cacheprovider --nbval

setup: system $(STAMP) $(TOOLS)

system:
	@bash scripts/setup-system.sh

$(STAMP): pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[dev]"
	touch $@

$(TOOLS): lab_widget/compat.py $(STAMP)
	$(PY) -m lab_widget install-clis
	touch $@

lint: $(STAMP)
	$(VENV)/bin/ruff check lab_widget tests scripts bench
	$(VENV)/bin/ruff format --check lab_widget tests scripts bench

typecheck: $(STAMP)
	$(VENV)/bin/mypy lab_widget

unit: setup
	$(PY) -m pytest -p no:cacheprovider -m "not live"

live: setup
	$(PY) -m pytest -p no:cacheprovider -m live

notebooks: setup
	$(PY) -m pytest -p no:cacheprovider --nbval notebooks

bench: setup
	$(PY) bench/run.py

clean:
	rm -rf $(VENV) tools/node_modules $(TOOLS)
