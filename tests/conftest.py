"""Shared fixtures: every test gets its own lab home, hence its own tmux server."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from lab_widget._run import _runner
from lab_widget._tools import tools_dir
from lab_widget.provider import register

from .fake_provider import FakeProvider

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


@pytest.fixture
def claude_binary() -> Path:
    """The pinned Claude Code binary; a live test fails loudly when it is missing."""
    binary = tools_dir() / "node_modules" / ".bin" / "claude"
    if not binary.exists() and not shutil.which("claude"):
        pytest.fail(
            "the pinned Claude Code CLI is not installed: run `make setup` "
            "(python -m lab_widget install-clis)"
        )
    if shutil.which("tmux") is None:
        pytest.fail("tmux is not installed: run `make setup`")
    return binary


@pytest.fixture
def codex_binary() -> Path:
    """The pinned Codex CLI binary; a live test fails loudly when it is missing."""
    binary = tools_dir() / "node_modules" / ".bin" / "codex"
    if not binary.exists() and not shutil.which("codex"):
        pytest.fail(
            "the pinned Codex CLI is not installed: run `make setup` "
            "(python -m lab_widget install-clis)"
        )
    if shutil.which("tmux") is None:
        pytest.fail("tmux is not installed: run `make setup`")
    return binary


@pytest.fixture
def opencode_binary() -> Path:
    """The pinned OpenCode binary; a live test fails loudly when it is missing."""
    binary = tools_dir() / "node_modules" / ".bin" / "opencode"
    if not binary.exists() and not shutil.which("opencode"):
        pytest.fail(
            "the pinned OpenCode CLI is not installed: run `make setup` "
            "(python -m lab_widget install-clis)"
        )
    if shutil.which("tmux") is None:
        pytest.fail("tmux is not installed: run `make setup`")
    return binary


@pytest.fixture
def gemini_binary() -> Path:
    """The pinned Gemini CLI binary; a live test fails loudly when it is missing."""
    binary = tools_dir() / "node_modules" / ".bin" / "gemini"
    if not binary.exists() and not shutil.which("gemini"):
        pytest.fail(
            "the pinned Gemini CLI is not installed: run `make setup` "
            "(python -m lab_widget install-clis)"
        )
    if shutil.which("tmux") is None:
        pytest.fail("tmux is not installed: run `make setup`")
    return binary
