"""Browser tier: a real JupyterLab in Debian's Chromium over the real pinned Claude Code."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.tiers import mark_folder


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    mark_folder(items, Path(__file__).parent, "live", "browser")


@pytest.fixture(autouse=True)
def _pinned(claude_binary: Path) -> Path:
    """Every browser test drives the pinned Claude Code."""
    return claude_binary
