"""Unit: Codex rollouts and hook records (fixtures recorded from the pinned CLI)."""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lab_widget import read_transcript
from lab_widget.compat import PINS
from lab_widget.provider import Endpoint, RunContext, SpawnRequest, TranscriptRef, get_provider
from lab_widget.provider.codex._dialogs import CodexSignals
from lab_widget.provider.codex._transcript import CodexTranscriptReader, peek_rollout

from .conftest import FIXTURES

CODEX = FIXTURES / "codex"
ALL = sorted(p.name for p in CODEX.glob("*.jsonl") if not p.name.endswith(".hooks.jsonl"))


def chat(name: str):  # type: ignore[no-untyped-def]
    return read_transcript(CODEX / name, provider="codex")


def texts(name: str) -> list[tuple[str, str]]:
    return [(m.role, m.text) for m in chat(name).messages if m.kind == "text"]


def test_fixtures_come_from_the_pinned_version() -> None:
    manifest = json.loads((CODEX / "manifest.json").read_text())
    assert manifest["version"] == PINS["codex"].version
    for name in ALL:
        first = json.loads((CODEX / name).read_text().splitlines()[0])
        assert first["type"] == "session_meta", name
        assert first["payload"]["cli_version"] == PINS["codex"].version, name


def test_hello() -> None:
    c = chat("hello.jsonl")
    assert texts("hello.jsonl") == [
        ("user", "hello"),
        ("assistant", "Hello from the scripted model."),
    ]
    assert c.state == "idle"
    last = c.messages[-1]
    assert last.model == "gpt-5.1-codex" and last.usage is not None
    assert last.usage.output_tokens > 0
    s = c.session
    assert s.cwd == "/fixture/work" and s.cli_version == PINS["codex"].version
    assert s.model == s.model_requested == "gpt-5.1-codex"
    assert s.usage.input_tokens > 0 and len(s.turn_durations_ms) == 1
    assert s.started_at is not None and s.context_tokens


def test_context_messages_are_not_user_text() -> None:
    users = [m.text for m in chat("tools.jsonl").messages if m.role == "user"]
    assert users == ["please use a tool", "now a failing tool"]


def test_tool_calls_are_paired_with_results() -> None:
    tools = [m.tool for m in chat("tools.jsonl").messages if m.tool is not None]
    assert [(t.name, t.input, t.status) for t in tools] == [
        ("exec_command", {"cmd": "echo tool-output-42"}, "ok"),
        ("exec_command", {"cmd": "cat missing-file.txt"}, "error"),
    ]
    assert "tool-output-42" in (tools[0].output or "")
    assert "No such file" in (tools[1].output or "")
    assert [t.id for t in tools] == ["call_scripted_000001", "call_scripted_000010"]


def test_reasoning_summary_is_a_quiet_note() -> None:
    notes = [m for m in chat("tools.jsonl").messages if m.kind == "lifecycle"]
    assert [(n.role, n.level, n.text) for n in notes] == [
        ("assistant", "info", "The user wants a tool call.")
    ]


def test_usage_totals_follow_the_last_token_count() -> None:
    c = chat("tools.jsonl")
    per_response = [m.usage for m in c.messages if m.usage is not None]
    assert len(per_response) == 4  # one model response each: two calls, two answers
    total = per_response[0]
    for usage in per_response[1:]:
        total = total + usage
    assert c.session.usage == total


def test_approved_call_ran_and_turn_finished() -> None:
    c = chat("approve.jsonl")
    tool = next(m.tool for m in c.messages if m.tool is not None)
    assert tool.status == "ok" and tool.input["sandbox_permissions"] == "require_escalated"
    assert c.messages[-1].text == "Escalated command finished." and c.state == "idle"


def test_rejected_call_is_failed_and_marked_rejected() -> None:
    c = chat("reject.jsonl")
    tool = next(m.tool for m in c.messages if m.tool is not None)
    assert tool.status == "error" and "rejected" in (tool.output or "")
    assert c.messages[-1].text == "Interrupted" and c.state == "idle"


def test_interrupt_is_a_lifecycle_message_and_idle() -> None:
    c = chat("interrupt.jsonl")
    assert [(m.kind, m.text) for m in c.messages] == [
        ("text", "be slow"),
        ("lifecycle", "Interrupted"),
    ]
    assert c.state == "idle"


def test_working_while_the_turn_runs(tmp_path: Path) -> None:
    lines = (CODEX / "hello.jsonl").read_text().splitlines()
    started = next(
        i for i, line in enumerate(lines) if '"task_started"' in line and '"event_msg"' in line
    )
    path = tmp_path / "r.jsonl"
    path.write_text("\n".join(lines[: started + 1]) + "\n")
    reader = CodexTranscriptReader(TranscriptRef("t", path))
    reader.read()
    assert reader.state == "working"
    path.write_text("\n".join(lines) + "\n")
    reader.read()
    assert reader.state == "idle"


