"""Live tests specific to Gemini CLI: each fails loudly when its pinned binary is missing."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _pinned(gemini_binary: Path) -> Path:
    return gemini_binary
