"""The usage-only fast path counts every recorded Copilot CLI session exactly as the full
reader does: the same totals, per model, and the same session facts."""

from __future__ import annotations

from pathlib import Path

import pytest

from lab_widget.provider import TranscriptRef, get_provider
from tests.support.paths import FIXTURES
from tests.support.usage_scan import assert_scan_counts_as_read

SESSIONS = sorted((FIXTURES / "copilot").rglob("*.jsonl"))
"""The pinned version's sessions and the older versions' (``v<version>/``)."""


@pytest.mark.parametrize("path", SESSIONS, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_the_scan_counts_as_the_reader_reads(path: Path) -> None:
    ref = TranscriptRef(path.stem, path)
    fast = assert_scan_counts_as_read("copilot", ref)
    if "session.usage_record" in path.read_text():
        assert fast.usage.input_tokens + fast.usage.output_tokens > 0, "a session with calls"
    reader = get_provider("copilot").open_reader(ref)
    reader.read()
    facts = ("cli_version", "cwd", "branch", "started_at")
    assert {f: getattr(fast, f) for f in facts} == {f: getattr(reader.summary, f) for f in facts}


def test_a_corrupt_line_costs_nothing_but_itself(tmp_path: Path) -> None:
    [first, *_] = SESSIONS
    lines = first.read_bytes().splitlines(keepends=True)
    broken = tmp_path / "broken.jsonl"
    broken.write_bytes(b"".join([lines[0], b'{"type": "session.usage_record", \n', *lines[1:]]))
    assert_scan_counts_as_read("copilot", TranscriptRef("broken", broken))


def test_a_missing_file_is_an_empty_summary(tmp_path: Path) -> None:
    summary = get_provider("copilot").usage_summary(TranscriptRef("gone", tmp_path / "x.jsonl"))
    assert summary.usage.input_tokens == 0 and summary.models == []
