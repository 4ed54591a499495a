"""Unit: Qwen Code's spawn plan, readiness and live signals (the family base's pieces given
by the fork)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from lab_widget.provider import Endpoint, RunContext, SpawnRequest, get_provider
from lab_widget.provider.qwen_code import _compat


def _context(tmp_path: Path) -> RunContext:
    context = RunContext(run_id="r", cwd=tmp_path / "my_work", runtime_dir=tmp_path / "rt")
    context.cwd.mkdir()
    context.runtime_dir.mkdir()
    return context


def test_spawn_isolated_settings_and_hooks(tmp_path: Path) -> None:
    provider = get_provider("qwen-code")
    context = _context(tmp_path)
    plan = provider.plan_spawn(
        SpawnRequest(
            context=context,
            binary=Path("qwen"),
            endpoint=Endpoint("http://127.0.0.1:5/", "sk-x"),
            model="m",
        )
    )
    home = tmp_path / "rt" / "home" / ".qwen"
    assert list(plan.argv) == ["qwen"]
    assert plan.env["QWEN_HOME"] == str(home)
    assert plan.env[_compat.ENV_KEY] == "sk-x" and _compat.ENV_KEY in plan.secret_env
    assert {"CI", "GITHUB_ACTIONS", "OPENAI_API_KEY"} <= plan.unset_env
    settings = json.loads((home / "settings.json").read_text())
    assert settings["modelProviders"]["openai"] == [
        {"id": "m", "baseUrl": "http://127.0.0.1:5/v1", "envKey": _compat.ENV_KEY}
    ]
    assert settings["tools"]["approvalMode"] == "default"
    assert settings["ui"]["enableFollowupSuggestions"] is False
    assert set(settings["hooks"]) == set(_compat.HOOKS.events)
    # The chats folder (slug: every non-alphanumeric character a dash) is there to watch.
    chats = home / "projects" / str(context.cwd).replace("/", "-").replace("_", "-") / "chats"
    assert chats.is_dir() and chats in provider.watch_paths(context)


def test_ready_from_the_session_start_record_after_its_settle(tmp_path: Path) -> None:
    provider = get_provider("qwen-code")
    context = _context(tmp_path)
    provider.plan_spawn(
        SpawnRequest(context=context, binary=Path("qwen"), endpoint=Endpoint("http://x/", "k"))
    )
    assert not provider.is_ready(context)
    facts = context.runtime_dir / "qwen-code.json"
    state = json.loads(facts.read_text())
    facts.write_text(json.dumps({**state, "spawned_at": time.time() - 10}))
    spool = context.runtime_dir / "signals"
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(time.time() - 1))
    record = {
        "hook_event_name": "SessionStart",
        "session_id": "s",
        "timestamp": stamp,
        "transcript_path": str(tmp_path / "s.jsonl"),
    }
    (spool / "1-1.json").write_text(json.dumps(record))
    assert not provider.is_ready(context)  # 1 s after the record, settle 3 s
    old = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(time.time() - 5))
    (spool / "1-1.json").unlink()
    (spool / "2-1.json").write_text(json.dumps({**record, "timestamp": old}))
    assert provider.is_ready(context)
    ref = provider.locate_transcript(context, None)
    assert ref is not None and ref.transcript_id == "s"


def test_without_hooks_ready_once_the_session_file_is_old_enough(tmp_path: Path) -> None:
    provider = get_provider("qwen-code")
    context = _context(tmp_path)
    home = tmp_path / "own"
    os.environ["QWEN_HOME"] = str(home)
    try:
        provider.plan_spawn(SpawnRequest(context=context, binary=Path("qwen")))
        assert not provider.is_ready(context)
        chats = home / "projects" / str(context.cwd).replace("/", "-").replace("_", "-") / "chats"
        chats.mkdir(parents=True)
        (chats / "abc.jsonl").write_text("")
        # The file appears with the first prompt only: the spawn's age tells instead.
        facts = context.runtime_dir / "qwen-code.json"
        state = json.loads(facts.read_text())
        spawned = time.time() - _compat.READY_WITHOUT_HOOKS.settle - 1
        facts.write_text(json.dumps({**state, "spawned_at": spawned}))
        assert provider.is_ready(context)
        assert [r.transcript_id for r in provider.sessions(context.cwd)] == ["abc"]
    finally:
        del os.environ["QWEN_HOME"]


def test_live_signal_reads_the_permission_request(tmp_path: Path) -> None:
    provider = get_provider("qwen-code")
    context = RunContext(run_id="r", cwd=tmp_path, runtime_dir=tmp_path)
    spool = tmp_path / "signals"
    spool.mkdir()
    asked = {
        "hook_event_name": "PermissionRequest",
        "session_id": "s",
        "timestamp": "t",
        "tool_name": "run_shell_command",
        "tool_input": {"command": "touch x"},
    }
    (spool / "1-1.json").write_text(json.dumps(asked))
    note = {"hook_event_name": "Notification", "notification_type": "permission_prompt"}
    (spool / "2-1.json").write_text(json.dumps(note))
    signals = provider.live_signals
    assert signals is not None
    dialog = signals.pending_dialog(context)
    assert dialog is not None and dialog.tool_id == "confirm:t" and "touch x" in dialog.body
    (spool / "3-1.json").write_text(json.dumps({"hook_event_name": "PostToolUse"}))
    assert signals.pending_dialog(context) is None
