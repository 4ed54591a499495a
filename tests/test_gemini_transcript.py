"""Unit: Gemini CLI session files and hook records (fixtures recorded from the pinned CLI)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from lab_widget import read_transcript
from lab_widget.compat import PINS
from lab_widget.provider import Endpoint, RunContext, SpawnRequest, TranscriptRef, get_provider
from lab_widget.provider.gemini._signals import GeminiSignals
from lab_widget.provider.gemini._transcript import GeminiTranscriptReader, peek_session

from .conftest import FIXTURES

GEMINI = FIXTURES / "gemini"
ALL = sorted(p.name for p in GEMINI.glob("*.jsonl") if not p.name.endswith(".hooks.jsonl"))


def hooks(name: str) -> list[dict[str, Any]]:
    stem = name.removesuffix(".jsonl").rstrip("_0123456789").rstrip("_")
    path = GEMINI / f"{stem}.hooks.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()]


def reader(name: str, with_hooks: bool = False) -> GeminiTranscriptReader:
    records = hooks(name) if with_hooks else None
    r = GeminiTranscriptReader(
        TranscriptRef("t", GEMINI / name),
        turn_signals=(lambda: records) if records is not None else None,
    )
    r.read()
    return r


def texts(name: str) -> list[tuple[str, str]]:
    chat = read_transcript(GEMINI / name, provider="gemini")
    return [(m.role, m.text) for m in chat.messages if m.kind == "text"]


def test_fixtures_come_from_the_pinned_version() -> None:
    manifest = json.loads((GEMINI / "manifest.json").read_text())
    assert manifest["version"] == PINS["gemini"].version
    for name in ALL:
        header = json.loads((GEMINI / name).read_text().splitlines()[0])
        assert header["kind"] == "main" and header["sessionId"], name


def test_hello_skips_the_session_context() -> None:
    r = reader("hello.jsonl")
    assert texts("hello.jsonl") == [
        ("user", "hello"),
        ("assistant", "Hello from the scripted model."),
    ]
    assert r.state == "idle"
    last = r.messages[-1]
    assert last.model and last.usage is not None and last.usage.output_tokens > 0
    s = r.summary
    assert s.usage.input_tokens > 0 and s.model == last.model
    assert s.started_at is not None and s.context_tokens


def test_tool_calls_replace_their_response_and_report_exit_codes() -> None:
    r = reader("tools.jsonl")
    tools = [m.tool for m in r.messages if m.tool is not None]
    assert [t.name for t in tools] == ["run_shell_command", "run_shell_command"]
    assert [t.status for t in tools] == ["ok", "error"]
    assert tools[0].input == {"command": "echo tool-output-42"}
    failed = tools[1].output or ""
    assert "Exit Code: 2" in failed and "missing-file.txt" in failed
    assert "untrusted_context" not in failed and "PGID" not in failed
    # The response text and its calls come from one record written twice: no duplicate.
    assert [m.text for m in r.messages if m.kind == "text"].count("Let me check.") == 1
    # The tool results sent back to the model are not user messages.
    assert [m.text for m in r.messages if m.role == "user"] == [
        "please use a tool",
        "now a failing tool",
    ]


def test_approved_call_carries_its_dialog_from_the_hook_record() -> None:
    r = reader("approve.jsonl", with_hooks=True)
    dialogs = [m for m in r.messages if m.dialog is not None]
    assert len(dialogs) == 1
    message = dialogs[0]
    assert message.kind == "dialog" and message.dialog is not None and message.tool is not None
    assert message.dialog.status == "answered" and message.dialog.outcome == "approved"
    assert message.tool.id == message.dialog.tool_id and message.tool.status == "ok"
    assert "touch made.txt" in message.dialog.body
    assert r.state == "idle"
    # Without the hook records the same call is a plain tool call.
    assert not any(m.dialog for m in reader("approve.jsonl").messages)


def test_declined_call_stays_in_the_chat_after_the_roll_back() -> None:
    raw = (GEMINI / "reject.jsonl").read_text()
    assert '"$set": {"messages"' in raw.split("\n", 2)[2]  # Gemini CLI rewrote its history
    r = reader("reject.jsonl", with_hooks=True)
    kinds = [(m.kind, m.text) for m in r.messages]
    assert kinds == [
        ("text", "please make a file"),
        ("text", "Creating it."),
        ("dialog", ""),
        ("lifecycle", "Request cancelled."),
    ]
    dialog = r.messages[2].dialog
    assert dialog is not None and dialog.status == "rejected"
    tool = r.messages[2].tool
    assert tool is not None and tool.status == "error" and "(rejected)" in (tool.output or "")
    # No AfterAgent follows a declined confirmation: the transcript ends the turn.
    assert [h["hook_event_name"] for h in hooks("reject.jsonl")][-1] == "Notification"
    assert r.state == "idle"


def test_an_approved_edit_carries_its_diff_from_the_hook_record() -> None:
    r = reader("edit_approve.jsonl", with_hooks=True)
    dialogs = [m for m in r.messages if m.dialog is not None]
    assert len(dialogs) == 1
    message = dialogs[0]
    assert message.dialog is not None and message.tool is not None
    assert message.tool.name == "replace" and message.tool.status == "ok"
    assert (message.dialog.tool_name, message.dialog.outcome) == ("edit", "approved")
    assert message.dialog.questions[0].text == "Apply this change to old.txt?"
    assert "-beta\n+gamma" in message.dialog.body
    assert message.tool.id == message.dialog.tool_id
    assert r.state == "idle"


def test_a_declined_edit_stays_in_the_chat_as_rejected() -> None:
    r = reader("edit_reject.jsonl", with_hooks=True)
    dialogs = [m.dialog for m in r.messages if m.dialog is not None]
    assert [(d.tool_name, d.status) for d in dialogs] == [("edit", "rejected")]
    assert "+hello" in dialogs[0].body
    assert r.messages[-1].text == "Request cancelled."
    assert r.state == "idle"


def test_interrupt_keeps_the_cancelled_prompt() -> None:
    r = reader("interrupt.jsonl", with_hooks=True)
    assert [(m.kind, m.text) for m in r.messages] == [
        ("text", "be slow"),
        ("lifecycle", "Request cancelled."),
    ]
    assert r.state == "idle"


def test_turn_hooks_decide_the_state_while_a_response_waits_on_its_tools(
    tmp_path: Path,
) -> None:
    # The response text is written before its tool calls: alone it reads as a finished turn.
    lines = (GEMINI / "tools.jsonl").read_text().splitlines()
    upto = next(i for i, line in enumerate(lines) if '"Let me check."' in line)
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(lines[: upto + 1]) + "\n")
    session = json.loads(lines[0])["sessionId"]
    alone = GeminiTranscriptReader(TranscriptRef("t", path))
    alone.read()
    assert alone.state == "idle"
    started = [{"hook_event_name": "BeforeAgent", "session_id": session, "timestamp": "z"}]
    hooked = GeminiTranscriptReader(TranscriptRef("t", path), turn_signals=lambda: started)
    hooked.read()
    assert hooked.state == "working"


def test_rewind_cuts_and_reports_a_reset(tmp_path: Path) -> None:
    lines = (GEMINI / "clear_0.jsonl").read_text().splitlines()
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(lines) + "\n")
    r = GeminiTranscriptReader(TranscriptRef("t", path))
    r.read()
    assert [m.text for m in r.messages] == ["hello", "Hello from the scripted model."]
    user_id = next(json.loads(x)["id"] for x in lines if '"type": "user"' in x and "hello" in x)
    with path.open("a") as f:
        f.write(json.dumps({"$rewindTo": user_id}) + "\n")
    result = r.read()
    assert result.reset and r.messages == [] and result.changed == []


def test_preview_and_sessions(tmp_path: Path, monkeypatch: Any) -> None:
    assert peek_session(GEMINI / "hello.jsonl") == ("hello", reader("hello.jsonl").summary.model)
    home = tmp_path / "home"
    chats = home / ".gemini" / "tmp" / "work" / "chats"
    chats.mkdir(parents=True)
    (chats / "session-x.jsonl").write_bytes((GEMINI / "hello.jsonl").read_bytes())
    work = tmp_path / "work"
    work.mkdir()
    (home / ".gemini" / "projects.json").write_text(
        json.dumps({"projects": {str(work.resolve()): "work"}})
    )
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("GEMINI_CLI_HOME", raising=False)
    refs = get_provider("gemini").sessions(work)
    assert [r.transcript_id for r in refs] == [
        json.loads((GEMINI / "hello.jsonl").read_text().splitlines()[0])["sessionId"]
    ]


def test_spawn_isolated_settings_and_hooks(tmp_path: Path) -> None:
    provider = get_provider("gemini")
    context = RunContext(run_id="r", cwd=tmp_path / "work", runtime_dir=tmp_path / "rt")
    context.cwd.mkdir()
    context.runtime_dir.mkdir()
    plan = provider.plan_spawn(
        SpawnRequest(
            context=context,
            binary=Path("gemini"),
            endpoint=Endpoint("http://127.0.0.1:5/", "sk-x"),
            model="gemini-test",
        )
    )
    assert list(plan.argv) == ["gemini", "--model", "gemini-test"]
    assert plan.env["GEMINI_API_KEY"] == "sk-x" and "GEMINI_API_KEY" in plan.secret_env
    assert plan.env["GOOGLE_GEMINI_BASE_URL"] == "http://127.0.0.1:5"
    assert plan.env["GEMINI_CLI_NO_RELAUNCH"] == "true"
    assert "GEMINI_CLI_HOME" in plan.unset_env and "GOOGLE_API_KEY" in plan.unset_env
    assert {"CI", "GITHUB_ACTIONS"} <= plan.unset_env
    settings = json.loads((tmp_path / "rt" / "home" / ".gemini" / "settings.json").read_text())
    assert settings["security"]["auth"]["selectedType"] == "gemini-api-key"
    assert settings["telemetry"]["enabled"] is False
    assert set(settings["hooks"]) >= {"SessionStart", "BeforeAgent", "AfterAgent", "Notification"}
    trusted = json.loads((tmp_path / "rt" / "home" / ".gemini" / "trustedFolders.json").read_text())
    assert trusted == {str(context.cwd): "TRUST_FOLDER"}


def test_live_signal_reads_the_permission_notification(tmp_path: Path) -> None:
    context = RunContext(run_id="r", cwd=tmp_path, runtime_dir=tmp_path)
    spool = tmp_path / "signals"
    spool.mkdir()
    records = hooks("approve.jsonl")
    upto = next(i for i, r in enumerate(records) if r["hook_event_name"] == "Notification")
    for i, record in enumerate(records[: upto + 1]):
        (spool / f"{i:04d}-1.json").write_text(json.dumps(record))
    signals = GeminiSignals()
    dialog = signals.pending_dialog(context)
    assert dialog is not None and dialog.kind == "approval"
    assert dialog.tool_id == f"confirm:{records[upto]['timestamp']}"
    assert signals.blocked(context) is None
    (spool / f"{upto + 1:04d}-1.json").write_text(json.dumps(records[upto + 1]))
    assert signals.pending_dialog(context) is None


def test_custom_toml_commands(tmp_path: Path, monkeypatch: Any) -> None:
    home = tmp_path / "home"
    (home / ".gemini" / "commands").mkdir(parents=True)
    (home / ".gemini" / "commands" / "hi.toml").write_text('prompt = "Say hi"\n')
    project = tmp_path / "work" / ".gemini" / "commands" / "git"
    project.mkdir(parents=True)
    (project / "log.toml").write_text('description = "Show the log"\nprompt = "!{git log}"\n')
    (project / "bad.toml").write_text("description = 'no prompt'\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("GEMINI_CLI_HOME", raising=False)
    specs = {c.name: c for c in get_provider("gemini").commands(tmp_path / "work")}
    assert specs["/hi"].source == "user"
    assert (specs["/git:log"].source, specs["/git:log"].description) == ("project", "Show the log")
    assert "/git:bad" not in specs
    assert specs["/clear"].role == "clear" and specs["/clear"].chat_safe
    assert not specs["/quit"].chat_safe
