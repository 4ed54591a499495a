"""Unit: Mistral Vibe session stores (journals recorded from 3.0.2 and 3.0.1) read into
messages, with their usage as billed."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from lab_widget.compat import PINS
from lab_widget.provider import TranscriptRef
from lab_widget.provider.mistral_vibe._transcript import VibeTranscriptReader
from lab_widget.provider.mistral_vibe._usage_scan import usage_summary
from tests.support.paths import ROOT

FIXTURES = ROOT / "tests" / "fixtures" / "mistral-vibe"
VERSIONS = [FIXTURES, FIXTURES / "v3.0.1"]
SEGMENT = "journal/0000000000000001.jsonl"


def store(tmp_path: Path, folder: Path, name: str) -> Path:
    """The recorded journal laid out as a session's store."""
    session = tmp_path / name
    (session / "journal").mkdir(parents=True)
    shutil.copy(folder / f"{name}.jsonl", session / SEGMENT)
    shutil.copy(folder / f"{name}.meta.json", session / "meta.json")
    return session


def read(session: Path, echo: str | None = None) -> VibeTranscriptReader:
    reader = VibeTranscriptReader(TranscriptRef(session.name, session), clear_echo=echo)
    reader.read()
    return reader


def test_the_fixtures_name_their_versions() -> None:
    assert json.loads((FIXTURES / "manifest.json").read_text())["version"] == "3.0.2"
    older = json.loads((FIXTURES / "v3.0.1" / "manifest.json").read_text())["version"]
    assert older == "3.0.1" != PINS["mistral-vibe"].version


@pytest.mark.parametrize("folder", VERSIONS, ids=lambda f: f.name)
def test_a_greeting_with_its_usage_as_billed(tmp_path: Path, folder: Path) -> None:
    reader = read(store(tmp_path, folder, "hello"))
    assert [(m.role, m.text) for m in reader.messages] == [
        ("user", "hello"),
        ("assistant", "Hello from the scripted model."),
    ]
    answer = reader.messages[-1]
    assert answer.usage is not None and answer.usage.output_tokens > 0
    assert answer.model == "scripted-model"
    summary = reader.summary
    assert summary.usage == answer.usage  # one completion: the session's total is its own
    assert summary.cwd == "/fixture/work" and reader.state == "idle"


@pytest.mark.parametrize("folder", VERSIONS, ids=lambda f: f.name)
def test_a_tool_call_paired_with_its_result(tmp_path: Path, folder: Path) -> None:
    reader = read(store(tmp_path, folder, "tools"))
    assert [m.text for m in reader.messages if m.kind == "text"] == [
        "please use a tool",
        "Let me check.",
        "The tool said 42.",
    ]
    [tool] = [m.tool for m in reader.messages if m.tool is not None]
    assert (tool.name, tool.input, tool.status) == (
        "file_system.bash",
        {"command": "echo tool-output-42"},
        "ok",
    )
    assert "tool-output-42" in (tool.output or "")
    # Two completions, each once: the one asking for the tool and the answer.
    billed = [m.usage for m in reader.messages if m.usage is not None]
    assert len(billed) == 2
    assert reader.summary.usage.total == sum(u.total for u in billed)


@pytest.mark.parametrize("folder", VERSIONS, ids=lambda f: f.name)
def test_approvals_answered_and_denied(tmp_path: Path, folder: Path) -> None:
    reader = read(store(tmp_path, folder, "approve_reject"))
    calls = [m for m in reader.messages if m.tool is not None]
    assert [(m.tool.status, m.dialog.status, m.dialog.body) for m in calls] == [  # type: ignore[union-attr]
        ("ok", "answered", "touch one.txt"),
        ("error", "rejected", "touch two.txt"),
    ]
    assert "denied" in (calls[1].tool.output or "")  # type: ignore[union-attr]
    assert calls[0].dialog is not None and calls[0].dialog.tool_id == calls[0].native_id
    assert [m.kind for m in calls] == ["dialog", "dialog"]  # shown as the dialogs they were
    # A call-only completion's usage is on its call: every completion billed once.
    billed = [m.usage for m in reader.messages if m.usage is not None]
    assert len(billed) == 4
    assert reader.summary.usage.total == sum(u.total for u in billed)
    assert (reader.state, reader.pending_dialog) == ("idle", None)


def test_an_approval_waiting_is_a_question_with_its_dialog(tmp_path: Path) -> None:
    session = store(tmp_path, FIXTURES, "approve_reject")
    lines = (session / SEGMENT).read_bytes().splitlines(keepends=True)
    asked = next(i for i, line in enumerate(lines) if b'"callback_registered"' in line)
    (session / SEGMENT).write_bytes(b"".join(lines[: asked + 1]))
    reader = read(session)
    assert reader.state == "question"
    dialog = reader.pending_dialog
    assert dialog is not None and dialog.kind == "approval" and dialog.body == "touch one.txt"
    assert dialog.questions[0].text == "Permission for the file_system.bash tool"
    assert [o.label for o in dialog.questions[0].options] == ["Approve", "Approve always", "Reject"]


