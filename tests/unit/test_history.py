"""Unit: past sessions of a folder (history), from a temporary config dir."""

from __future__ import annotations

import os
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest

from lab_widget import SessionInfo, history, read_transcript
from lab_widget._reading._history import SessionList
from lab_widget.provider import get_provider
from lab_widget.provider.claude_code import project_slug
from lab_widget.provider.claude_code._transcript import peek_session
from tests.support.paths import FIXTURES

CLAUDE = FIXTURES / "claude-code"


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """A config dir holding three sessions of a work folder (and one of another)."""
    config_dir = tmp_path / "config"
    work = tmp_path / "work"
    work.mkdir()
    project = config_dir / "projects" / project_slug(str(work.resolve()))
    project.mkdir(parents=True)
    for age, name in enumerate(["tools.jsonl", "paste.jsonl", "hello.jsonl"]):
        target = project / f"session-{name.removesuffix('.jsonl')}.jsonl"
        shutil.copy(CLAUDE / name, target)
        stamp = 1_800_000_000 - age * 60
        os.utime(target, (stamp, stamp))
    other = config_dir / "projects" / project_slug("/somewhere/else")
    other.mkdir(parents=True)
    shutil.copy(CLAUDE / "hello.jsonl", other / "elsewhere.jsonl")
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config_dir))
    return config_dir, work


def test_history_lists_a_folders_sessions_newest_first(config: tuple[Path, Path]) -> None:
    _, work = config
    found = history(work)
    assert [s.transcript_id for s in found] == ["session-tools", "session-paste", "session-hello"]
    assert all(isinstance(s, SessionInfo) for s in found)
    assert all(s.provider_id == "claude-code" for s in found)
    tools = found[0]
    assert tools.first_prompt == "please use a tool"
    assert tools.model == "claude-opus-5-5"
    assert tools.size_bytes == (CLAUDE / "tools.jsonl").stat().st_size
    assert tools.modified.tzinfo is not None
    assert found == history(work, provider="claude-code")


def test_history_defaults_to_the_current_folder(
    config: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    _, work = config
    monkeypatch.chdir(work)
    assert len(history()) == 3


def test_history_of_a_folder_without_sessions_is_empty(tmp_path: Path, config: object) -> None:
    assert history(tmp_path) == []
    assert repr(history(tmp_path)) == "SessionList([])"


def test_providers_without_sessions_list_nothing(config: tuple[Path, Path]) -> None:
    _, work = config
    assert history(work, provider="fake") == []


def test_open_reads_the_whole_conversation(config: tuple[Path, Path]) -> None:
    _, work = config
    info = history(work)[0]
    chat = info.open()
    assert chat == read_transcript(info.path, provider="claude-code")
    assert chat.session.transcript_id == "session-tools"


def test_display_has_no_paths(config: tuple[Path, Path]) -> None:
    config_dir, work = config
    found = history(work)
    assert isinstance(found, SessionList)
    text, page = repr(found), found._repr_html_()
    for shown in (text, page, repr(found[0])):
        assert str(config_dir) not in shown
        assert "projects" not in shown
    assert "please use a tool" in text and "claude-opus-5-5" in text
    assert page.startswith("<table>") and page.count("<tr>") == 4
    assert text.splitlines()[0].split() == [
        "modified",
        "(UTC)",
        "provider",
        "model",
        "size",
        "first",
        "prompt",
    ]


def test_display_escapes_html(tmp_path: Path) -> None:
    info = SessionInfo("p", "t", tmp_path, datetime(2026, 1, 1, tzinfo=UTC), 10, "<b>x</b>")
    assert "<b>" not in SessionList([info])._repr_html_()


def test_peek_is_bounded(tmp_path: Path) -> None:
    assert peek_session(CLAUDE / "tools.jsonl") == ("please use a tool", "claude-opus-5-5")
    assert peek_session(CLAUDE / "tools.jsonl", limit=10) == (None, None)
    assert peek_session(tmp_path / "missing.jsonl") == (None, None)


def test_peek_skips_command_echoes() -> None:
    # clear_after begins with the /clear echo; the first prompt is what was typed after it.
    prompt, _ = peek_session(CLAUDE / "clear_after.jsonl")
    users = [
        m.text
        for m in read_transcript(CLAUDE / "clear_after.jsonl", provider="claude-code").messages
        if m.role == "user" and m.command is None and m.kind == "text"
    ]
    assert prompt == (users[0] if users else None)


def test_paste_prompt_is_unwrapped() -> None:
    prompt, _ = peek_session(CLAUDE / "paste.jsonl")
    chat = read_transcript(CLAUDE / "paste.jsonl", provider="claude-code")
    assert prompt == next(m.text for m in chat.messages if m.role == "user").strip()


def test_seam_default_is_empty(tmp_path: Path) -> None:
    fake = get_provider("fake")
    assert fake.sessions(tmp_path) == []


def test_a_sessions_summary_is_its_tokens_and_cost_without_its_messages(
    config: tuple[Path, Path],
) -> None:
    _, work = config
    for info in history(work):
        summary = info.summary()
        full = info.open().session
        assert summary.usage == full.usage
        assert summary.models == full.models
        assert summary.cost_usd_estimate == full.cost_usd_estimate
    assert history(work)[0].summary().usage.output_tokens > 0


def test_a_listings_summaries_are_its_sessions_summaries_in_order(
    config: tuple[Path, Path],
) -> None:
    # The provider's default reads them one by one; a provider whose sessions share a store
    # reads them together (``tests/unit/providers/opencode/test_usage_scan.py``).
    _, work = config
    infos = history(work)
    assert len(infos) == 3
    assert infos.summaries() == [info.summary() for info in infos]
    assert SessionList().summaries() == []
