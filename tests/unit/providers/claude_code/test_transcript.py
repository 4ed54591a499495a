"""Unit: Claude Code transcripts (fixtures recorded from the pinned CLI) into the schema."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lab_widget import read_transcript
from lab_widget.compat import PINS
from lab_widget.provider import RunContext, TranscriptRef
from lab_widget.provider.claude_code import ClaudeTranscriptReader, project_slug
from lab_widget.provider.claude_code._signals import ClaudeSignals
from lab_widget.schema import subagent_threads
from tests.support.paths import FIXTURES

CLAUDE = FIXTURES / "claude-code"
ALL = sorted(p.name for p in CLAUDE.glob("*.jsonl") if not p.name.endswith(".hooks.jsonl"))
# Sessions whose sub-agents sit beside them: their messages interleave by arrival.
SINGLE = [name for name in ALL if not (CLAUDE / name.removesuffix(".jsonl")).is_dir()]


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
    name=st.sampled_from(SINGLE),
    cuts=st.lists(st.integers(min_value=0, max_value=10**6), max_size=25),
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
@given(garbage=st.lists(st.binary(max_size=300), max_size=6), name=st.sampled_from(SINGLE))
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


# -- real sessions: final usage, thinking, sub-agents, images, compaction ----------------


def _lines(name: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in (CLAUDE / name).read_text().splitlines()]


def _write(path: Path, entries: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(e, separators=(",", ":")) + "\n" for e in entries))
    return path


def test_usage_takes_the_final_figures_of_each_response_whatever_the_order(
    tmp_path: Path,
) -> None:
    # A real stream makes the CLI write each block as it finishes: every entry of a response
    # but the last carries the partial usage of the stream's start and no stop reason.
    entries = _lines("tools.jsonl")
    first = next(e for e in entries if e.get("type") == "assistant")
    message = first["message"]
    assert isinstance(message, dict)
    final = dict(message["usage"])
    message["usage"] = dict(final, output_tokens=1)
    message["stop_reason"] = None
    streamed = read_transcript(_write(tmp_path / "streamed.jsonl", entries), "claude-code")
    clean = chat("tools.jsonl")
    assert streamed.session.usage == clean.session.usage
    shown = [m.usage for m in streamed.messages if m.usage is not None]
    assert shown == [m.usage for m in clean.messages if m.usage is not None]
    # The final copy first and a stale partial one after: still the final figures.
    i = entries.index(first)
    entries[i], entries[i + 1] = entries[i + 1], entries[i]
    swapped = read_transcript(_write(tmp_path / "swapped.jsonl", entries), "claude-code")
    assert swapped.session.usage == clean.session.usage


def test_thinking_is_a_quiet_message_and_hidden_thinking_says_so(tmp_path: Path) -> None:
    entries = _lines("hello.jsonl")
    answer = next(e for e in entries if e.get("type") == "assistant")
    thought = json.loads(json.dumps(answer))
    thought["uuid"] = "thinking-entry"
    thought["message"]["content"] = [
        {"type": "thinking", "thinking": "The user greets me.", "signature": "sig"}
    ]
    hidden = json.loads(json.dumps(thought))
    hidden["uuid"] = "hidden-entry"
    hidden["message"]["content"] = [{"type": "redacted_thinking", "data": "opaque"}]
    i = entries.index(answer)
    c = read_transcript(
        _write(tmp_path / "t.jsonl", [*entries[:i], thought, hidden, *entries[i:]]), "claude-code"
    )
    kinds = [(m.role, m.thinking, m.redacted, m.text) for m in c.messages]
    assert kinds == [
        ("user", False, False, "hello"),
        ("assistant", True, False, "The user greets me."),
        ("assistant", True, True, ""),
        ("assistant", False, False, "Hello from the scripted model."),
    ]
    # One response: its usage is shown once, on its first message, and counted once.
    assert [m.usage is not None for m in c.messages] == [False, True, False, False]
    assert c.session.usage == chat("hello.jsonl").session.usage


def test_a_sub_agent_is_nested_under_the_call_that_started_it() -> None:
    c = chat("subagent.jsonl")
    call = next(m for m in c.messages if m.tool is not None and m.tool.name == "Agent")
    assert call.tool is not None and call.tool.agent_id and call.tool.status == "ok"
    assert call.tool.output == "There is one file."
    nested = c.subagents[call.tool.id]
    # The report the sub-agent hands back is its reply, once: no tool card for the hand-back
    # call, no card for its delivery receipt, and the finish note does not repeat it.
    assert [(m.role, m.kind, m.text) for m in nested if m.kind == "text"] == [
        ("user", "text", "count the files"),
        ("assistant", "text", "Counting."),
        ("assistant", "text", "There is one file."),
    ]
    assert [m.tool.name for m in nested if m.tool is not None] == ["Bash"]
    # The finish is told where the report arrived, before the answer built on it.
    assert [(m.kind, m.text) for m in c.main if m.role != "user"] == [
        ("text", "I will ask a sub-agent."),
        ("tool", ""),
        ("text", "Waiting for the sub-agent."),
        ("lifecycle", 'Agent "Count files" finished'),
        ("text", "The sub-agent found one file."),
    ]
    notice = next(m for m in c.main if m.kind == "lifecycle")
    assert notice.detail == ""
    assert c.state == "idle"


def test_a_sub_agents_tokens_roll_up_into_the_session() -> None:
    c = chat("subagent.jsonl")
    scopes = {m.scope: m for m in c.session.models}
    assert set(scopes) == {"main", "subagent"}
    assert scopes["main"].usage + scopes["subagent"].usage == c.session.usage
    nested_usage = [m.usage for m in c.messages if m.parent_tool_id and m.usage]
    assert scopes["subagent"].requests == len(nested_usage) > 0
    # The context meter follows the main agent, not its sub-agents.
    main_last = [m.usage for m in c.main if m.usage is not None][-1]
    assert c.session.context_tokens == main_last.input_tokens + main_last.cache_read_tokens + (
        main_last.cache_write_tokens
    )


def _copy_session(tmp_path: Path, name: str) -> Path:
    target = tmp_path / "projects" / "-w"
    shutil.copytree(CLAUDE / name.removesuffix(".jsonl"), target / name.removesuffix(".jsonl"))
    shutil.copy(CLAUDE / name, target / name)
    return target / name


def test_a_missing_sub_agent_file_costs_only_its_messages(tmp_path: Path) -> None:
    path = _copy_session(tmp_path, "subagent.jsonl")
    for file in (path.with_suffix("") / "subagents").glob("agent-*.jsonl"):
        file.unlink()
    c = read_transcript(path, "claude-code")
    whole = chat("subagent.jsonl")
    assert [m.text for m in c.main if m.kind != "lifecycle"] == [
        m.text for m in whole.main if m.kind != "lifecycle"
    ]
    warning = next(m for m in c.messages if m.level == "warning")
    assert warning.parent_tool_id is not None and "missing" in warning.text
    assert c.state == "idle"


def test_a_corrupt_sub_agent_line_is_a_nested_warning(tmp_path: Path) -> None:
    path = _copy_session(tmp_path, "subagent.jsonl")
    file = next((path.with_suffix("") / "subagents").glob("agent-*.jsonl"))
    lines = file.read_text().splitlines()
    file.write_text("\n".join([lines[0], "{not json", *lines[1:]]) + "\n")
    c = read_transcript(path, "claude-code")
    warning = next(m for m in c.messages if m.level == "warning")
    assert warning.parent_tool_id is not None and "line 2" in warning.text
    assert c.session.usage == chat("subagent.jsonl").session.usage


def test_a_sub_agent_is_read_live_as_both_files_grow(tmp_path: Path) -> None:
    source = _copy_session(tmp_path / "source", "subagent.jsonl")
    path = tmp_path / "live" / "projects" / "-w" / "subagent.jsonl"
    sub = path.with_suffix("") / "subagents"
    sub.mkdir(parents=True)
    path.write_bytes(b"")
    reader = ClaudeTranscriptReader(TranscriptRef("subagent", path))
    main_lines = source.read_bytes().splitlines(keepends=True)
    sub_source = source.with_suffix("") / "subagents"
    agent = next(sub_source.glob("agent-*.jsonl"))
    shutil.copy(agent.with_suffix(".meta.json"), sub / agent.with_suffix(".meta.json").name)
    agent_lines = agent.read_bytes().splitlines(keepends=True)
    with path.open("ab") as main, (sub / agent.name).open("ab") as child:
        for i in range(max(len(main_lines), len(agent_lines))):
            for handle, lines in ((main, main_lines), (child, agent_lines)):
                if i < len(lines):
                    handle.write(lines[i])
                    handle.flush()
            reader.read()
    whole = chat("subagent.jsonl")
    assert {k: [m.text for m in v] for k, v in subagent_threads(reader.messages).items()} == {
        k: [m.text for m in v] for k, v in whole.subagents.items()
    }
    assert reader.summary.usage == whole.session.usage
    assert reader.state == "idle"


def test_a_tool_returned_image_is_an_attachment() -> None:
    c = chat("image.jsonl")
    read = next(m for m in c.messages if m.tool is not None)
    assert [a.media_type for a in read.attachments] == ["image/png"]
    assert read.attachments[0].size == 70 and read.attachments[0].data


def test_compaction_shows_its_summary_collapsed() -> None:
    c = chat("compact.jsonl")
    compacted = next(m for m in c.messages if m.kind == "lifecycle" and m.detail)
    assert compacted.text.startswith("Conversation compacted")
    assert "continued from a previous conversation" in compacted.detail
    assert c.state == "idle"


def test_a_finished_turn_without_stop_reasons_is_not_working(tmp_path: Path) -> None:
    # Older versions left stop_reason null on every entry and wrote no turn_duration.
    entries = [
        e
        for e in _lines("tools.jsonl")
        if not (e.get("type") == "system" and e.get("subtype") == "turn_duration")
    ]
    for e in entries:
        if e.get("type") == "assistant":
            e["message"]["stop_reason"] = None  # type: ignore[index]
    path = _write(tmp_path / "t.jsonl", entries)
    assert read_transcript(path, "claude-code").state == "idle"
    # Live, the same entries never end the turn early: a tool call may still follow.
    reader = ClaudeTranscriptReader(TranscriptRef("t", path))
    reader.read()
    assert reader.state == "working"
    # Cut right after a tool call: the file stops mid-turn, and says so.
    cut = next(
        i
        for i, e in enumerate(entries)
        if e.get("type") == "assistant"
        and any(b.get("type") == "tool_use" for b in e["message"]["content"])  # type: ignore[index]
    )
    assert read_transcript(
        _write(tmp_path / "c.jsonl", entries[: cut + 1]), "claude-code"
    ).state == ("working")


# -- every recorded version reads ------------------------------------------------------

VERSIONS = [CLAUDE, *sorted(p for p in CLAUDE.glob("v*") if p.is_dir())]


def _version(folder: Path) -> str:
    return str(json.loads((folder / "manifest.json").read_text())["version"])


def test_older_versions_are_recorded() -> None:
    # Users' histories span versions: at least two older ones beside the pinned one.
    older = [_version(v) for v in VERSIONS[1:]]
    assert len(older) >= 2 and PINS["claude-code"].version not in older


@pytest.mark.parametrize("folder", VERSIONS, ids=_version)
def test_every_version_reads_a_plain_turn_and_tools(folder: Path) -> None:
    hello = read_transcript(folder / "hello.jsonl", "claude-code")
    assert [(m.role, m.text) for m in hello.messages if m.kind == "text"] == [
        ("user", "hello"),
        ("assistant", "Hello from the scripted model."),
    ]
    assert hello.state == "idle" and hello.session.cli_version == _version(folder)
    assert hello.session.usage.output_tokens > 0 and hello.session.models
    tools = read_transcript(folder / "tools.jsonl", "claude-code")
    assert [(m.tool.name, m.tool.status) for m in tools.messages if m.tool] == [
        ("Bash", "ok"),
        ("Bash", "error"),
    ]
    assert tools.state == "idle"


@pytest.mark.parametrize("folder", VERSIONS, ids=_version)
def test_every_version_nests_its_sub_agent(folder: Path) -> None:
    c = read_transcript(folder / "subagent.jsonl", "claude-code")
    call = next(m for m in c.main if m.tool is not None and m.tool.name in ("Agent", "Task"))
    assert call.tool is not None and call.tool.agent_id and call.tool.status == "ok"
    assert "There is one file." in (call.tool.output or "")
    nested = c.subagents[call.tool.id]
    # In file order: 2.1.39 wrote the sub-agent's first prompt after its first response.
    assert ("user", "count the files") in [(m.role, m.text) for m in nested]
    assert any(m.tool is not None and m.tool.name == "Bash" for m in nested)
    assert {m.scope for m in c.session.models} == {"main", "subagent"}
    assert any(m.text == "The sub-agent found one file." for m in c.main)
    assert c.state == "idle"


def _with(scenario: str) -> list[Path]:
    return [v for v in VERSIONS if (v / f"{scenario}.jsonl").exists()]


def test_a_scenario_an_older_version_lacks_is_declared() -> None:
    # An older version that cannot play a scenario offline says so in its manifest;
    # the pinned version plays every one.
    for folder in VERSIONS:
        manifest = json.loads((folder / "manifest.json").read_text())
        declared = set(manifest.get("not_recorded", {}))
        for scenario in ("hello", "tools", "subagent", "thinking", "slow_tool", "image", "compact"):
            assert (folder / f"{scenario}.jsonl").exists() != (scenario in declared), (
                folder,
                scenario,
            )
        assert folder != CLAUDE or not declared


@pytest.mark.parametrize("folder", _with("image"), ids=_version)
def test_every_version_attaches_a_tool_returned_image(folder: Path) -> None:
    image = read_transcript(folder / "image.jsonl", "claude-code")
    assert [a.media_type for m in image.messages for a in m.attachments] == ["image/png"]


@pytest.mark.parametrize("folder", _with("compact"), ids=_version)
def test_every_version_shows_its_compaction_summary(folder: Path) -> None:
    compact = read_transcript(folder / "compact.jsonl", "claude-code")
    assert any(m.kind == "lifecycle" and m.detail for m in compact.messages)
    assert compact.state == "idle"


@pytest.mark.parametrize("folder", _with("thinking"), ids=_version)
def test_every_version_shows_thinking_before_the_answer(folder: Path) -> None:
    c = read_transcript(folder / "thinking.jsonl", "claude-code")
    kinds = [(m.thinking, m.text) for m in c.messages if m.role == "assistant" and m.kind == "text"]
    assert kinds[0] == (True, "The user wants me to think. I should list the files first.")
    assert kinds[-1] == (False, "There is one file.")
    assert c.state == "idle"
    # Usage on the first message of each response, the thinking one: counted once each.
    assert c.session.usage.output_tokens == sum(
        m.usage.output_tokens for m in c.messages if m.usage is not None
    )


@pytest.mark.parametrize("folder", _with("slow_tool"), ids=_version)
def test_every_version_reads_a_slow_command_and_its_progress(folder: Path) -> None:
    c = read_transcript(folder / "slow_tool.jsonl", "claude-code")
    call = next(m.tool for m in c.messages if m.tool is not None)
    assert call.status == "ok" and call.progress is None  # the result replaced it
    assert "step 4" in (call.output or "")
    assert c.messages[-1].text == "It counted to four."
    assert c.state == "idle"


def test_progress_of_a_running_command_shows_until_its_result(tmp_path: Path) -> None:
    # Versions that write bash_progress (2.1.39 here; the pinned one writes none).
    folder = next(v for v in VERSIONS if '"bash_progress"' in (v / "slow_tool.jsonl").read_text())
    lines = (folder / "slow_tool.jsonl").read_text().splitlines(keepends=True)
    result = next(i for i, line in enumerate(lines) if '"tool_result"' in line)
    path = tmp_path / "slow.jsonl"
    path.write_text("".join(lines[:result]))
    reader = ClaudeTranscriptReader(TranscriptRef("slow", path))
    reader.read()
    running = next(m.tool for m in reader.messages if m.tool is not None)
    assert running.status == "running" and running.progress is not None
    assert running.progress.splitlines()[-1].startswith("step")
    with path.open("a") as handle:
        handle.write("".join(lines[result:]))
    reader.read()
    done = next(m.tool for m in reader.messages if m.tool is not None)
    assert done.status == "ok" and done.progress is None and "step 4" in (done.output or "")


def test_a_sub_agents_permission_prompt_is_its_own_call_nested_under_the_agent(
    tmp_path: Path,
) -> None:
    spool = tmp_path / "signals"
    spool.mkdir()
    hooks = (CLAUDE / "subagent_permission.hooks.jsonl").read_text().splitlines()
    for index, line in enumerate(hooks):
        (spool / f"{index:04d}.json").write_text(line)
    context = RunContext(run_id="r", cwd=Path("/fixture/work"), runtime_dir=tmp_path)
    dialog = ClaudeSignals().pending_dialog(context)
    assert dialog is not None and dialog.kind == "approval" and dialog.tool_name == "Bash"
    assert dialog.body.startswith("Asked by the general-purpose sub-agent.")
    assert "touch made-by-subagent.txt" in dialog.questions[0].text
    # The transcript nests the call it asked about under the sub-agent's Agent call.
    c = chat("subagent_permission.jsonl")
    call = next(m for m in c.messages if m.tool is not None and m.tool.name == "Agent")
    assert call.tool is not None
    nested = c.subagents[call.tool.id]
    [bash] = [m for m in nested if m.tool is not None and m.tool.name == "Bash"]
    assert bash.tool is not None and bash.tool.id == dialog.tool_id
    assert bash.tool.status == "ok" and bash.parent_tool_id == call.tool.id
