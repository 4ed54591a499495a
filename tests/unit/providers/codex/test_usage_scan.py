"""The usage-only fast path counts every recorded Codex session exactly as the full reader
does: the same totals, per model and scope in the same order, sub-agents included."""

from __future__ import annotations

from pathlib import Path

import pytest

from lab_widget.provider import TranscriptRef
from lab_widget.provider.codex._rollouts import is_subagent, read_meta
from lab_widget.provider.codex._usage_scan import _lines
from tests.support.paths import FIXTURES as ALL_FIXTURES
from tests.support.usage_scan import assert_scan_counts_as_read

FIXTURES = ALL_FIXTURES / "codex"


def _sessions() -> list[Path]:
    found = []
    for path in sorted(FIXTURES.rglob("*.jsonl")):
        if path.name.endswith(".hooks.jsonl"):
            continue
        meta = read_meta(path)
        if meta is None or not is_subagent(meta):
            found.append(path)  # a sub-agent's rollout is read with its parent's
    return found


SESSIONS = _sessions()


def test_every_version_and_the_subagents_are_covered() -> None:
    versions = {p.parent.name for p in SESSIONS}
    assert {"codex", "v0.150.1", "v0.80.0", "subagent"} <= versions


@pytest.mark.parametrize("path", SESSIONS, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_the_usage_scan_totals_as_the_reader_does(path: Path) -> None:
    assert_scan_counts_as_read("codex", TranscriptRef(transcript_id=path.stem, path=path))


def test_the_one_pass_finds_each_counted_line_once_and_a_spawns_outputs() -> None:
    lines = [
        b'{"type":"turn_context","payload":{"model":"m","note":"token_count"}}',
        b'{"type":"response_item","payload":{"type":"message","text":"plain"}}',
        b'{"type":"event_msg","payload":{"type":"token_count"}}',
        b'{"type":"response_item","payload":{"type":"function_call","name":"spawn_agent"}}',
        b'{"type":"response_item","payload":{"output":"{\\"agent_id\\":\\"a1\\"}"}}',
        b'{"type":"event_msg","payload":{"type":"token_count"}}',  # no newline yet
    ]
    data = b"\n".join(lines)
    found = [data[start:end] for start, end in _lines(data)]
    assert found == [lines[0], lines[2], lines[3], lines[4]]
    assert [data[s:e] for s, e in _lines(b"\n".join([*lines[:3], b""]))] == [lines[0], lines[2]]
