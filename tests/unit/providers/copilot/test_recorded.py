"""Unit: the sessions ``scripts/record_copilot_fixtures.py`` recorded from the pinned
Copilot CLI (1.0.102) and an older one (1.0.70, ``v1.0.70/``) read into messages, and
history lists and opens both versions' sessions."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from lab_widget import history
from lab_widget.provider import TranscriptRef, get_provider
from lab_widget.provider.copilot._provider import _aborted, _hook_of
from lab_widget.provider.copilot._transcript import CopilotTranscriptReader
from tests.support.paths import FIXTURES

COPILOT = FIXTURES / "copilot"
OLDER = COPILOT / "v1.0.70"


def read(path: Path) -> CopilotTranscriptReader:
    reader = CopilotTranscriptReader(TranscriptRef(transcript_id=path.stem, path=path))
    reader.read()
    return reader


def test_an_ask_user_form_reads_with_the_answers_it_recorded() -> None:
    reader = read(COPILOT / "questions.jsonl")
    [form] = [m for m in reader.messages if m.dialog and m.dialog.kind == "question"]
    # An approval is a dialog message too, as for every agent.
    assert all(m.kind == "dialog" for m in reader.messages if m.dialog is not None)
    assert form.dialog is not None and form.tool is not None
    assert (form.dialog.kind, form.dialog.status, form.tool.name) == (
        "question",
        "answered",
        "ask_user",
    )
    assert [(q.header, q.multi_select) for q in form.dialog.questions] == [
        ("Database", False),
        ("Project name", False),
        ("Languages", True),
    ]
    assert form.dialog.answers is not None
    assert [(a.selected, a.text) for a in form.dialog.answers] == [
        (["Postgres"], None),
        ([], "lab widget"),
        (["Go"], None),
    ]


def test_approve_always_is_read_from_the_log_and_the_command_is_not_asked_again() -> None:
    reader = read(COPILOT / "questions.jsonl")
    approvals = [m.dialog for m in reader.messages if m.dialog and m.dialog.kind == "approval"]
    assert [(d.status, d.outcome) for d in approvals] == [("answered", "approved always")]
    shells = [m.tool for m in reader.messages if m.tool and m.tool.name == "bash"]
    assert [t.status for t in shells] == ["ok", "ok"]
    assert reader.state == "idle"


@pytest.mark.parametrize("name", ["hello", "tools", "approve"])
def test_both_versions_read_the_same_conversation(name: str) -> None:
    new, old = read(COPILOT / f"{name}.jsonl"), read(OLDER / f"{name}.jsonl")
    assert old.summary.cli_version == "1.0.70" and new.summary.cli_version == "1.0.102"

    def shape(reader: CopilotTranscriptReader) -> list[tuple[str, str, str | None]]:
        return [
            (m.kind, m.text, m.tool.status if m.tool else None)
            for m in reader.messages
            if m.kind != "lifecycle"
        ]

    assert shape(old) == shape(new)
    assert old.state == new.state == "idle"


def test_the_older_version_bills_output_tokens_only() -> None:
    old = read(OLDER / "tools.jsonl")
    # 1.0.70 writes no session.usage_record: each answer carries its outputTokens.
    assert old.summary.usage.input_tokens == 0 < old.summary.usage.output_tokens
    counted = [m.usage for m in old.messages if m.usage is not None]
    assert counted == [] or sum(u.output_tokens for u in counted) <= old.summary.usage.output_tokens


def test_history_lists_and_opens_both_versions_sessions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "copilot-home"
    work = tmp_path / "work"
    work.mkdir()
    for source, name in ((OLDER, "hello"), (OLDER, "tools"), (COPILOT, "hello")):
        workspace = (source / f"{name}.workspace.yaml").read_text()
        session = next(
            line.split(": ", 1)[1] for line in workspace.splitlines() if line.startswith("id: ")
        )
        folder = home / "session-state" / session
        folder.mkdir(parents=True)
        (folder / "workspace.yaml").write_text(
            workspace.replace("/fixture/work", str(work.resolve()))
        )
        shutil.copy(source / f"{name}.jsonl", folder / "events.jsonl")
    monkeypatch.setenv("COPILOT_HOME", str(home))
    monkeypatch.setenv("LAB_WIDGET_HOME", str(tmp_path / "lab"))
    assert len(get_provider("copilot").sessions(work)) == 3
    found = history(work, provider="copilot")
    assert sorted(i.first_prompt or "" for i in found) == ["hello", "hello", "please use a tool"]
    versions = []
    for info in found:
        chat = info.open()
        assert chat.messages and chat.messages[0].text == info.first_prompt
        assert chat.state == "idle"
        versions.append(str(info.summary().cli_version))
    assert sorted(versions) == ["1.0.102", "1.0.70", "1.0.70"]


@pytest.mark.parametrize(
    ("upto", "aborted"),
    [(25, False), (29, False), (47, True), (48, True), (65, False), (77, True), (78, True)],
)
def test_a_prompt_waits_after_an_esc_until_the_tui_takes_input(
    tmp_path: Path, upto: int, aborted: bool
) -> None:
    """The recorded log cut at points of its turns' ends: an abort, or the cancelled
    approval and turn end written just before it, make the next paste wait (the TUI drops
    it sooner); a turn that ended otherwise does not."""
    lines = (COPILOT / "approve_reject_interrupt.jsonl").read_text().splitlines(keepends=True)
    log = tmp_path / "events.jsonl"
    log.write_text("".join(lines[:upto]))
    assert _aborted(log) is aborted


@pytest.mark.parametrize("call_id", ["call_scripted_000001", "call_scripted_000004"])
def test_a_form_is_answered_after_its_calls_pre_tool_use_hook_ends(call_id: str) -> None:
    """Followed through the recorded log, the call's hook ends right after its own
    ``hook.end`` record: no earlier hook (the prompt's, another call's) counts."""
    records = [json.loads(line) for line in (COPILOT / "questions.jsonl").read_text().splitlines()]
    hook: str | None = None
    ended = None
    for index, record in enumerate(records):
        hook = _hook_of(record, call_id, hook)
        if hook == "":
            ended = index
            break
    assert ended is not None
    record = records[ended]
    assert (record["type"], record["data"]["hookType"]) == ("hook.end", "preToolUse")
    start = next(
        r
        for r in records
        if r["type"] == "tool.execution_start" and r["data"]["toolCallId"] == call_id
    )
    assert records.index(start) < ended
    # The call's own hook: no other preToolUse hook ends between its start and this one.
    between = records[records.index(start) : ended]
    assert [r["type"] for r in between if r["data"].get("hookType") == "preToolUse"] == [
        "hook.start"
    ]


@pytest.mark.parametrize("abort_first", [False, True], ids=["result-first", "abort-first"])
def test_a_rejected_plan_reads_rejected_whether_its_result_or_the_abort_comes_first(
    tmp_path: Path, abort_first: bool
) -> None:
    """An Esc on the plan menu writes the user's answer, then the abort and the call's
    result in either order (both seen on 1.0.102): the plan reads rejected with what the
    CLI said, either way, not interrupted. The recording, put in each order."""
    lines = (COPILOT / "plan.jsonl").read_text().splitlines(keepends=True)
    types = [json.loads(line)["type"] for line in lines]
    abort = types.index("abort")
    result = max(i for i, t in enumerate(types) if t == "tool.execution_complete" and i < abort + 3)
    first, second = sorted((abort, result))
    assert second == first + 1, types[first : second + 1]
    if (lines[first] is lines[abort]) != abort_first:
        lines[first], lines[second] = lines[second], lines[first]
    log = tmp_path / "events.jsonl"
    log.write_text("".join(lines))
    reader = read(log)
    plans = [m.dialog for m in reader.messages if m.dialog and m.dialog.kind == "plan"]
    assert [(d.status, d.body) for d in plans] == [
        ("answered", "- touch a"),
        ("rejected", "- touch b"),
    ]
    assert plans[1].outcome and "Plan not approved" in plans[1].outcome
    assert reader.state == "idle"
    texts = [m.text for m in reader.messages if m.kind == "text" and m.role == "user"]
    assert "smaller steps" in texts  # the feedback, sent as the next message