def test_new_epoch_reader_starts_with_the_clear_echo() -> None:
    reader = CodexTranscriptReader(TranscriptRef("t", CODEX / "new_1.jsonl"), clear_echo="/new")
    reader.read()
    first = reader.messages[0]
    assert (first.role, first.command, first.text) == ("user", "/new", "/new")
    assert [m.text for m in reader.messages[1:] if m.kind == "text"] == [
        "and again",
        "Second answer.",
    ]


def test_peek_reads_prompt_and_model() -> None:
    assert peek_rollout(CODEX / "tools.jsonl") == ("please use a tool", "gpt-5.1-codex")


def test_corrupt_line_becomes_one_warning_and_nothing_is_lost(tmp_path: Path) -> None:
    lines = (CODEX / "hello.jsonl").read_text().splitlines()
    path = tmp_path / "c.jsonl"
    path.write_text("\n".join([lines[0], "{not json", *lines[1:]]) + "\n")
    c = read_transcript(path, "codex")
    warnings = [m for m in c.messages if m.level == "warning"]
    assert len(warnings) == 1
    assert [(m.role, m.text) for m in c.messages if m.kind == "text"] == texts("hello.jsonl")


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    name=st.sampled_from(ALL), cuts=st.lists(st.integers(min_value=0, max_value=10**6), max_size=25)
)
def test_any_split_equals_one_shot(tmp_path: Path, name: str, cuts: list[int]) -> None:
    data = (CODEX / name).read_bytes()
    points = sorted({c % (len(data) + 1) for c in cuts} | {len(data)})
    path = tmp_path / f"split-{name}"
    path.write_bytes(b"")
    reader = CodexTranscriptReader(TranscriptRef("t", path))
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
    assert [seen[m.seq] for m in expected.messages] == expected.messages


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(garbage=st.lists(st.binary(max_size=300), max_size=6), name=st.sampled_from(ALL))
def test_garbage_lines_never_raise_and_keep_valid_entries(
    tmp_path: Path, garbage: list[bytes], name: str
) -> None:
    lines = (CODEX / name).read_bytes().splitlines()
    mixed: list[bytes] = []
    for i, line in enumerate(lines):
        mixed.append(line)
        if i < len(garbage):
            mixed.append(garbage[i].replace(b"\n", b" "))
    path = tmp_path / f"garbage-{name}"
    path.write_bytes(b"\n".join(mixed) + b"\n")
    got = [m for m in read_transcript(path, "codex").messages if m.kind != "lifecycle"]
    want = [m for m in chat(name).messages if m.kind != "lifecycle"]
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


def _rollout(folder: Path, thread: str, cwd: str, started: float) -> Path:
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(started))
    day = folder / time.strftime("%Y/%m/%d", time.gmtime(started))
    day.mkdir(parents=True, exist_ok=True)
    path = day / f"rollout-x-{thread}.jsonl"
    meta = {"type": "session_meta", "payload": {"id": thread, "cwd": cwd, "timestamp": stamp}}
    path.write_text(json.dumps(meta) + "\n")
    return path


def test_scan_without_hooks_never_takes_an_earlier_run_in_the_same_folder(
    tmp_path: Path,
) -> None:
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
    assert not provider.is_ready(context)  # just marked: not settled yet
    os.utime(mine, (time.time() - 2, time.time() - 2))
    (context.runtime_dir / "codex.json").write_text(
        json.dumps({"codex_home": str(home), "spawned_at": spawned - 3})
    )
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
    assert (
        provider.watch_paths(context)[1] == tmp_path / "mine" / "tui-thread-reference-capabilities"
    )
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
    texts = [m.text for m in reader.read().changed if m.kind == "text"]
    assert texts == ["and again", "Second answer."]


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


def test_sessions_of_a_folder_and_their_previews(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "users-codex"
    monkeypatch.setenv("CODEX_HOME", str(home))
    day = home / "sessions" / "2026" / "11" / "30"
    day.mkdir(parents=True)
    for name in ("hello.jsonl", "tools.jsonl"):
        shutil.copy(CODEX / name, day / f"rollout-2026-11-30T08-00-00-{name}")
    provider = get_provider("codex")
    assert provider.sessions(tmp_path / "elsewhere") == []
    monkeypatch.chdir(tmp_path)
    refs = provider.sessions(Path("/fixture/work"))
    ids = {
        json.loads((CODEX / n).read_text().splitlines()[0])["payload"]["id"]
        for n in ("hello.jsonl", "tools.jsonl")
    }
    assert {r.transcript_id for r in refs} == ids
    previews = sorted(provider.preview(r) for r in refs)
    assert previews == [("hello", "gpt-5.1-codex"), ("please use a tool", "gpt-5.1-codex")]
