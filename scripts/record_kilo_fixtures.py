"""Record Kilo Code CLI fixtures from a real Kilo against the scripted model.

Usage::

    python scripts/record_kilo_fixtures.py [--version X.Y.Z | --store] [--versions-dir DIR] [scenario ...]

Kilo is a fork of OpenCode and keeps OpenCode's store, so OpenCode's recorder plays the same
scenarios against it (``scripts/record_opencode_fixtures.py``, its flags and layout) and
writes into ``tests/fixtures/kilo/``: the pinned version's event log per session
(``<scenario>.jsonl``, ``<scenario>_<n>.jsonl`` after ``/new``), an older version's whole
store in ``v<version>/`` (``<scenario>.store.jsonl``, ``schema.sql``), a ``manifest.json``
naming the version. Older versions are installed through ``scripts/cli_versions.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from record_opencode_fixtures import VERSION_SCENARIOS, Target, main

KILO = Target("kilo", "kilo", "kilo.db", scenarios=VERSION_SCENARIOS)
"""Kilo's store under ``$XDG_DATA_HOME``; the pinned version records the scenarios every
version records."""

if __name__ == "__main__":
    main(sys.argv[1:], KILO, __doc__ or "")
