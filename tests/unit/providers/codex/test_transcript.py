"""Unit: Codex rollouts and hook records (fixtures recorded from real CLIs).

The reader tests run once per recorded version: the pin in ``tests/fixtures/codex/`` and
older versions in ``tests/fixtures/codex/v<version>/`` (``scripts/record_codex_fixtures.py
--version``). One test body, every folder that recorded the scenario.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lab_widget import history, read_transcript
from lab_widget.compat import PINS
from lab_widget.provider import Endpoint, RunContext, SpawnRequest, TranscriptRef, get_provider
from lab_widget.provider.codex._rollouts import peek_rollout
from lab_widget.provider.codex._signals import CodexSignals
from lab_widget.provider.codex._transcript import CodexTranscriptReader
from lab_widget.schema import Chat, Message, Usage
from tests.support.paths import FIXTURES

CODEX = FIXTURES / "codex"
FOLDERS = [CODEX, *sorted(p for p in CODEX.glob("v*") if p.is_dir())]


def version(folder: Path) -> str:
    return str(json.loads((folder / "manifest.json").read_text())["version"])


def recorded(name: str) -> list[object]:
    """One parameter per recorded version that has the scenario ``name``."""
    return [
        pytest.param(folder, id=version(folder)) for folder in FOLDERS if (folder / name).exists()
    ]


def rollouts(folder: Path) -> list[Path]:
    return sorted(p for p in folder.glob("*.jsonl") if not p.name.endswith(".hooks.jsonl"))


ALL = [pytest.param(path, id=f"{version(f)}-{path.name}") for f in FOLDERS for path in rollouts(f)]
ALL_PATHS = [path for f in FOLDERS for path in rollouts(f)]


def chat(path: Path) -> Chat:
    return read_transcript(path, provider="codex")


def texts(path: Path) -> list[tuple[str, str]]:
    return [(m.role, m.text) for m in chat(path).messages if m.kind == "text" and not m.thinking]


def lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def final_total(path: Path) -> Usage:
    """The last ``total_token_usage`` the rollout wrote, as the schema counts it."""
    total: dict[str, int] = {}
    for line in lines(path):
        payload = line.get("payload")
        if isinstance(payload, dict) and payload.get("type") == "token_count":
            info = payload.get("info")
            if isinstance(info, dict) and isinstance(info.get("total_token_usage"), dict):
                total = info["total_token_usage"]
    cached = total.get("cached_input_tokens", 0)
    return Usage(
        input_tokens=total.get("input_tokens", 0) - cached,
        output_tokens=total.get("output_tokens", 0),
        cache_read_tokens=cached,
        cache_write_tokens=total.get("cache_write_input_tokens", 0),
        reasoning_tokens=total.get("reasoning_output_tokens", 0),
    )


def marks_turns(path: Path) -> bool:
    return '"task_complete"' in path.read_text()


def command_of(message: Message) -> str:
    assert message.tool is not None
    value = message.tool.input.get("cmd") or message.tool.input.get("command")
    return " ".join(value) if isinstance(value, list) else str(value)


# -- every version ----------------------------------------------------------------------


@pytest.mark.parametrize("folder", [pytest.param(f, id=version(f)) for f in FOLDERS])
def test_fixtures_come_from_their_version(folder: Path) -> None:
    expected = version(folder)
    if folder == CODEX:
        assert expected == PINS["codex"].version
    else:
        assert folder.name == f"v{expected}" and expected != PINS["codex"].version
    for path in [*rollouts(folder), *folder.glob("*/rollout-*.jsonl")]:
        first = lines(path)[0]
        assert first["type"] == "session_meta", path
        assert first["payload"]["cli_version"] == expected, path  # type: ignore[index]


@pytest.mark.parametrize("folder", recorded("hello.jsonl"))
def test_hello(folder: Path) -> None:
    path = folder / "hello.jsonl"
    c = chat(path)
    assert texts(path) == [("user", "hello"), ("assistant", "Hello from the scripted model.")]
    assert c.state == "idle"
    last = c.messages[-1]
    assert last.model == "gpt-5.1-codex" and last.usage is not None
    assert last.usage.output_tokens > 0
    s = c.session
    assert s.cwd == "/fixture/work" and s.cli_version == version(folder)
    assert s.model == s.model_requested == "gpt-5.1-codex"
    assert s.usage.input_tokens > 0 and s.started_at is not None and s.context_tokens
    assert len(s.turn_durations_ms) == (1 if marks_turns(path) else 0)


@pytest.mark.parametrize("folder", recorded("tools.jsonl"))
def test_context_messages_are_not_user_text(folder: Path) -> None:
    users = [m.text for m in chat(folder / "tools.jsonl").messages if m.role == "user"]
    assert users == ["please use a tool", "now a failing tool"]


@pytest.mark.parametrize("folder", recorded("tools.jsonl"))
def test_tool_calls_are_paired_with_results(folder: Path) -> None:
    calls = [m for m in chat(folder / "tools.jsonl").messages if m.tool is not None]
    assert [command_of(m) for m in calls] == ["echo tool-output-42", "cat missing-file.txt"]
    tools = [m.tool for m in calls if m.tool is not None]
    assert [t.status for t in tools] == ["ok", "error"]
    assert "tool-output-42" in (tools[0].output or "")
    assert "No such file" in (tools[1].output or "")
    assert all(t.id.startswith("call_scripted_") and t.progress is None for t in tools)


@pytest.mark.parametrize("folder", recorded("tools.jsonl"))
def test_reasoning_summary_is_thinking_before_the_answer(folder: Path) -> None:
    c = chat(folder / "tools.jsonl")
    thinking = [m for m in c.messages if m.thinking]
    assert [(m.kind, m.role, m.text, m.redacted) for m in thinking] == [
        ("text", "assistant", "The user wants a tool call.", False)
    ]
    after = c.messages[thinking[0].seq + 1]
    assert after.text == "Let me check." and not after.thinking
    assert not any(m.kind == "lifecycle" for m in c.messages)


@pytest.mark.parametrize("folder", recorded("encrypted.jsonl"))
def test_encrypted_reasoning_is_hidden_thinking_never_empty_text(folder: Path) -> None:
    c = chat(folder / "encrypted.jsonl")
    hidden = [m for m in c.messages if m.thinking]
    assert [(m.role, m.text, m.redacted) for m in hidden] == [("assistant", "", True)]
    assert [m.text for m in c.messages if m.kind == "text" and not m.thinking] == [
        "think secretly",
        "Done thinking.",
    ]


@pytest.mark.parametrize("path", ALL)
def test_session_usage_is_what_the_last_token_count_totals(path: Path) -> None:
    # Codex repeats a token_count (a turn's start, around a compaction): counting each
    # response once gives exactly the CLI's own running total.
    assert chat(path).session.usage == final_total(path)


@pytest.mark.parametrize("folder", recorded("tools.jsonl"))
def test_usage_is_on_the_first_message_of_each_response(folder: Path) -> None:
    c = chat(folder / "tools.jsonl")
    carriers = [m for m in c.messages if m.usage is not None]
    assert len(carriers) == 4  # two calls, two answers: one model response each
    assert carriers[0].thinking  # the first response starts with its reasoning
    total = Usage()
    for message in carriers:
        total = total + (message.usage or Usage())
    assert c.session.usage == total
    assert [(u.model, u.scope, u.requests, u.usage) for u in c.session.models] == [
        ("gpt-5.1-codex", "main", 4, total)
    ]


@pytest.mark.parametrize("folder", recorded("compact.jsonl"))
def test_compaction_is_a_lifecycle_message_with_its_summary(folder: Path) -> None:
    c = chat(folder / "compact.jsonl")
    compactions = [m for m in c.messages if m.kind == "lifecycle"]
    assert [(m.text, m.level) for m in compactions] == [("Conversation compacted", "info")]
    assert "Summary: the user said hello and the model answered." in compactions[0].detail
    assert not any("Summary:" in m.text for m in c.messages if m.kind == "text")
    assert c.state == "idle"
    # The summary was a model response of its own: billed, counted once.
    assert sum(u.requests for u in c.session.models) == 2


@pytest.mark.parametrize("folder", recorded("image.jsonl"))
def test_an_image_a_tool_returns_is_an_attachment_of_its_call(folder: Path) -> None:
    c = chat(folder / "image.jsonl")
    call = next(m for m in c.messages if m.tool is not None)
    assert call.tool is not None and call.tool.name == "view_image"
    assert call.tool.status == "ok"
    assert [(a.media_type, a.omitted) for a in call.attachments] == [("image/png", "")]
    assert base64.b64decode(call.attachments[0].data).startswith(b"\x89PNG")
    assert c.messages[-1].text == "A red square."


@pytest.mark.parametrize("folder", recorded("user_image.jsonl"))
def test_an_image_the_user_attached_is_an_attachment_of_the_prompt(folder: Path) -> None:
    c = chat(folder / "user_image.jsonl")
    prompt = next(m for m in c.messages if m.role == "user")
    assert prompt.text == "describe it"
    assert [a.media_type for a in prompt.attachments] == ["image/png"]
    assert texts(folder / "user_image.jsonl")[-1] == ("assistant", "The image is red.")


@pytest.mark.parametrize("folder", recorded("stream.jsonl"))
def test_a_streaming_command_has_its_whole_output_once_it_ends(folder: Path) -> None:
    # No version records output while a command runs (no exec_command_output_delta in
    # the rollout, no hook in between): progress stays empty, the output comes whole.
    path = folder / "stream.jsonl"
    assert "output_delta" not in path.read_text()
    call = next(m.tool for m in chat(path).messages if m.tool is not None)
    assert call.status == "ok" and call.progress is None
    assert "a\nb" in (call.output or "")


@pytest.mark.parametrize("folder", recorded("interrupt.jsonl"))
def test_interrupt_is_a_lifecycle_message_and_idle(folder: Path) -> None:
    c = chat(folder / "interrupt.jsonl")
    assert [(m.kind, m.text) for m in c.messages] == [
        ("text", "be slow"),
        ("lifecycle", "Interrupted"),
    ]
    assert c.state == "idle"


@pytest.mark.parametrize("folder", recorded("new_1.jsonl"))
def test_new_epoch_reader_starts_with_the_clear_echo(folder: Path) -> None:
    ref = TranscriptRef("t", folder / "new_1.jsonl")
    reader = CodexTranscriptReader(ref, clear_echo="/new")
    reader.read()
    first = reader.messages[0]
    assert (first.role, first.command, first.text) == ("user", "/new", "/new")
    assert [m.text for m in reader.messages[1:] if m.kind == "text"] == [
        "and again",
        "Second answer.",
    ]


@pytest.mark.parametrize("folder", recorded("tools.jsonl"))
def test_peek_reads_prompt_and_model(folder: Path) -> None:
    assert peek_rollout(folder / "tools.jsonl") == ("please use a tool", "gpt-5.1-codex")


# -- state: a finished turn is never working; a pause inside one never ends it ----------


def _prefix(path: Path, tmp_path: Path, until: int) -> CodexTranscriptReader:
    kept = path.read_text().splitlines()[:until]
    target = tmp_path / f"prefix-{until}.jsonl"
    target.write_text("".join(line + "\n" for line in kept))
    reader = CodexTranscriptReader(TranscriptRef("t", target))
    reader.read()
    return reader


def _index(path: Path, predicate: object) -> int:
    for number, line in enumerate(lines(path)):
        if predicate(line):  # type: ignore[operator]
            return number
    raise AssertionError(f"no such line in {path}")


def _item(kind: str, **fields: str) -> object:
    def match(line: dict[str, object]) -> bool:
        payload = line.get("payload")
        return (
            line.get("type") == "response_item"
            and isinstance(payload, dict)
            and payload.get("type") == kind
            and all(fields[k] in json.dumps(payload.get(k)) for k in fields)
        )

    return match


@pytest.mark.parametrize("folder", recorded("tools.jsonl"))
def test_working_from_the_prompt_until_the_answer_ends_the_turn(
    folder: Path, tmp_path: Path
) -> None:
    path = folder / "tools.jsonl"
    prompt = _index(path, _item("message", content="please use a tool"))
    assert _prefix(path, tmp_path, prompt + 1).state == "working"
    # The model paused after its first text block, before the call of the same response:
    # nothing has ended, whether the version marks turns or not.
    text = _index(path, _item("message", content="Let me check."))
    assert _prefix(path, tmp_path, text + 1).state == "working"
    call = _index(path, _item("function_call"))
    assert _prefix(path, tmp_path, call + 1).state == "working"
    answer = _index(path, _item("message", content="The tool said tool-output-42."))
    assert _prefix(path, tmp_path, answer + 1).state == "working"  # its response not done
    assert chat(path).state == "idle"


@pytest.mark.parametrize("path", ALL)
def test_a_finished_rollout_is_never_working(path: Path) -> None:
    assert chat(path).state == "idle"


# -- sub-agents -------------------------------------------------------------------------


def _subagent(folder: Path) -> tuple[Path, Path]:
    parent = child = None
    for path in sorted((folder / "subagent").glob("rollout-*.jsonl")):
        source = lines(path)[0]["payload"]["source"]  # type: ignore[index]
        if isinstance(source, dict) and "subagent" in source:
            child = path
        else:
            parent = path
    assert parent is not None and child is not None
    return parent, child


@pytest.mark.parametrize("folder", recorded("subagent"))
def test_a_subagents_messages_nest_under_the_call_that_started_it(folder: Path) -> None:
    parent, child = _subagent(folder)
    c = chat(parent)
    spawn = next(m for m in c.messages if m.tool is not None and m.tool.name == "spawn_agent")
    assert spawn.tool is not None and spawn.tool.status == "ok"
    child_id = lines(child)[0]["payload"]["id"]  # type: ignore[index]
    assert spawn.tool.agent_id == child_id
    nested = [m for m in c.messages if m.parent_tool_id == spawn.tool.id]
    assert [(m.role, m.kind, m.thinking, m.text) for m in nested if m.kind == "text"] == [
        ("user", "text", False, "child task: echo"),
        ("assistant", "text", True, "The child plans."),
        ("assistant", "text", False, "The child is done."),
    ]
    child_call = next(m for m in nested if m.tool is not None)
    assert command_of(child_call) == "echo child-output" and child_call.tool
    assert child_call.tool.status == "ok"
    own = [m.text for m in c.messages if m.parent_tool_id is None and m.kind == "text"]
    # The parent's note that the sub-agent finished is Codex's context, not the user's.
    assert own == ["please delegate", "A sub-agent is on it.", "The sub-agent finished."]
    assert c.state == "idle"


@pytest.mark.parametrize("folder", recorded("subagent"))
def test_a_subagents_tokens_roll_up_into_the_session(folder: Path) -> None:
    parent, child = _subagent(folder)
    s = chat(parent).session
    assert s.usage == final_total(parent) + final_total(child)
    scopes = {(u.model, u.scope): (u.requests, u.usage) for u in s.models}
    assert scopes == {
        ("gpt-5.1-codex", "main"): (3, final_total(parent)),
        ("gpt-5.1-codex", "subagent"): (2, final_total(child)),
    }
    # The sub-agent's own transcript, read alone, is a session of its own tokens.
    assert chat(child).session.usage == final_total(child)


@pytest.mark.parametrize("folder", recorded("subagent"))
def test_a_missing_subagent_transcript_costs_only_its_messages(
    folder: Path, tmp_path: Path
) -> None:
    parent, _ = _subagent(folder)
    alone = tmp_path / parent.name
    shutil.copy(parent, alone)
    c = chat(alone)
    warnings = [m for m in c.messages if m.level == "warning"]
    spawn = next(m for m in c.messages if m.tool is not None and m.tool.name == "spawn_agent")
    assert len(warnings) == 1 and warnings[0].parent_tool_id == spawn.tool.id  # type: ignore[union-attr]
    assert "sub-agent" in warnings[0].text
    own = [m.text for m in c.messages if m.parent_tool_id is None and m.kind == "text"]
    assert own == ["please delegate", "A sub-agent is on it.", "The sub-agent finished."]
    assert c.session.usage == final_total(parent)


@pytest.mark.parametrize("folder", recorded("subagent"))
def test_a_corrupt_or_cut_subagent_transcript_costs_only_its_own_entries(
    folder: Path, tmp_path: Path
) -> None:
    parent, child = _subagent(folder)
    whole = chat(parent)
    copy = tmp_path / "corrupt"
    copy.mkdir()
    shutil.copy(parent, copy / parent.name)
    rows = child.read_text().splitlines()
    (copy / child.name).write_text("\n".join([rows[0], "{not json", *rows[1:]]) + "\n")
    c = chat(copy / parent.name)
    warnings = [m for m in c.messages if m.level == "warning"]
    assert len(warnings) == 1 and warnings[0].parent_tool_id is not None
    keep = [(m.parent_tool_id, m.role, m.text, m.tool) for m in c.messages if m.level != "warning"]
    assert keep == [(m.parent_tool_id, m.role, m.text, m.tool) for m in whole.messages]
    # Cut in the middle of its last line (a sub-agent still writing): what is complete
    # shows, the parent loses nothing.
    cut = tmp_path / "cut"
    cut.mkdir()
    shutil.copy(parent, cut / parent.name)
    data = child.read_bytes()
    (cut / child.name).write_bytes(data[: len(data) - 40])
    c = chat(cut / parent.name)
    assert [m.text for m in c.messages if m.parent_tool_id is None] == [
        m.text for m in whole.messages if m.parent_tool_id is None
    ]
    assert [m.text for m in c.messages if m.parent_tool_id is not None][:3] == [
        m.text for m in whole.messages if m.parent_tool_id is not None
    ][:3]


@pytest.mark.parametrize("folder", recorded("subagent"))
def test_a_subagent_read_as_it_is_written_ends_as_read_at_once(
    folder: Path, tmp_path: Path
) -> None:
    parent, child = _subagent(folder)
    live = tmp_path / "live"
    live.mkdir()
    targets = [live / parent.name, live / child.name]
    sources = [p.read_text().splitlines(keepends=True) for p in (parent, child)]
    for target in targets:
        target.write_text("")
    reader = CodexTranscriptReader(TranscriptRef("t", targets[0]))
    states = []
    for step in range(max(len(s) for s in sources)):
        for target, rows in zip(targets, sources, strict=True):
            if step < len(rows):
                with target.open("a") as f:
                    f.write(rows[step])
        reader.read()
        states.append(reader.state)
    whole = chat(parent)

    def threads(messages: list[Message]) -> dict[str | None, list[tuple[object, ...]]]:
        found: dict[str | None, list[tuple[object, ...]]] = {}
        for m in messages:
            found.setdefault(m.parent_tool_id, []).append((m.role, m.text, m.tool, m.usage))
        return found

    assert threads(reader.messages) == threads(whole.messages)
    assert reader.summary.usage == whole.session.usage
    assert states[-1] == "idle" and "working" in states
    assert [m.seq for m in reader.messages] == list(range(len(reader.messages)))


# -- any input --------------------------------------------------------------------------


def test_corrupt_line_becomes_one_warning_and_nothing_is_lost(tmp_path: Path) -> None:
    rows = (CODEX / "hello.jsonl").read_text().splitlines()
    path = tmp_path / "c.jsonl"
    path.write_text("\n".join([rows[0], "{not json", *rows[1:]]) + "\n")
    c = read_transcript(path, "codex")
    warnings = [m for m in c.messages if m.level == "warning"]
    assert len(warnings) == 1
    assert [(m.role, m.text) for m in c.messages if m.kind == "text"] == texts(
        CODEX / "hello.jsonl"
    )


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    path=st.sampled_from(ALL_PATHS),
    cuts=st.lists(st.integers(min_value=0, max_value=10**6), max_size=25),
)
def test_any_split_equals_one_shot(tmp_path: Path, path: Path, cuts: list[int]) -> None:
    data = path.read_bytes()
    points = sorted({c % (len(data) + 1) for c in cuts} | {len(data)})
    target = tmp_path / f"split-{path.parent.name}-{path.name}"
    target.write_bytes(b"")
    reader = CodexTranscriptReader(TranscriptRef("t", target))
    seen: dict[int, object] = {}
    start = 0
    with target.open("ab") as f:
        for point in points:
            f.write(data[start:point])
            f.flush()
            start = point
            for message in reader.read().changed:
                seen[message.seq] = message
    expected = chat(path)
    assert reader.messages == expected.messages
    assert reader.state == expected.state
    assert reader.summary.usage == expected.session.usage
    assert [seen[m.seq] for m in expected.messages] == expected.messages


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(garbage=st.lists(st.binary(max_size=300), max_size=6), path=st.sampled_from(ALL_PATHS))
def test_garbage_lines_never_raise_and_keep_valid_entries(
    tmp_path: Path, garbage: list[bytes], path: Path
) -> None:
    rows = path.read_bytes().splitlines()
    mixed: list[bytes] = []
    for i, line in enumerate(rows):
        mixed.append(line)
        if i < len(garbage):
            mixed.append(garbage[i].replace(b"\n", b" "))
    target = tmp_path / f"garbage-{path.parent.name}-{path.name}"
    target.write_bytes(b"\n".join(mixed) + b"\n")
    got = [m for m in read_transcript(target, "codex").messages if m.kind != "lifecycle"]
    want = [m for m in chat(path).messages if m.kind != "lifecycle"]
    assert [(m.role, m.text, m.tool) for m in got] == [(m.role, m.text, m.tool) for m in want]


# -- hook records and locating this run's rollout ---------------------------------------


def _context(tmp_path: Path, hooks: str | None) -> RunContext:
    runtime = tmp_path / "runtime"
    spool = runtime / "signals"
    spool.mkdir(parents=True)
    if hooks is not None:
        for index, line in enumerate((CODEX / hooks).read_text().splitlines()):
            (spool / f"{index:04d}.json").write_text(line)
    return RunContext(run_id="r", cwd=Path("/fixture/work"), runtime_dir=runtime)


def _spool_prefix(context: RunContext, keep: int) -> None:
    for path in sorted((context.runtime_dir / "signals").glob("*.json"))[keep:]:
        path.unlink()


def test_permission_request_is_a_pending_approval_until_the_call_closes(tmp_path: Path) -> None:
    context = _context(tmp_path, "approve.hooks.jsonl")
    events = [
        json.loads(line)["hook_event_name"]
        for line in (CODEX / "approve.hooks.jsonl").read_text().splitlines()
    ]
    assert events[:4] == ["SessionStart", "UserPromptSubmit", "PreToolUse", "PermissionRequest"]
    signals = CodexSignals()
    assert signals.pending_dialog(context) is None  # closed by PostToolUse and Stop
    _spool_prefix(context, 4)
    dialog = signals.pending_dialog(context)
    assert dialog is not None and dialog.kind == "approval"
    assert dialog.tool_id == "call_scripted_000001" and dialog.tool_name == "Bash"
    assert "touch /fixture/outside/file.txt" in dialog.body
    assert "Create a file outside the workspace?" in dialog.body


def test_rejected_request_is_closed_by_the_turn_end(tmp_path: Path) -> None:
    context = _context(tmp_path, "reject.hooks.jsonl")
    events = [
        json.loads(line)["hook_event_name"]
        for line in (CODEX / "reject.hooks.jsonl").read_text().splitlines()
    ]
    # A declined call gets no PostToolUse: nothing follows the request in the spool.
    assert events == ["SessionStart", "UserPromptSubmit", "PreToolUse", "PermissionRequest"]
    reader = CodexTranscriptReader(TranscriptRef("t", CODEX / "reject.jsonl"))
    reader.read()
    tool = next(m.tool for m in reader.messages if m.tool is not None)
    # The chat drops a signalled dialog whose call the transcript resolved.
    assert tool.id == CodexSignals().pending_dialog(context).tool_id  # type: ignore[union-attr]
    assert tool.status == "error"


@pytest.mark.parametrize("folder", recorded("approve.jsonl"))
def test_approved_call_ran_and_turn_finished(folder: Path) -> None:
    c = chat(folder / "approve.jsonl")
    tool = next(m.tool for m in c.messages if m.tool is not None)
    assert tool.status == "ok" and tool.input["sandbox_permissions"] == "require_escalated"
    assert c.messages[-1].text == "Escalated command finished." and c.state == "idle"


@pytest.mark.parametrize("folder", recorded("reject.jsonl"))
def test_rejected_call_is_failed_and_marked_rejected(folder: Path) -> None:
    c = chat(folder / "reject.jsonl")
    tool = next(m.tool for m in c.messages if m.tool is not None)
    assert tool.status == "error" and "rejected" in (tool.output or "")
    assert c.messages[-1].text == "Interrupted" and c.state == "idle"


def test_locate_follows_session_start_records_and_new_epochs(tmp_path: Path) -> None:
    provider = get_provider("codex")
    context = _context(tmp_path, "new.hooks.jsonl")
    ref = provider.locate_transcript(context, None)
    assert ref is not None
    starts = [
        json.loads(line)
        for line in (CODEX / "new.hooks.jsonl").read_text().splitlines()
        if '"SessionStart"' in line
    ]
    assert len(starts) == 2 and starts[1]["source"] == "startup"  # not "clear"
    assert ref.transcript_id == starts[1]["session_id"]
    assert ref.path == Path(starts[1]["transcript_path"])
    reader = provider.open_reader(ref)
    assert reader.ref == ref
    _spool_prefix(context, 1)
    first = provider.locate_transcript(context, None)
    assert first is not None and first.transcript_id == starts[0]["session_id"]


def test_a_subagents_hooks_name_the_parent_session(tmp_path: Path) -> None:
    # The sub-agent's tool hooks carry the parent's session id (with the sub-agent's
    # rollout as transcript_path) and no SessionStart: the run stays on its thread.
    records = [json.loads(r) for r in (CODEX / "subagent.hooks.jsonl").read_text().splitlines()]
    assert {r["session_id"] for r in records} == {records[0]["session_id"]}
    assert [r["hook_event_name"] for r in records].count("SessionStart") == 1
    context = _context(tmp_path, "subagent.hooks.jsonl")
    ref = get_provider("codex").locate_transcript(context, None)
    assert ref is not None and ref.transcript_id == records[0]["session_id"]


def _rollout(folder: Path, thread: str, cwd: str, started: float, **meta: object) -> Path:
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(started))
    day = folder / time.strftime("%Y/%m/%d", time.gmtime(started))
    day.mkdir(parents=True, exist_ok=True)
    path = day / f"rollout-x-{thread}.jsonl"
    payload = {"id": thread, "cwd": cwd, "timestamp": stamp, **meta}
    path.write_text(json.dumps({"type": "session_meta", "payload": payload}) + "\n")
    return path


def test_scan_without_hooks_never_takes_an_earlier_run_or_a_subagent(tmp_path: Path) -> None:
    provider = get_provider("codex")
    context = _context(tmp_path, None)
    home = tmp_path / "codex-home"
    spawned = time.time()
    (context.runtime_dir / "codex.json").write_text(
        json.dumps({"codex_home": str(home), "spawned_at": spawned})
    )
    sessions = home / "sessions"
    _rollout(sessions, "earlier", str(context.cwd), spawned - 60)
    _rollout(sessions, "elsewhere", "/another/folder", spawned + 1)
    assert provider.locate_transcript(context, None) is None
    mine = _rollout(sessions, "mine", str(context.cwd), spawned + 2)
    _rollout(sessions, "child", str(context.cwd), spawned + 3, source={"subagent": {}})
    ref = provider.locate_transcript(context, None)
    assert ref is not None and (ref.transcript_id, ref.path) == ("mine", mine)


def test_ready_once_this_run_marks_its_thread(tmp_path: Path) -> None:
    provider = get_provider("codex")
    context = _context(tmp_path, None)
    home = tmp_path / "codex-home"
    markers = home / "tui-thread-reference-capabilities"
    markers.mkdir(parents=True)
    old = markers / "old-thread"
    old.touch()
    spawned = time.time()
    (context.runtime_dir / "codex.json").write_text(
        json.dumps({"codex_home": str(home), "spawned_at": spawned})
    )
    os.utime(old, (spawned - 3600, spawned - 3600))
    assert not provider.is_ready(context)  # another session's marker
    mine = markers / "my-thread"
    mine.touch()
    # Ready at once: the confirmed submit repeats an Enter the TUI took too early.
    assert provider.is_ready(context)


def test_isolated_spawn_writes_config_and_keeps_the_key_secret(tmp_path: Path) -> None:
    provider = get_provider("codex")
    context = _context(tmp_path, None)
    plan = provider.plan_spawn(
        SpawnRequest(
            context=context,
            binary=Path("/bin/codex"),
            endpoint=Endpoint("http://127.0.0.1:9", "sk-secret"),
        )
    )
    config = (context.runtime_dir / "home" / ".codex" / "config.toml").read_text()
    assert 'base_url = "http://127.0.0.1:9/v1"' in config
    assert "daemon_auto_start = false" in config and 'trust_level = "trusted"' in config
    assert "sk-secret" not in config and "sk-secret" not in " ".join(plan.argv)
    assert plan.env["CODEX_HOME"].endswith("home/.codex")
    assert plan.secret_env == {"LAB_WIDGET_CODEX_API_KEY"}
    assert "--dangerously-bypass-hook-trust" in plan.argv


def test_user_spawn_keeps_the_users_codex_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "mine"))
    provider = get_provider("codex")
    context = _context(tmp_path, None)
    plan = provider.plan_spawn(
        SpawnRequest(context=context, binary=Path("/bin/codex"), model="gpt-x")
    )
    assert "CODEX_HOME" not in plan.env and "HOME" not in plan.env
    assert plan.argv[-2:] == ["--model", "gpt-x"]
    watched = provider.watch_paths(context)
    assert watched[1] == tmp_path / "mine" / "tui-thread-reference-capabilities"
    # Today's rollout folder: where a sub-agent started after midnight writes.
    today = tmp_path / "mine" / "sessions" / time.strftime("%Y/%m/%d")
    assert today in watched
    shutil.rmtree(context.runtime_dir)


def test_isolated_run_follows_a_new_thread_before_its_rollout_exists(tmp_path: Path) -> None:
    provider = get_provider("codex")
    context = _context(tmp_path, None)
    home = tmp_path / "codex-home"
    markers = home / "tui-thread-reference-capabilities"
    markers.mkdir(parents=True)
    spawned = time.time() - 10
    (context.runtime_dir / "codex.json").write_text(
        json.dumps({"codex_home": str(home), "spawned_at": spawned, "isolated": True})
    )
    (markers / "first").touch()
    os.utime(markers / "first", (spawned + 1, spawned + 1))
    first = provider.locate_transcript(context, None)
    assert first is not None and first.transcript_id == "first"
    (markers / "second").touch()  # what /new does
    ref = provider.locate_transcript(context, first)
    assert ref is not None and ref.transcript_id == "second"
    assert ref.path.name == "rollout-pending-second.jsonl"
    reader = provider.open_reader(ref)
    assert [m.command for m in reader.read().changed] == ["/new"]
    assert reader.read().changed == []
    rollout = home / "sessions" / "2026" / "11" / "30" / "rollout-2026-11-30T08-05-52-second.jsonl"
    rollout.parent.mkdir(parents=True)
    shutil.copy(CODEX / "new_1.jsonl", rollout)
    found = [m.text for m in reader.read().changed if m.kind == "text"]
    assert found == ["and again", "Second answer."]


def test_startup_blocker_in_the_users_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "users-codex"
    home.mkdir()
    monkeypatch.setenv("CODEX_HOME", str(home))
    for var in ("OPENAI_API_KEY", "CODEX_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "sub").mkdir()
    plain = tmp_path / "plain"
    plain.mkdir()
    provider = get_provider("codex")

    def blocker(folder: Path):  # type: ignore[no-untyped-def]
        context = RunContext(run_id="r", cwd=folder, runtime_dir=tmp_path / "rt")
        return provider.startup_blocker(SpawnRequest(context=context, binary=Path("/x")))

    signed_out = blocker(plain)
    assert signed_out is not None and not signed_out.acceptable
    (home / "auth.json").write_text("{}")
    assert blocker(plain) is None  # no trust question outside a git repository
    trust = blocker(repo / "sub")
    assert trust is not None and trust.acceptable and trust.steps == ("trust",)
    (home / "config.toml").write_text(f'[projects."{repo}"]\ntrust_level = "trusted"\n')
    assert blocker(repo / "sub") is None


def test_unverified_permission_requests_block_instead_of_guessing_keys(tmp_path: Path) -> None:
    context = _context(tmp_path, "approve.hooks.jsonl")
    _spool_prefix(context, 3)
    record = json.loads((CODEX / "approve.hooks.jsonl").read_text().splitlines()[3])
    record["tool_name"] = "apply_patch"
    (context.runtime_dir / "signals" / "0003.json").write_text(json.dumps(record))
    signals = CodexSignals()
    assert signals.pending_dialog(context) is None
    assert "apply_patch" in (signals.blocked(context) or "")


# -- past sessions ----------------------------------------------------------------------


def _home_of_every_version(home: Path) -> dict[str, str]:
    """A ``CODEX_HOME`` holding the ``hello`` and ``tools`` rollouts of every recorded
    version, and one parent with its sub-agent; returns first prompt by thread id."""
    day = home / "sessions" / "2026" / "11" / "30"
    day.mkdir(parents=True)
    prompts = {}
    for folder in FOLDERS:
        for name, prompt in (("hello.jsonl", "hello"), ("tools.jsonl", "please use a tool")):
            if (folder / name).exists():
                thread = lines(folder / name)[0]["payload"]["id"]  # type: ignore[index]
                shutil.copy(folder / name, day / f"rollout-2026-11-30T08-00-00-{thread}.jsonl")
                prompts[str(thread)] = prompt
    parent, child = _subagent(CODEX)
    for path in (parent, child):
        shutil.copy(path, day / path.name)
    prompts[str(lines(parent)[0]["payload"]["id"])] = "please delegate"  # type: ignore[index]
    return prompts


def test_sessions_of_a_folder_of_every_version_and_their_previews(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "users-codex"
    monkeypatch.setenv("CODEX_HOME", str(home))
    monkeypatch.setenv("LAB_WIDGET_HOME", str(tmp_path / "lab"))
    prompts = _home_of_every_version(home)
    provider = get_provider("codex")
    assert provider.sessions(tmp_path / "elsewhere") == []
    refs = provider.sessions(Path("/fixture/work"))
    # A sub-agent's rollout is part of its parent's session, not one of its own.
    assert {r.transcript_id for r in refs} == set(prompts)
    previews = {r.transcript_id: provider.preview(r) for r in refs}
    assert previews == {t: (p, "gpt-5.1-codex") for t, p in prompts.items()}
    found = history("/fixture/work", provider="codex")
    assert {info.transcript_id for info in found} == set(prompts)
    opened = {info.transcript_id: info.open() for info in found}
    assert all(c.state == "idle" and c.messages for c in opened.values())
    versions = {c.session.cli_version for c in opened.values()}
    assert versions == {version(f) for f in FOLDERS if (f / "hello.jsonl").exists()}


def test_history_lists_an_isolated_runs_sessions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lab = tmp_path / "lab"
    monkeypatch.setenv("LAB_WIDGET_HOME", str(lab))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "users-codex"))
    runtime = lab / "runs" / "codex-1"
    home = runtime / "home" / ".codex"
    prompts = _home_of_every_version(home)
    (runtime / "run.json").write_text(
        json.dumps({"run_id": "codex-1", "provider": "codex", "cwd": "/fixture/work"})
    )
    (runtime / "codex.json").write_text(
        json.dumps({"codex_home": str(home), "spawned_at": 0, "isolated": True})
    )
    found = history("/fixture/work", provider="codex")
    assert {info.transcript_id for info in found} == set(prompts)


def test_plan_mode_question_is_pending_while_its_picker_is_open(tmp_path: Path) -> None:
    context = _context(tmp_path, "plan_question.hooks.jsonl")
    records = [json.loads(line) for line in (CODEX / "plan_question.hooks.jsonl").open()]
    opened = next(i for i, r in enumerate(records) if r.get("tool_name") == "request_user_input")
    signals = CodexSignals()
    assert signals.pending_dialog(context) is None  # answered: its PostToolUse closed it
    _spool_prefix(context, opened + 1)
    dialog = signals.pending_dialog(context)
    assert dialog is not None and dialog.kind == "question"
    assert [q.header for q in dialog.questions] == ["Database", "Interface"]
    assert [o.label for o in dialog.questions[0].options] == ["SQLite", "Postgres"]
    assert dialog.tool_id == records[opened]["tool_use_id"]


def test_plan_mode_question_records_its_answers() -> None:
    c = chat(CODEX / "plan_question.jsonl")
    [message] = [m for m in c.messages if m.dialog is not None]
    dialog = message.dialog
    assert message.kind == "dialog" and dialog is not None and dialog.status == "answered"
    assert dialog.answers is not None
    assert [(a.selected, a.text) for a in dialog.answers] == [
        (["Postgres"], None),
        ([], "a notebook widget"),
    ]
    assert dialog.outcome == "Database → Postgres; Interface → a notebook widget"
    assert c.messages[-1].text == "Thanks, noted." and c.state == "idle"
