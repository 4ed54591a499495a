"""Live tests specific to Codex CLI: each fails loudly when its pinned binary is missing."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _pinned(codex_binary: Path) -> Path:
    return codex_binary
