"""Unit tier: pure Python over recorded fixtures, the fake agent under real tmux, no real CLI."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.tiers import mark_folder


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    mark_folder(items, Path(__file__).parent, "unit")
