"""Shared fixtures: every test gets its own lab home, hence its own tmux server."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import comm
import pytest

from lab_widget._run import _runner
from lab_widget._tools import tools_dir
from lab_widget.compat import PINS
from lab_widget.provider import get_provider, register

from . import sshd
from .fake_provider import FakeProvider
from .recording import RecordingComm
from .remote import close_connections

FIXTURES = Path(__file__).with_name("fixtures")

register("fake", FakeProvider)


@pytest.fixture
def lab_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A private lab home (and tmux server) torn down after the test."""
    home = tmp_path / "lab-home"
    monkeypatch.setenv("LAB_WIDGET_HOME", str(home))
    yield home
    _runner().kill_server()


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    """An empty folder for the agent to work in."""
    folder = tmp_path / "work"
    folder.mkdir()
    return folder


def pinned_binary(provider_id: str) -> Path:
    """The pinned CLI of ``provider_id`` and tmux, or a loud failure naming the fix."""
    pin = PINS[provider_id]
    binary = tools_dir() / "node_modules" / ".bin" / pin.binary
    if not binary.exists() and not shutil.which(pin.binary):
        pytest.fail(
            f"the pinned {get_provider(provider_id).meta.display_name} ({pin.spec}) is not "
            "installed: run `make setup` (python -m lab_widget install-clis)"
        )
    if shutil.which("tmux") is None:
        pytest.fail("tmux is not installed: run `make setup`")
    return binary


@pytest.fixture
def claude_binary() -> Path:
    """The pinned Claude Code binary; a live test fails loudly when it is missing."""
    return pinned_binary("claude-code")


@pytest.fixture
def codex_binary() -> Path:
    """The pinned Codex CLI binary; a live test fails loudly when it is missing."""
    return pinned_binary("codex")


@pytest.fixture
def opencode_binary() -> Path:
    """The pinned OpenCode binary; a live test fails loudly when it is missing."""
    return pinned_binary("opencode")


@pytest.fixture
def gemini_binary() -> Path:
    """The pinned Gemini CLI binary; a live test fails loudly when it is missing."""
    return pinned_binary("gemini")


@pytest.fixture
def comms(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[RecordingComm]]:
    """Every widget comm created during the test, recording what it publishes."""
    made: list[RecordingComm] = []

    def create_comm(*args: Any, **kwargs: Any) -> RecordingComm:
        c = RecordingComm(*args, **kwargs)
        made.append(c)
        return c

    monkeypatch.setattr(comm, "create_comm", create_comm)
    yield made


@pytest.fixture(scope="session")
def ssh_server() -> Iterator[sshd.SshServer]:
    """A second host: a test sshd on 127.0.0.1 reached as a second local user (see sshd.py)."""
    try:
        server = sshd.start(Path(tempfile.mkdtemp(prefix="lab-widget-sshd-")))
    except sshd.SetupError as exc:
        pytest.fail(f"cannot start the second host: {exc}")
    try:
        yield server
    finally:
        close_connections()
        server.stop()
