"""Live tests specific to Kilo Code: each fails loudly when its pinned binary is missing."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.binaries import pinned_binary


@pytest.fixture(autouse=True)
def _pinned() -> Path:
    return pinned_binary("kilo")
