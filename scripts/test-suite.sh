#!/usr/bin/env bash
# The whole pytest suite, as `make test` runs it, in about two thirds of one process's time.
#
# Two processes side by side, one per core: the live tier (real CLIs under tmux) in one; the
# unit and conformance tiers, the doctests and the notebooks (nbval) in the other, then the
# oracle tier and the live tests that time nothing (a wheel built, a CLI installed), so that
# process still ends first and most live tests run beside nothing. Then the browser tier
# alone: a JupyterLab and Chromium take both cores. Each process prints its own report; any
# failure fails the whole.
#
# Usage: scripts/test-suite.sh [PYTHON]   (default: .venv/bin/python)
set -uo pipefail
cd "$(dirname "$0")/.."
py="${1:-.venv/bin/python}"
pytest=("$py" -m pytest -p no:cacheprovider)

# Live tests that wait on no agent's timing: they run in the second process.
untimed=(tests/live/test_install.py tests/live/test_packaging.py)
beside=$(mktemp)
trap 'rm -f "$beside"' EXIT
"${pytest[@]}" --nbval --durations=20 tests/unit tests/conformance tests/support lab_widget \
    notebooks tests/oracle "${untimed[@]}" >"$beside" 2>&1 &
other=$!

echo "== live tier (beside it: unit, conformance, doctests, notebooks, then oracle) =="
"${pytest[@]}" --durations=30 tests/live "${untimed[@]/#/--ignore=}"
live=$?
wait "$other"
rest=$?
echo
echo "== unit, conformance, doctests, notebooks, oracle (run beside the live tier) =="
cat "$beside"

echo
echo "== browser tier =="
"${pytest[@]}" --durations=20 tests/browser
browser=$?

echo
echo "live: exit $live; unit, conformance, doctests, notebooks, oracle: exit $rest;" \
    "browser: exit $browser"
[ "$live" -eq 0 ] && [ "$rest" -eq 0 ] && [ "$browser" -eq 0 ]
