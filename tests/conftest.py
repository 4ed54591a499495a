"""Shared fixtures: every test gets its own lab home, hence its own tmux server."""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import comm
import pytest

from lab_widget._run._launch import runner as _runner
from lab_widget.provider import register
from tests.support import sshd
from tests.support.binaries import pinned_binary
from tests.support.fake_provider import FakeProvider
from tests.support.recording import RecordingComm
from tests.support.remote import close_connections

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


def _binary_fixture(name: str, provider_id: str) -> Callable[[], Path]:
    """The fixture ``name``: the pinned CLI of ``provider_id``, or a loud failure without it."""

    def binary() -> Path:
        return pinned_binary(provider_id)

    binary.__doc__ = (
        f"The pinned {provider_id} binary; a live test fails loudly when it is missing."
    )
    return pytest.fixture(binary, name=name)


claude_binary = _binary_fixture("claude_binary", "claude-code")
codex_binary = _binary_fixture("codex_binary", "codex")
opencode_binary = _binary_fixture("opencode_binary", "opencode")
gemini_binary = _binary_fixture("gemini_binary", "gemini")


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
