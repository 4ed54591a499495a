"""Hostile transcripts: every registered reader survives anything and loses nothing.

Each reader is listed with recorded fixtures of its provider and a way to say which of its
messages come from valid entries; adding a provider's reader means adding a line to
``READERS``. Properties: any split of the bytes, and any corruption between valid lines
(truncated lines, garbage, unknown entry types, invalid UTF-8, a 5 MB line), never raise,
and every valid entry's message comes out exactly once, in order.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lab_widget._widgets._view import _dump
from lab_widget.provider import TranscriptRef, get_provider
from lab_widget.schema import Message
from tests.support.paths import FIXTURES


@dataclass(frozen=True)
class ReaderCase:
    provider: str
    fixtures: tuple[Path, ...]
    known_types: frozenset[str]
    """Entry types the reader maps; an "unknown" entry must use another type."""
    valid: Callable[[Message], bool]
    """Messages that come from entries (not the reader's own warnings)."""
    enlarge: Callable[[dict[str, Any], str], bool]
    """Put ``text`` into an entry if it is an assistant reply (True), else leave it."""


def _not_warning(message: Message) -> bool:
    return not (message.kind == "lifecycle" and message.level == "warning")


def _enlarge_claude(entry: dict[str, Any], text: str) -> bool:
    if entry.get("type") != "assistant":
        return False
    entry["message"]["content"] = [{"type": "text", "text": text}]
    return True


def _enlarge_codex(entry: dict[str, Any], text: str) -> bool:
    payload = entry.get("payload")
    if not (entry.get("type") == "response_item" and isinstance(payload, dict)):
        return False
    if payload.get("type") != "message" or payload.get("role") != "assistant":
        return False
    payload["content"] = [{"type": "output_text", "text": text}]
    return True


def _enlarge_gemini(entry: dict[str, Any], text: str) -> bool:
    if entry.get("type") != "gemini" or not isinstance(entry.get("id"), str):
        return False
    entry["content"] = text
    return True


READERS = [
    ReaderCase(
        provider="claude-code",
        # Single files: a session with sub-agents reads its folder too (tested on its own).
        fixtures=tuple(
            p
            for p in sorted((FIXTURES / "claude-code").glob("*.jsonl"))
            if not p.with_suffix("").is_dir()
        ),
        known_types=frozenset({"user", "assistant", "system", "cost-state", "api-request"}),
        valid=_not_warning,
        enlarge=_enlarge_claude,
    ),
    ReaderCase(
        provider="codex",
        fixtures=tuple(
            p for p in sorted((FIXTURES / "codex").glob("*.jsonl")) if ".hooks." not in p.name
        ),
        known_types=frozenset(
            {"session_meta", "response_item", "event_msg", "turn_context", "compacted"}
        ),
        valid=_not_warning,
        enlarge=_enlarge_codex,
    ),
    ReaderCase(
        provider="gemini",
        fixtures=tuple(
            p for p in sorted((FIXTURES / "gemini").glob("*.jsonl")) if ".hooks." not in p.name
        ),
        known_types=frozenset({"user", "gemini", "info", "warning", "error"}),
        valid=_not_warning,
        enlarge=_enlarge_gemini,
    ),
]
CASES = [(case, path) for case in READERS for path in case.fixtures]
IDS = [f"{case.provider}:{path.name}" for case, path in CASES]

FUZZ = settings(
    max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


def read(case: ReaderCase, path: Path) -> list[Message]:
    reader = get_provider(case.provider).open_reader(TranscriptRef("t", path))
    reader.read()
    return reader.messages


def key(message: Message) -> tuple[object, ...]:
    """A message without its position (seq moves when warnings are interleaved)."""
    return (message.kind, message.role, message.text, message.tool, message.dialog)


def valid_keys(case: ReaderCase, messages: list[Message]) -> list[tuple[object, ...]]:
    return [key(m) for m in messages if case.valid(m)]


# Corruption placed between valid lines; each stays one line (no newline inside).
def _truncated(line: bytes) -> st.SearchStrategy[bytes]:
    return st.integers(1, max(1, len(line) - 1)).map(lambda n: line[:n])


junk = st.one_of(
    st.binary(max_size=200).map(lambda b: b.replace(b"\n", b" ")),
    st.text(max_size=80).map(lambda t: t.replace("\n", " ").encode()),
    st.sampled_from(
        [
            b"\xff\xfe\xfd not utf-8 \xc3\x28",
            b"{",
            b"null",
            b"[]",
            b'"a string"',
            b'{"type": null}',
            b"\x00\x01\x02\x1b[31m",
        ]
    ),
)


# Entries of known types with odd shapes: parseable, so they may add messages of their own.
ODD = [
    b'{"type": "user", "message": {"content": "lone \\ud800 surrogate"}}',
    b'{"type": "user", "message": {"content": "raw \xed\xa0\x80 surrogate"}}',
    b'{"type": "assistant", "message": "not an object"}',
    b'{"type": "user", "message": {"content": [1, null, {"type": "text"}]}}',
    b'{"type": "assistant", "message": {"content": [{"type": "tool_use"}]}}',
    b'{"type": "assistant", "message": {"content": [{"type": "tool_use", "id": 5, "input": 1}]}}',
    b'{"type": "user", "message": {"content": [{"type": "tool_result"}]}}',
    b'{"type": "user", "message": {"content": [{"type": "tool_result", "content": [{}]}]}}',
    b'{"type": "system", "subtype": 7}',
    b'{"type": "system", "subtype": "turn_duration", "durationMs": "x"}',
    b'{"type": "cost-state", "totalCostUSD": "free"}',
    b'{"type": "api-request", "params": []}',
    b'{"type": "user", "timestamp": "yesterday", "cwd": 3, "message": {"content": "hi"}}',
]


def unknown_entry(known: frozenset[str]) -> st.SearchStrategy[bytes]:
    types = st.text(min_size=1, max_size=20).filter(lambda t: t not in known)
    payload = st.dictionaries(st.text(max_size=10), st.integers() | st.text(max_size=20))
    return st.builds(lambda t, p: json.dumps({**p, "type": t}).encode(), types, payload)


@pytest.mark.parametrize(("case", "fixture"), CASES, ids=IDS)
@FUZZ
@given(data=st.data())
def test_corruption_between_valid_lines_loses_nothing(
    tmp_path: Path, case: ReaderCase, fixture: Path, data: st.DataObject
) -> None:
    lines = fixture.read_bytes().splitlines()
    mixed: list[bytes] = []
    for line in lines:
        for _ in range(data.draw(st.integers(0, 2))):
            mixed.append(
                data.draw(
                    st.one_of(junk, unknown_entry(case.known_types), _truncated(line)),
                    label="inserted",
                )
            )
        mixed.append(line)
    path = tmp_path / "mixed.jsonl"
    path.write_bytes(b"\n".join(mixed) + b"\n")
    got = read(case, path)
    assert valid_keys(case, got) == valid_keys(case, read(case, fixture))
    assert [m.seq for m in got] == list(range(len(got)))


@pytest.mark.parametrize(("case", "fixture"), CASES, ids=IDS)
@FUZZ
@given(data=st.data())
def test_any_split_with_corruption_equals_one_shot(
    tmp_path: Path, case: ReaderCase, fixture: Path, data: st.DataObject
) -> None:
    lines = fixture.read_bytes().splitlines()
    extra = data.draw(st.lists(junk, max_size=4), label="junk")
    where = data.draw(st.lists(st.integers(0, len(lines)), min_size=len(extra)))
    mixed = list(lines)
    for position, bad in sorted(zip(where, extra, strict=False), reverse=True):
        mixed.insert(position, bad)
    whole = b"\n".join(mixed) + b"\n"
    cuts = data.draw(st.lists(st.integers(0, len(whole)), max_size=30), label="cuts")
    one_shot_path = tmp_path / "whole.jsonl"
    one_shot_path.write_bytes(whole)
    expected = read(case, one_shot_path)

    path = tmp_path / "split.jsonl"
    path.write_bytes(b"")
    reader = get_provider(case.provider).open_reader(TranscriptRef("t", path))
    reported: dict[int, Message] = {}
    start = 0
    with path.open("ab") as f:
        for point in [*sorted(set(cuts)), len(whole)]:
            f.write(whole[start:point])
            f.flush()
            start = max(start, point)
            for message in reader.read().changed:
                reported[message.seq] = message
    assert reader.messages == expected
    # Every message was reported, each in its final form last.
    assert [reported[m.seq] for m in expected] == expected


@pytest.mark.parametrize("case", READERS, ids=[c.provider for c in READERS])
def test_huge_line_and_invalid_utf8(tmp_path: Path, case: ReaderCase) -> None:
    fixture = case.fixtures[0]
    lines = fixture.read_bytes().splitlines()
    huge_unknown = json.dumps({"type": "zz-huge", "blob": "x" * (5 << 20)}).encode()
    huge_garbage = b"{" + b"y" * (5 << 20)
    mixed = [lines[0], huge_unknown, b"\xff" * 1000, *lines[1:-1], huge_garbage, lines[-1]]
    path = tmp_path / "huge.jsonl"
    path.write_bytes(b"\n".join(mixed) + b"\n")
    got = read(case, path)
    assert valid_keys(case, got) == valid_keys(case, read(case, fixture))
    warnings = [m for m in got if not case.valid(m)]
    assert len(warnings) == 2
    assert all(len(m.text) < 1000 for m in warnings)  # a bad line is not echoed whole


@pytest.mark.parametrize("case", READERS, ids=[c.provider for c in READERS])
def test_huge_valid_message_is_kept_whole(tmp_path: Path, case: ReaderCase) -> None:
    fixture = next(p for p in case.fixtures if p.name == "hello.jsonl")
    entries = [json.loads(line) for line in fixture.read_text().splitlines()]
    big = "z" * (5 << 20)
    assert sum(case.enlarge(entry, big) for entry in entries) > 0
    path = tmp_path / "big.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in entries))
    assert any(m.text == big for m in read(case, path))


def is_subsequence(short: list[tuple[object, ...]], long: list[tuple[object, ...]]) -> bool:
    it = iter(long)
    return all(any(x == y for y in it) for x in short)


@pytest.mark.parametrize(("case", "fixture"), CASES, ids=IDS)
def test_odd_entries_never_raise_and_reach_the_browser(
    tmp_path: Path, case: ReaderCase, fixture: Path
) -> None:
    lines = fixture.read_bytes().splitlines()
    path = tmp_path / "odd.jsonl"
    path.write_bytes(b"\n".join([lines[0], *ODD, *lines[1:], *ODD]) + b"\n")
    got = read(case, path)
    assert is_subsequence(valid_keys(case, read(case, fixture)), valid_keys(case, got))
    # What the kernel does with a widget message: JSON, then UTF-8 (a lone surrogate from
    # the transcript must not make the view's delta unsendable).
    json.dumps(_dump(got), ensure_ascii=False).encode("utf-8")