def test_a_cleared_session_opens_with_the_echo(tmp_path: Path) -> None:
    reader = read(store(tmp_path, FIXTURES, "clear_1"), echo="/clear")
    assert [(m.role, m.text, m.command) for m in reader.messages] == [
        ("user", "/clear", "/clear"),
        ("user", "and again", None),
        ("assistant", "Second answer.", None),
    ]


def test_a_snapshot_and_the_journal_after_it_read_as_the_whole_journal(tmp_path: Path) -> None:
    # What the CLI does after a turn: the entries so far go into a snapshot's chunks and
    # the journal before it is deleted; the reader reads the snapshot, then the journal.
    whole = read(store(tmp_path, FIXTURES, "tools"))
    session = store(tmp_path / "compacted", FIXTURES, "tools")
    records = [json.loads(line) for line in (session / SEGMENT).read_text().splitlines()]
    cut = next(r["sequence"] for r in records if r["type"] == "receipt_succeeded")
    entries: dict[str, dict[str, object]] = {}
    envelope: dict[str, object] = {}
    for record in records:
        if record["type"] == "projection_delta" and record["sequence"] <= cut:
            for change in record["payload"]["delta"]:
                if change["op"] == "set_envelope":
                    envelope = change["state"]
                else:
                    entries[change["entry"]["id"]] = change["entry"]
    (session / "chunks").mkdir()
    (session / "chunks" / "c1.json").write_text(json.dumps(list(entries.values())))
    generation = session / "generations" / "0001"
    generation.mkdir(parents=True)
    manifest = {"snapshot_sequence": cut, "projection_state": {"chunks": ["c1"]}}
    (generation / "manifest.json").write_text(json.dumps(manifest))
    (generation / "projection-state.json").write_text(json.dumps({"snapshot": envelope}))
    (session / "CURRENT").write_text(json.dumps({"generation": "0001"}))
    (session / SEGMENT).unlink()
    reader = read(session)
    assert [(m.kind, m.text) for m in reader.messages] == [(m.kind, m.text) for m in whole.messages]
    assert reader.summary.usage == whole.summary.usage  # the state's billed totals
    assert reader.state == "idle"


def test_an_answered_prompt_outlives_the_journal_that_recorded_it(tmp_path: Path) -> None:
    # A snapshot keeps the calls' entries, not the prompts' records: each call's state
    # says whether the user let it run.
    session = store(tmp_path, FIXTURES, "approve_reject")
    lines = (session / SEGMENT).read_bytes().splitlines(keepends=True)
    kept = [line for line in lines if b'"callback_' not in line]
    (session / SEGMENT).write_bytes(b"".join(kept))
    dialogs = [m.dialog for m in read(session).messages if m.dialog is not None]
    assert [(d.status, d.body) for d in dialogs] == [
        ("answered", "touch one.txt"),
        ("rejected", "touch two.txt"),
    ]


def test_an_unreadable_line_is_one_warning_and_loses_nothing_else(tmp_path: Path) -> None:
    session = store(tmp_path, FIXTURES, "hello")
    lines = (session / SEGMENT).read_bytes().splitlines(keepends=True)
    (session / SEGMENT).write_bytes(b"".join([lines[0], b"{not json\n", *lines[1:]]))
    reader = read(session)
    notes = [m for m in reader.messages if m.kind == "lifecycle"]
    assert len(notes) == 1 and notes[0].level == "warning" and "line 2" in notes[0].text
    assert [m.text for m in reader.messages if m.kind == "text"] == [
        "hello",
        "Hello from the scripted model.",
    ]


@pytest.mark.parametrize("folder", VERSIONS, ids=lambda f: f.name)
@pytest.mark.parametrize("name", ["hello", "tools", "approve_reject", "clear_0", "clear_1"])
def test_the_usage_scan_equals_the_readers_summary(tmp_path: Path, folder: Path, name: str) -> None:
    session = store(tmp_path, folder, name)
    assert usage_summary(TranscriptRef(name, session)) == read(session).summary


def test_a_bash_call_reads_as_a_shell_call(tmp_path: Path) -> None:
    reader = read(store(tmp_path, FIXTURES, "tools"))
    tools = [m.tool for m in reader.messages if m.tool is not None]
    assert [(t.name, t.shell) for t in tools] == [("file_system.bash", "echo tool-output-42")]
