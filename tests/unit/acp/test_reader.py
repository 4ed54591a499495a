"""The ACP event log folded into the universal schema."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from lab_widget._acp._agent import AcpAgent
from lab_widget._acp._reader import AcpTranscriptReader
from lab_widget.provider import RunContext, TranscriptRef
from lab_widget.schema import State


def _write(path: Path, *events: dict[str, Any]) -> None:
    with path.open("a") as handle:
        for event in events:
            handle.write(json.dumps({"t": 1.0, **event}) + "\n")


def _state(reader: AcpTranscriptReader) -> State:
    return reader.state  # read afresh (a narrowed property would not be)


def _update(**update: Any) -> dict[str, Any]:
    return {"ev": "update", "update": update}


def _text(kind: str, text: str) -> dict[str, Any]:
    return _update(sessionUpdate=kind, content={"type": "text", "text": text})


def test_a_turn_reads_into_messages_a_state_and_usage(tmp_path: Path) -> None:
    log = tmp_path / "acp.jsonl"
    reader = AcpTranscriptReader(TranscriptRef("t", log))
    _write(
        log,
        {"ev": "session", "session": {"sessionId": "s1"}},
        {"ev": "prompt", "id": "p1", "text": "hi"},
    )
    reader.read()
    assert reader.ready and reader.state == "working"
    _write(
        log,
        _text("agent_thought_chunk", "Think"),
        _text("agent_thought_chunk", "ing."),
        _text("agent_message_chunk", "Hel"),
        _text("agent_message_chunk", "lo."),
        _update(
            sessionUpdate="tool_call",
            toolCallId="c1",
            title="echo",
            status="pending",
            rawInput={"command": "echo"},
        ),
        _update(
            sessionUpdate="tool_call_update",
            toolCallId="c1",
            status="completed",
            content=[{"type": "diff", "path": "a.py", "oldText": "x", "newText": "y"}],
        ),
        _update(
            sessionUpdate="plan",
            entries=[{"content": "do", "status": "completed", "priority": "high"}],
        ),
        _update(
            sessionUpdate="usage_update", used=10, size=100, cost={"amount": 0.5, "currency": "USD"}
        ),
        _update(sessionUpdate="brand_new_kind"),
        {
            "ev": "turn_end",
            "id": "p1",
            "stopReason": "end_turn",
            "usage": {"inputTokens": 7, "outputTokens": 3},
        },
    )
    changed = reader.read().changed
    assert _state(reader) == "idle"
    shown = [(m.kind, m.text, m.thinking) for m in reader.messages]
    assert shown[:3] == [
        ("text", "hi", False),
        ("text", "Thinking.", True),
        ("text", "Hello.", False),
    ]
    tool = reader.messages[3].tool
    assert tool is not None and (tool.status, tool.input) == ("ok", {"command": "echo"})
    assert tool.output == "--- a.py\n+++ a.py\n-x\n+y"
    assert reader.messages[4].text == "Plan\n- [x] do"
    assert reader.messages[5].text == "Unsupported update from the agent: brand_new_kind"
    assert reader.messages[5].level == "warning"
    assert reader.messages[2].usage is not None and reader.messages[2].usage.output_tokens == 3
    summary = reader.summary
    assert (summary.context_tokens, summary.context_window, str(summary.vendor_cost_usd)) == (
        10,
        100,
        "0.5",
    )
    assert {m.seq for m in changed} == {1, 2, 3, 4, 5}


def test_a_permission_is_a_dialog_until_answered(tmp_path: Path) -> None:
    log = tmp_path / "acp.jsonl"
    reader = AcpTranscriptReader(TranscriptRef("t", log))
    options = [
        {"optionId": "o1", "name": "Allow once", "kind": "allow_once"},
        {"optionId": "o2", "name": "Always", "kind": "allow_always"},
        {"optionId": "o3", "name": "No", "kind": "reject_once"},
        {"optionId": "o4", "name": "Never", "kind": "reject_always"},
    ]
    _write(
        log,
        {
            "ev": "permission",
            "request_id": "p1",
            "tool_call": {"toolCallId": "c1", "title": "rm"},
            "options": options,
        },
    )
    reader.read()
    dialog = reader.pending_dialog
    assert dialog is not None and dialog.tool_id == "c1"
    assert [o.label for o in dialog.questions[0].options] == [
        "Approve",
        "Approve always",
        "Reject",
        "Reject always",
    ]
    assert reader.request_of("c1") == "p1" and reader.option_of("p1", "Approve always") == "o2"
    _write(log, {"ev": "permission_answer", "request_id": "p1", "option_id": "o2"})
    reader.read()
    assert reader.pending_dialog is None
    answered = reader.messages[0].dialog
    assert answered is not None and (answered.status, answered.outcome) == (
        "answered",
        "approved always",
    )


def test_the_agents_exit_is_said_with_its_stderr(tmp_path: Path) -> None:
    log = tmp_path / "acp.jsonl"
    _write(log, {"ev": "exit", "code": 3, "stderr_tail": ["boom"]})
    reader = AcpTranscriptReader(TranscriptRef("t", log))
    reader.read()
    [message] = reader.messages
    assert (message.text, message.level, message.detail) == (
        "The agent exited with code 3.",
        "error",
        "boom",
    )


def test_the_slash_catalog_is_the_last_one_announced(tmp_path: Path) -> None:
    log = tmp_path / "acp.jsonl"
    commands = [{"name": "init", "description": "set up", "input": {"hint": "[dir]"}}]
    _write(log, _update(sessionUpdate="available_commands_update", availableCommands=commands))
    agent = AcpAgent("catalog-acp", ["catalog-acp"])
    context = RunContext(run_id="r", cwd=tmp_path, runtime_dir=tmp_path)
    [spec] = agent.run_commands(context)
    assert (spec.name, spec.description, spec.arg_hint) == ("/init", "set up", "[dir]")


def test_the_prompt_echoed_in_its_turn_shows_once_and_a_replayed_one_shows(
    tmp_path: Path,
) -> None:
    log = tmp_path / "acp.jsonl"
    reader = AcpTranscriptReader(TranscriptRef("t", log))
    _write(
        log,
        {"ev": "session", "session": {"sessionId": "s1"}},
        # A history the agent replays (session/load): the user's words are its own.
        _text("user_message_chunk", "earlier"),
        _text("agent_message_chunk", "Before."),
        {"ev": "prompt", "id": "p1", "text": "hi"},
        _text("user_message_chunk", "hi"),  # the agent's echo of the prompt in flight
        _text("agent_message_chunk", "Hello."),
        {"ev": "turn_end", "id": "p1", "stopReason": "end_turn"},
    )
    reader.read()
    texts = [(m.role, m.text) for m in reader.messages if m.kind == "text"]
    assert texts == [
        ("user", "earlier"),
        ("assistant", "Before."),
        ("user", "hi"),
        ("assistant", "Hello."),
    ]


def test_a_tool_calls_output_is_the_text_it_produced_from_content_or_raw_output(
    tmp_path: Path,
) -> None:
    # Without content in the update the tool's words come from rawOutput, whatever its
    # shape; a content block of one fenced code block is shown as the block's text.
    log = tmp_path / "acp.jsonl"
    reader = AcpTranscriptReader(TranscriptRef("t", log))
    shell = {"command": ["/bin/bash", "-lc", "echo 42"], "call_id": "c1"}
    _write(
        log,
        {"ev": "session", "session": {"sessionId": "s1"}},
        {"ev": "prompt", "id": "p1", "text": "echo it"},
        _update(sessionUpdate="tool_call", toolCallId="c1", title="echo 42", status="pending"),
        _update(
            sessionUpdate="tool_call_update",
            toolCallId="c1",
            status="completed",
            rawOutput={**shell, "stdout": "42\n", "exit_code": 0, "formatted_output": "42\n"},
        ),
        _update(sessionUpdate="tool_call", toolCallId="c2", title="ls", status="pending"),
        _update(
            sessionUpdate="tool_call_update",
            toolCallId="c2",
            status="failed",
            rawOutput={"exit_code": 2},
        ),
        _update(sessionUpdate="tool_call", toolCallId="c3", title="read", status="pending"),
        _update(
            sessionUpdate="tool_call_update", toolCallId="c3", status="completed", rawOutput="ok"
        ),
    )
    fenced = {"type": "content", "content": {"type": "text", "text": "```sh\n43\n```\n"}}
    _write(
        log,
        _update(sessionUpdate="tool_call", toolCallId="c4", title="echo 43", status="pending"),
        _update(
            sessionUpdate="tool_call_update",
            toolCallId="c4",
            status="completed",
            content=[fenced],
            rawOutput={"stdout": "43\n", "exit_code": 0},
        ),
    )
    reader.read()
    tools = [m.tool for m in reader.messages if m.tool is not None]
    assert [(t.status, t.output) for t in tools] == [
        ("ok", "42\n"),
        ("error", '{\n  "exit_code": 2\n}'),
        ("ok", "ok"),
        ("ok", "43\n"),  # the content, without the Markdown fences around it
    ]


def test_an_execute_call_reads_as_a_shell_call_through_its_updates(tmp_path: Path) -> None:
    # Updates omit the kind: the call stays a shell call, and its command may come late.
    reader = _turn(
        tmp_path,
        _update(sessionUpdate="tool_call", toolCallId="c1", title="bash", kind="execute"),
        _update(
            sessionUpdate="tool_call_update",
            toolCallId="c1",
            rawInput={"command": ["bash", "-lc", "ls -la"], "description": "List"},
        ),
        _update(sessionUpdate="tool_call_update", toolCallId="c1", status="completed"),
        _update(sessionUpdate="tool_call", toolCallId="c2", title="Read a.py", kind="read"),
    )
    tools = {m.tool.id: m.tool for m in reader.messages if m.tool is not None}
    assert tools["c1"].shell == "ls -la" and tools["c1"].status == "ok"
    assert tools["c2"].shell is None


def _turn(tmp_path: Path, *events: dict[str, Any]) -> AcpTranscriptReader:
    """A reader over a session that brought ``events``, read once."""
    log = tmp_path / "acp.jsonl"
    reader = AcpTranscriptReader(TranscriptRef("t", log))
    _write(log, {"ev": "session", "session": {"sessionId": "s1"}}, *events)
    reader.read()
    return reader
