"""Where the repository and the recorded fixtures are, wherever a test module sits."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
"""The repository's root (the folder holding ``lab_widget/`` and ``tests/``)."""

FIXTURES = ROOT / "tests" / "fixtures"
"""Transcripts recorded from the pinned CLIs, one folder per provider id."""
