"""ACP unit tests build agents, which register themselves by name: each test's stay its own."""

from __future__ import annotations

import pytest

from lab_widget.provider import _registry


@pytest.fixture(autouse=True)
def _own_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_registry, "_registered", dict(_registry._registered))
    monkeypatch.setattr(_registry, "_instances", dict(_registry._instances))
