"""The usage-only fast path counts every recorded Gemini CLI session exactly as the full
reader does: the same totals, per model and scope, sub-agents and older versions' one-JSON
documents included."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from lab_widget.provider import TranscriptRef
from lab_widget.provider.gemini._files import read_header
from tests.support.paths import FIXTURES as ALL_FIXTURES
from tests.support.usage_scan import assert_scan_counts_as_read

FIXTURES = ALL_FIXTURES / "gemini"
SESSIONS = sorted(
    p
    for p in [*FIXTURES.rglob("*.jsonl"), *FIXTURES.rglob("*.json")]
    if not p.name.endswith(".hooks.jsonl")
    and p.name != "manifest.json"
    and not p.parent.name.endswith(".agents")
)


def _lay_out(path: Path, tmp_path: Path) -> Path:
    """The session as Gemini CLI keeps it: its file in ``chats/``, its sub-agents' files in
    ``chats/<session id>/``."""
    chats = tmp_path / "chats"
    chats.mkdir()
    target = chats / f"session-2026-12-01T15-00-{path.stem}{path.suffix}"
    shutil.copy(path, target)
    agents = path.with_name(f"{path.stem}.agents")
    if agents.is_dir():
        header = read_header(path)
        assert header is not None and isinstance(header.get("sessionId"), str)
        shutil.copytree(agents, chats / header["sessionId"])
    return target


def test_every_version_and_the_subagents_are_covered() -> None:
    assert {p.parent.name for p in SESSIONS} == {"gemini", "v0.20.2", "v0.38.2"}
    assert any(p.with_name(f"{p.stem}.agents").is_dir() for p in SESSIONS)


@pytest.mark.parametrize("path", SESSIONS, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_the_usage_scan_totals_as_the_reader_does(path: Path, tmp_path: Path) -> None:
    ref = TranscriptRef(transcript_id=path.stem, path=_lay_out(path, tmp_path))
    fast = assert_scan_counts_as_read("gemini", ref)
    if path.stem == "subagent":
        assert {m.scope for m in fast.models} == {"main", "subagent"}
