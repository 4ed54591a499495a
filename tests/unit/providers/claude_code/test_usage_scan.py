"""The usage-only fast path counts every recorded Claude Code session exactly as the full
reader does: the same totals, per model and scope, sub-agents included."""

from __future__ import annotations

from pathlib import Path

import pytest

from lab_widget.provider import TranscriptRef, get_provider
from tests.support.paths import FIXTURES as ALL_FIXTURES

FIXTURES = ALL_FIXTURES / "claude-code"
TRANSCRIPTS = sorted(p for p in FIXTURES.rglob("*.jsonl") if "subagents" not in p.parts)


@pytest.mark.parametrize("path", TRANSCRIPTS, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_the_usage_scan_totals_as_the_reader_does(path: Path) -> None:
    provider = get_provider("claude-code")
    ref = TranscriptRef(transcript_id=path.stem, path=path)
    reader = provider.open_reader(ref)
    reader.read()
    full = reader.summary
    fast = provider.usage_summary(ref)
    assert fast.usage == full.usage
    assert fast.models == full.models
