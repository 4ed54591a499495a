"""Unit: Claude Code transcripts (fixtures recorded from the pinned CLI) into the schema."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lab_widget import read_transcript
from lab_widget.compat import PINS
from lab_widget.provider import TranscriptRef
from lab_widget.provider.claude_code import ClaudeTranscriptReader, project_slug

from .conftest import FIXTURES

CLAUDE = FIXTURES / "claude-code"
ALL = sorted(p.name for p in CLAUDE.glob("*.jsonl"))


def chat(name: str):  # type: ignore[no-untyped-def]
    return read_transcript(CLAUDE / name, provider="claude-code")


def texts(name: str) -> list[tuple[str, str]]:
    return [(m.role, m.text) for m in chat(name).messages if m.kind == "text"]


def test_fixtures_come_from_the_pinned_version() -> None:
    manifest = json.loads((CLAUDE / "manifest.json").read_text())
    assert manifest["version"] == PINS["claude-code"].version
    for name in ALL:
        versions = {
            json.loads(line).get("version") for line in (CLAUDE / name).read_text().splitlines()
        }
        assert PINS["claude-code"].version in versions, name


def test_hello() -> None:
    c = chat("hello.jsonl")
    assert texts("hello.jsonl") == [
        ("user", "hello"),
        ("assistant", "Hello from the scripted model."),
    ]
    assert c.state == "idle"
    assistant = c.messages[-1]
    assert assistant.model == "claude-opus-5-5"
    assert assistant.usage is not None and assistant.usage.output_tokens > 0
    assert c.session.usage == assistant.usage
    assert c.session.cwd == "/fixture/work"
    assert c.session.cli_version == "2.1.332"
    assert [m.seq for m in c.messages] == list(range(len(c.messages)))


def test_tool_calls_are_paired_with_results() -> None:
    c = chat("tools.jsonl")
    tools = [m.tool for m in c.messages if m.tool is not None]
    assert [(t.name, t.status) for t in tools] == [("Bash", "ok"), ("Bash", "error")]
    assert tools[0].input["command"] == "echo tool-output-42"
    assert "tool-output-42" in (tools[0].output or "")
    assert "No such file" in (tools[1].output or "")
    assert c.messages[-1].text == "That command failed."
    assert c.state == "idle"


def test_usage_is_counted_once_per_api_message() -> None:
    c = chat("tools.jsonl")
    per_message = [m.usage for m in c.messages if m.usage is not None]
    total = sum(u.output_tokens for u in per_message)
    assert c.session.usage.output_tokens == total
    # "Let me check." and its tool call are one API message written as two entries.
    text, call = c.messages[1], c.messages[2]
    assert (text.text, call.kind) == ("Let me check.", "tool")
    assert text.usage is not None and call.usage is None


def test_clear_epoch_starts_with_visible_echo_and_stays_idle() -> None:
    c = chat("clear_after.jsonl")
    first = c.messages[0]
    assert (first.kind, first.role, first.command, first.text) == (
        "text",
        "user",
        "/clear",
        "/clear",
    )
    assert texts("clear_after.jsonl")[-1] == ("assistant", "Noted.")
    assert c.state == "idle"


def test_command_echo_never_drives_state_to_working(tmp_path: Path) -> None:
    # Regression: an echo after a finished turn left the composer stuck in "working".
    lines = (CLAUDE / "clear_after.jsonl").read_text().splitlines()
    upto_echo = []
    for line in lines:
        upto_echo.append(line)
        entry = json.loads(line)
        if entry.get("type") == "system" and entry.get("subtype") == "local_command":
            break
    path = tmp_path / "echo-only.jsonl"
    path.write_text("\n".join(upto_echo) + "\n")
    c = read_transcript(path, provider="claude-code")
    assert any(m.command == "/clear" for m in c.messages)
    assert c.state == "idle"
    # And after a finished turn, a later echo keeps it idle.
    hello = (CLAUDE / "hello.jsonl").read_text()
    echo = next(line for line in lines if "<command-name>/clear" in line)
    path.write_text(hello + echo + "\n")
    c = read_transcript(path, provider="claude-code")
    assert c.messages[-1].command == "/clear"
    assert c.state == "idle"


def test_multiline_paste_is_unwrapped_exactly() -> None:
    assert texts("paste.jsonl")[0] == (
        "user",
        "first line $HOME `id`\n    second line C-c Enter\nthird ünïcødé ✓",
    )


def test_interrupt_is_a_lifecycle_message_and_idle() -> None:
    c = chat("interrupt.jsonl")
    assert any(m.kind == "lifecycle" and m.text == "Interrupted" for m in c.messages)
    assert c.state == "idle"


def test_working_while_the_answer_is_pending(tmp_path: Path) -> None:
    lines = (CLAUDE / "hello.jsonl").read_text().splitlines()
    cut = next(i for i, line in enumerate(lines) if json.loads(line).get("type") == "assistant")
    path = tmp_path / "t.jsonl"
    path.write_text("\n".join(lines[:cut]) + "\n")
    assert read_transcript(path, provider="claude-code").state == "working"


def test_corrupt_line_becomes_one_warning_and_nothing_is_lost(tmp_path: Path) -> None:
    lines = (CLAUDE / "tools.jsonl").read_text().splitlines()
    path = tmp_path / "t.jsonl"
    path.write_text("\n".join([lines[0], '{"type": "user", broken', *lines[1:]]) + "\n")
    c = read_transcript(path, provider="claude-code")
    warnings = [m for m in c.messages if m.kind == "lifecycle" and m.level == "warning"]
    assert len(warnings) == 1 and "line 2" in warnings[0].text
    clean = chat("tools.jsonl")
    assert [m.text for m in c.messages if m.kind != "lifecycle"] == [
        m.text for m in clean.messages if m.kind != "lifecycle"
    ]


def test_unknown_entry_types_are_ignored(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    extra = [json.dumps({"type": "brand-new-kind", "payload": [1, 2]}), json.dumps([1, 2]), "42"]
    path.write_text("\n".join(extra) + "\n" + (CLAUDE / "hello.jsonl").read_text())
    assert texts("hello.jsonl") == [
        (m.role, m.text) for m in read_transcript(path, "claude-code").messages if m.kind == "text"
    ]


def test_partial_last_line_waits_for_its_newline(tmp_path: Path) -> None:
    data = (CLAUDE / "hello.jsonl").read_bytes()
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"")
    reader = ClaudeTranscriptReader(TranscriptRef("t", path))
    last_start = data.rstrip(b"\n").rfind(b"\n") + 1
    path.write_bytes(data[: last_start + 10])
    before = len(reader.read().changed) + 0
    n_before = len(reader.messages)
    with path.open("ab") as f:
        f.write(data[last_start + 10 :])
    reader.read()
    assert before >= 0 and len(reader.messages) >= n_before
    assert reader.messages == chat("hello.jsonl").messages


def test_rewritten_file_resets_the_reader(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes((CLAUDE / "tools.jsonl").read_bytes())
    reader = ClaudeTranscriptReader(TranscriptRef("t", path))
    reader.read()
    path.write_bytes((CLAUDE / "hello.jsonl").read_bytes())
    result = reader.read()
    assert result.reset
    assert reader.messages == chat("hello.jsonl").messages


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    name=st.sampled_from(ALL), cuts=st.lists(st.integers(min_value=0, max_value=10**6), max_size=25)
)
def test_any_split_equals_one_shot(tmp_path: Path, name: str, cuts: list[int]) -> None:
    data = (CLAUDE / name).read_bytes()
    points = sorted({c % (len(data) + 1) for c in cuts} | {len(data)})
    path = tmp_path / f"split-{name}"
    path.write_bytes(b"")
    reader = ClaudeTranscriptReader(TranscriptRef("t", path))
    seen: dict[int, object] = {}
    start = 0
    with path.open("ab") as f:
        for point in points:
            f.write(data[start:point])
            f.flush()
            start = point
            for message in reader.read().changed:
                seen[message.seq] = message
    expected = chat(name)
    assert reader.messages == expected.messages
    assert reader.state == expected.state
    # Every message was reported, and reported in its final form last.
    assert [seen[m.seq] for m in expected.messages] == expected.messages


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(garbage=st.lists(st.binary(max_size=300), max_size=6), name=st.sampled_from(ALL))
def test_garbage_lines_never_raise_and_keep_valid_entries(
    tmp_path: Path, garbage: list[bytes], name: str
) -> None:
    lines = (CLAUDE / name).read_bytes().splitlines()
    mixed: list[bytes] = []
    for i, line in enumerate(lines):
        mixed.append(line)
        if i < len(garbage):
            mixed.append(garbage[i].replace(b"\n", b" "))
    path = tmp_path / f"garbage-{name}"
    path.write_bytes(b"\n".join(mixed) + b"\n")
    got = [m for m in read_transcript(path, "claude-code").messages if m.kind != "lifecycle"]
    want = [m for m in chat(name).messages if m.kind != "lifecycle"]
    assert [(m.role, m.text, m.tool) for m in got] == [(m.role, m.text, m.tool) for m in want]


@pytest.mark.parametrize(
    ("cwd", "slug"),
    [("/tmp/work", "-tmp-work"), ("/a b/ü.x", "-a-b---x"), ("/x_y-z", "-x-y-z")],
)
def test_project_slug(cwd: str, slug: str) -> None:
    assert project_slug(cwd) == slug


def test_long_project_slug_gets_a_hash_suffix() -> None:
    slug = project_slug("/" + "a" * 250)
    assert slug.startswith("-" + "a" * 199 + "-") and len(slug) > 201
