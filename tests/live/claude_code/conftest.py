"""Live tests specific to Claude Code: each fails loudly when its pinned binary is missing."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _pinned(claude_binary: Path) -> Path:
    return claude_binary
