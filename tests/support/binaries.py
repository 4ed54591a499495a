"""The pinned CLIs a live test drives: found, or a loud failure naming the fix."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from lab_widget.compat import PINS
from lab_widget.provider import get_provider
from lab_widget.provider._binaries import pinned_executable


def pinned_binary(provider_id: str) -> Path:
    """The pinned CLI of ``provider_id`` and tmux, or a loud failure naming the fix."""
    pin = PINS[provider_id]
    binary = pinned_executable(pin)
    if not binary.exists() and not shutil.which(pin.binary):
        pytest.fail(
            f"the pinned {get_provider(provider_id).meta.display_name} ({pin.spec}) is not "
            "installed: run `make setup` (python -m lab_widget install-clis)"
        )
    if shutil.which("tmux") is None:
        pytest.fail("tmux is not installed: run `make setup`")
    return binary
