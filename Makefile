# The two entry points are `make lab` and `make test`; both set everything up first.
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.lab-widget-installed
TOOLS  := tools/.lab-widget-installed
# The project's JupyterLab defaults (saved widget state); the user's own settings still win.
LAB_SETTINGS := $(VENV)/share/jupyter/lab/settings/overrides.json
# js/bundles.json is the one list of front-end bundles (name -> entry point); each builds to
# lab_widget/static/<name>.js and .css.
BUNDLES := $(shell python3 -c 'import json; print(*json.load(open("js/bundles.json")))')
BUNDLE := $(foreach b,$(BUNDLES),lab_widget/static/$(b).js lab_widget/static/$(b).css)
JS_SRC := $(shell find js/src -name "*.ts" -o -name "*.css") js/package.json js/package-lock.json js/build.mjs \
	js/bundles.json

.PHONY: lab test setup system lint typecheck docs js-test unit conformance live live-loaded notebooks \
	bench clean js-dev

lab: setup
	$(VENV)/bin/jupyter lab $(if $(filter 0,$(shell id -u)),--allow-root) notebooks/quickstart.ipynb

# The checks side by side (each one's output kept together), then every pytest tier.
test: setup
	$(MAKE) --no-print-directory -j2 --output-sync=target lint typecheck docs js-test
	bash scripts/test-suite.sh $(PY)

setup: system $(STAMP) $(BUNDLE) $(TOOLS) $(LAB_SETTINGS)

system:
	@bash scripts/setup-system.sh

$(STAMP): pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[dev]"
	touch $@

js/node_modules/.package-lock.json: js/package.json js/package-lock.json
	cd js && npm ci --no-audit --no-fund

# One build writes every bundle (a grouped target: the recipe runs once for all of them).
$(BUNDLE) &: $(JS_SRC) js/node_modules/.package-lock.json
	cd js && npm run build

$(LAB_SETTINGS): scripts/lab_settings.py $(STAMP)
	$(PY) scripts/lab_settings.py $@

$(TOOLS): lab_widget/compat.py $(STAMP)
	$(PY) -m lab_widget install-clis
	touch $@

lint: $(STAMP) js/node_modules/.package-lock.json
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check lab_widget tests scripts bench conftest.py
	cd js && npm run format:check

typecheck: $(STAMP) js/node_modules/.package-lock.json
	$(VENV)/bin/mypy lab_widget tests
	cd js && npm run typecheck

# The user guide (the notebooks' stored outputs), decision records and API reference;
# any warning fails the build.
docs: $(STAMP)
	$(VENV)/bin/sphinx-build -W --keep-going -q -b html docs build/docs

js-test: js/node_modules/.package-lock.json
	cd js && npm test

js-dev: js/node_modules/.package-lock.json
	cd js && npm run dev


# Each folder of tests/ is a tier; its conftest.py marks every test in it (pyproject.toml lists
# the markers). `make test` runs every tier once: the markers only pick a subset.
# unit: tests/unit, tests/conformance and the doctests in lab_widget/.
unit: setup
	$(PY) -m pytest -p no:cacheprovider -m "not live"

conformance: setup
	$(PY) -m pytest -p no:cacheprovider -m conformance tests/conformance

# live: tests/live, tests/browser and tests/oracle (their tests are all marked live).
live: setup
	$(PY) -m pytest -p no:cacheprovider -m live

# The live and oracle tests beside busy processes (`--cpu-hog`, 2 unless LAB_WIDGET_CPU_HOG
# says otherwise), as on a loaded laptop: a wait on time instead of on a record fails here.
live-loaded: setup
	$(PY) -m pytest -p no:cacheprovider --cpu-hog $(or $(LAB_WIDGET_CPU_HOG),2) tests/live tests/oracle

notebooks: setup
	$(PY) -m pytest -p no:cacheprovider --nbval notebooks

bench: setup
	$(PY) bench/run.py

clean:
	rm -rf $(VENV) tools/node_modules $(TOOLS) js/node_modules lab_widget/static
