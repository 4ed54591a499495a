"""The usage-only fast path counts every recorded Claude Code session exactly as the full
reader does: the same totals, per model and scope, sub-agents included."""

from __future__ import annotations

from pathlib import Path

import pytest

from lab_widget.provider import TranscriptRef
from tests.support.paths import FIXTURES as ALL_FIXTURES
from tests.support.usage_scan import assert_scan_counts_as_read

FIXTURES = ALL_FIXTURES / "claude-code"
TRANSCRIPTS = sorted(p for p in FIXTURES.rglob("*.jsonl") if "subagents" not in p.parts)


@pytest.mark.parametrize("path", TRANSCRIPTS, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_the_usage_scan_totals_as_the_reader_does(path: Path) -> None:
    assert_scan_counts_as_read("claude-code", TranscriptRef(transcript_id=path.stem, path=path))
