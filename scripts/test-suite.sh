#!/usr/bin/env bash
# The whole pytest suite, as `make test` runs it, in about two thirds of one process's time.
#
# Two processes side by side, one per core: the live tier (real CLIs under tmux) and the
# oracle tier in one; the unit and conformance tiers, the doctests and the notebooks (nbval)
# in the other, which ends first, so most live tests run beside nothing. Then the browser
# tier alone: a JupyterLab and Chromium take both cores. Each process prints its own report;
# any failure fails the whole.
#
# Usage: scripts/test-suite.sh [PYTHON]   (default: .venv/bin/python)
set -uo pipefail
cd "$(dirname "$0")/.."
py="${1:-.venv/bin/python}"
pytest=("$py" -m pytest -p no:cacheprovider)

beside=$(mktemp)
trap 'rm -f "$beside"' EXIT
"${pytest[@]}" --nbval --durations=20 tests/unit tests/conformance tests/support lab_widget \
    notebooks >"$beside" 2>&1 &
other=$!

echo "== live and oracle tiers (beside them: unit, conformance, doctests, notebooks) =="
"${pytest[@]}" --durations=30 tests/live tests/oracle
live=$?
wait "$other"
rest=$?
echo
echo "== unit and conformance tiers, doctests and notebooks (run beside the live tier) =="
cat "$beside"

echo
echo "== browser tier =="
"${pytest[@]}" --durations=20 tests/browser
browser=$?

echo
echo "live and oracle: exit $live; unit, conformance, doctests, notebooks: exit $rest;" \
    "browser: exit $browser"
[ "$live" -eq 0 ] && [ "$rest" -eq 0 ] && [ "$browser" -eq 0 ]
