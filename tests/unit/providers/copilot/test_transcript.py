"""Unit: Copilot CLI 1.0.102 session logs (recorded from the binary) read into messages."""

from __future__ import annotations

import json
from pathlib import Path

from lab_widget.provider import TranscriptRef
from lab_widget.provider.copilot._transcript import CopilotTranscriptReader
from tests.support.paths import ROOT

FIXTURES = ROOT / "tests" / "fixtures" / "copilot"


def read(name: str, path: Path | None = None, echo: str | None = None) -> CopilotTranscriptReader:
    ref = TranscriptRef(transcript_id=name, path=path or FIXTURES / name)
    reader = CopilotTranscriptReader(ref, clear_echo=echo)
    reader.read()
    return reader


def test_prompts_answers_and_tool_calls_paired_with_their_results() -> None:
    reader = read("approve_reject_interrupt.jsonl")
    texts = [(m.role, m.text) for m in reader.messages if m.kind == "text"]
    assert texts[:3] == [
        ("user", "hello early"),
        ("assistant", "Hello from the script."),
        ("user", "please make file"),
    ]
    tools = [m.tool for m in reader.messages if m.tool is not None]
    assert [(t.name, t.input, t.status) for t in tools] == [
        ("bash", {"command": "touch made.txt"}, "ok"),
        ("bash", {"command": "touch made.txt"}, "error"),
        ("bash", {"command": "sleep 30"}, "error"),
    ]
    assert tools[0].output is not None and "exit code 0" in tools[0].output


def test_approvals_from_the_log_answered_and_cancelled() -> None:
    reader = read("approve_reject_interrupt.jsonl")
    dialogs = [m.dialog for m in reader.messages if m.dialog is not None]
    assert [(d.kind, d.body, d.status) for d in dialogs] == [
        ("approval", "touch made.txt", "answered"),
        ("approval", "touch made.txt", "rejected"),
        ("approval", "sleep 30", "rejected"),
    ]
    assert dialogs[0].tool_id == "call_scripted_000002"


def test_interrupts_and_errors_are_lifecycle_notes_and_the_shutdown_leaves_nothing_open() -> None:
    reader = read("approve_reject_interrupt.jsonl")
    notes = [(m.level, m.text[:40]) for m in reader.messages if m.kind == "lifecycle"]
    assert notes == [
        ("warning", "Interrupted"),
        ("error", "Failed to get response from the AI model"),
        ("warning", "Interrupted"),
    ]
    # The log closes with session.shutdown: idle, nothing pending (the process tells the end).
    assert (reader.state, reader.pending_dialog) == ("idle", None)


def test_usage_counts_each_model_call_once_on_its_first_message() -> None:
    reader = read("approve_reject_interrupt.jsonl")
    summary = reader.summary
    assert summary.cli_version == "1.0.102"
    assert summary.model == "scripted-model"
    counted = [m.usage for m in reader.messages if m.usage is not None]
    assert sum(u.output_tokens for u in counted) == summary.usage.output_tokens > 0
    assert sum(u.input_tokens for u in counted) == summary.usage.input_tokens


def test_the_state_follows_the_log_line_by_line(tmp_path: Path) -> None:
    lines = (FIXTURES / "approve_reject_interrupt.jsonl").read_bytes().splitlines(keepends=True)
    path = tmp_path / "events.jsonl"
    path.write_bytes(b"")
    reader = CopilotTranscriptReader(TranscriptRef(transcript_id="s", path=path))
    seen: list[str] = []
    with path.open("ab") as f:
        for line in lines:
            f.write(line)
            f.flush()
            reader.read()
            if not seen or seen[-1] != reader.state:
                seen.append(reader.state)
    assert seen[:6] == ["idle", "working", "idle", "working", "question", "working"]
    assert seen[-1] == "idle"
    whole = read("approve_reject_interrupt.jsonl")
    assert reader.messages == whole.messages


def test_an_epoch_the_clear_opened_starts_with_its_echo() -> None:
    reader = read("after_clear.jsonl", echo="/clear")
    first = reader.messages[0]
    assert (first.role, first.command) == ("user", "/clear")
    assert [m.text for m in reader.messages[1:]] == ["after clear", "Hello from the script."]
    assert reader.state == "idle"


def test_an_unreadable_line_costs_one_warning(tmp_path: Path) -> None:
    data = (FIXTURES / "after_clear.jsonl").read_bytes()
    path = tmp_path / "events.jsonl"
    path.write_bytes(b"not json\n" + data)
    reader = read("broken", path=path)
    assert reader.messages[0].level == "warning"
    assert [m.text for m in reader.messages[1:]] == ["after clear", "Hello from the script."]


def test_reasoning_on_an_answer_comes_first_as_thinking_and_carries_its_usage(
    tmp_path: Path,
) -> None:
    lines = (FIXTURES / "hello.jsonl").read_text().splitlines()
    first = next(i for i, line in enumerate(lines) if '"assistant.message"' in line)
    event = json.loads(lines[first])
    event["data"]["reasoningText"] = "First I greet."
    lines[first] = json.dumps(event)
    path = tmp_path / "reasoning.jsonl"
    path.write_text("\n".join(lines) + "\n")
    plain = [m for m in read("hello.jsonl").messages if m.role == "assistant"]
    said = [m for m in read("reasoning.jsonl", path).messages if m.role == "assistant"]
    thought, answer = said[0], said[1]
    assert (thought.text, thought.thinking) == ("First I greet.", True)
    assert (answer.text, answer.thinking) == ("Hello from the scripted model.", False)
    assert thought.native_id == f"{event['id']}:reasoning" and answer.native_id == event["id"]
    # The model call's usage is counted once, on the first message shown.
    assert plain[0].usage is not None
    assert thought.usage == plain[0].usage and answer.usage is None
