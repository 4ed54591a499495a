"""Live tests specific to OpenCode: each fails loudly when its pinned binary is missing."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _pinned(opencode_binary: Path) -> Path:
    return opencode_binary
