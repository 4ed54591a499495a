"""Live: the real pinned Codex CLI under real tmux, against the scripted model."""

from __future__ import annotations

import base64
import json
import os
import re
import signal
import struct
import subprocess
import zlib
from pathlib import Path

import comm
import pytest
from comm import DummyComm

from lab_widget import Reply, Rule, Run, ScriptedModel, ToolUse
from lab_widget._chat._session import ChatEvent
from lab_widget.provider import get_provider
from lab_widget.provider.codex import _commands, _compat
from lab_widget.schema import Usage
from tests.support.local import local_parts
from tests.support.waiting import retry_until

TOOL_TURN = [
    Reply(
        "Let me check.",
        tools=[ToolUse("Bash", {"command": "echo tool-output-42", "description": "echo"})],
        reasoning="The user wants a tool call.",
    ),
    Reply("The tool said tool-output-42."),
]


def escalated(path: Path) -> list[Reply]:
    call = ToolUse(
        "exec_command",
        {
            "cmd": f"touch {path}",
            "sandbox_permissions": "require_escalated",
            "justification": "Create a file outside the workspace?",
        },
    )
    return [Reply(tools=[call]), Reply("Escalated command finished.")]


def script(**rules: list[Reply]) -> ScriptedModel:
    return ScriptedModel(
        rules=[Rule("use a tool", TOOL_TURN), *(Rule(k, v) for k, v in rules.items())],
        sequence=["Hello from the scripted model.", "Second answer."],
    )


def _git_init(folder: Path) -> None:
    subprocess.run(["git", "init", "-q", str(folder)], check=True)


def test_approval_approve_runs_the_command(lab_home: Path, workdir: Path, tmp_path: Path) -> None:
    target = tmp_path / "outside" / "approved.txt"
    target.parent.mkdir()
    run = Run("codex", cwd=workdir, model=script(escalate=escalated(target)))
    try:
        run.send("please escalate")
        assert run.wait_for(lambda r: r.pending_dialog is not None, timeout=60), run.screen()
        dialog = run.pending_dialog
        assert dialog is not None and dialog.kind == "approval"
        assert dialog.tool_name == "Bash" and str(target) in dialog.body
        assert run.state == "question"
        resolved = run.answer("approve")
        assert resolved.status == "answered"
        assert run.wait(timeout=60) == "idle", run.screen()
        assert target.exists()
        assert run.messages[-1].text == "Escalated command finished."
    finally:
        run.stop()


def test_approval_reject_leaves_the_command_unrun(
    lab_home: Path, workdir: Path, tmp_path: Path
) -> None:
    target = tmp_path / "outside" / "rejected.txt"
    target.parent.mkdir()
    run = Run("codex", cwd=workdir, model=script(escalate=escalated(target)))
    try:
        run.send("please escalate")
        assert run.wait_for(lambda r: r.pending_dialog is not None, timeout=60), run.screen()
        resolved = run.answer("reject")
        assert resolved.status == "rejected", resolved
        assert run.wait(timeout=60) == "idle", run.screen()
        assert not target.exists()
        assert run.pending_dialog is None
    finally:
        run.stop()


def test_view_of_a_codex_run(
    lab_home: Path, workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(comm, "create_comm", DummyComm)
    run = Run("codex", cwd=workdir, model=script())
    try:
        view = run.view
        assert (view.provider_name, view.clear_command) == ("Codex", "/new")
        names = [c["name"] for c in view.commands]
        # /plan is chat-safe: its question picker is answered from the chat.
        assert names == ["/new", "/init", "/compact", "/plan", "/stop"]
        assert next(c for c in view.commands if c["name"] == "/new")["role"] == "clear"
        run.send("hello")
        assert run.wait(timeout=60) == "idle", run.screen()
        assert retry_until(lambda: view.state == "idle", timeout=10)
        texts = [m["text"] for m in view._snapshot_payload()["messages"]]
        assert texts[-2:] == ["hello", "Hello from the scripted model."]
    finally:
        run.stop()


def test_auth_status_reads_the_cli_offline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, codex_binary: Path
) -> None:
    home = tmp_path / "codex-home"
    home.mkdir()
    monkeypatch.setenv("CODEX_HOME", str(home))
    provider = get_provider("codex")
    status = provider.auth_status()
    assert (status.logged_in, status.detail) == (False, "Not logged in")
    subprocess.run(
        [str(codex_binary), "login", "--with-api-key"],
        input="sk-test-0000000000000000",
        text=True,
        capture_output=True,
        check=True,
    )
    status = provider.auth_status()
    assert (status.logged_in, status.method) == (True, "api-key")
    assert "0000" not in status.detail  # the masked key is not repeated
    assert provider.auth().kind == "oauth-redirect"


def test_login_redirects_to_the_declared_port(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, codex_binary: Path
) -> None:
    # The descriptor's oauth-redirect method names the port the sign-in page returns to.
    home = tmp_path / "codex-home"
    home.mkdir()
    env = {**os.environ, "CODEX_HOME": str(home), "HOME": str(tmp_path), "BROWSER": "true"}
    out = tmp_path / "login.out"
    with out.open("wb") as sink:
        proc = subprocess.Popen(
            [str(codex_binary), "login"],
            stdin=subprocess.DEVNULL,
            stdout=sink,
            stderr=subprocess.STDOUT,
            env=env,
            start_new_session=True,  # the npm wrapper spawns the native binary: end both
        )
    try:
        port = _compat.LOGIN_REDIRECT_PORT
        assert retry_until(lambda: "redirect_uri=" in out.read_text(), timeout=20), out.read_text()
        text = out.read_text()
        assert f"http://localhost:{port}" in text
        assert f"redirect_uri=http%3A%2F%2F127.0.0.1%3A{port}%2Fauth%2Fcallback" in text
        method = get_provider("codex").auth().method("oauth-redirect")
        assert method is not None and method.redirect_port == port
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)


def menu_row(screen: str) -> tuple[str, str] | None:
    """The highlighted row of the TUI's ``/`` menu (name, description), if it is open."""
    for line in screen.splitlines():
        match = re.match(r"\s*\u203a (/\S+)\s{2,}(\S.*)$", line)  # the highlight mark
        if match:
            return match.group(1), match.group(2).strip()
    return None


def test_pinned_builtins_match_the_tui_menu(lab_home: Path, workdir: Path) -> None:
    run = Run("codex", cwd=workdir, model=script())
    try:
        local_parts(run).chat.wait_ready(60)
        terminal = local_parts(run).terminal
        terminal.paste("/")
        assert retry_until(lambda: menu_row(run.screen()) is not None, timeout=10), run.screen()
        first = menu_row(run.screen())
        assert first is not None, run.screen()
        rows = [first]
        while len(rows) < 200:
            terminal.keys("Down")
            previous = rows[-1]

            def moved(p: tuple[str, str] = previous) -> bool:
                return menu_row(run.screen()) != p

            # The highlight moves when the TUI draws again, later on a busy machine.
            assert retry_until(moved, timeout=15), f"the highlight stayed on {previous}"
            row = menu_row(run.screen())
            assert row is not None, run.screen()
            if row == rows[0]:
                break
            rows.append(row)
    finally:
        run.stop()
    pinned = [(c.name, c.description) for c in _commands.BUILTIN_COMMANDS]
    assert rows == pinned, f"menu drift: {sorted(set(rows) ^ set(pinned))}"


def test_users_own_codex_home_with_folder_trust_accepted(
    lab_home: Path, workdir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = script().start()
    home = tmp_path / "users-codex"
    home.mkdir()
    (home / "config.toml").write_text(
        'model = "gpt-5.1-codex"\nmodel_provider = "mine"\ncheck_for_update_on_startup = false\n'
        f'[model_providers.mine]\nname = "mine"\nbase_url = "{model.base_url}/v1"\n'
        'wire_api = "responses"\nenv_key = "MY_TEST_KEY"\n'
        "[analytics]\nenabled = false\n"
        "[features]\ndaemon_auto_start = false\nplugins = false\napps = false\n"
    )
    monkeypatch.setenv("CODEX_HOME", str(home))
    monkeypatch.setenv("MY_TEST_KEY", model.api_key)
    _git_init(workdir)  # outside a git repository Codex asks no trust question
    run = Run("codex", cwd=workdir)  # no endpoint: the user's own CODEX_HOME
    try:
        assert run.state == "needs_input" and "trust the folder" in (run.needs_input_reason or "")
        run.accept()
        assert retry_until(
            lambda: f'[projects."{workdir}"]' in (home / "config.toml").read_text(), timeout=10
        ), run.screen()
        run.send("hello")
        assert run.wait(timeout=60) == "idle", run.screen()
        assert run.messages[-1].text == "Hello from the scripted model."
        assert run.transcript_path is not None and home in run.transcript_path.parents
    finally:
        run.stop()
        model.stop()


# -- reasoning, sub-agents, compaction, images, long commands ---------------------------


def _png() -> bytes:
    """A red PNG of two by two pixels."""
    raw = b"".join(b"\x00" + b"\xff\x00\x00" * 2 for _ in range(2))

    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = zlib.crc32(kind + data) & 0xFFFFFFFF
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", 2, 2, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw))
        + (chunk(b"IEND", b""))
    )


def _rollout_total(path: Path) -> Usage:
    total: dict[str, int] = {}
    for line in path.read_text().splitlines():
        payload = json.loads(line).get("payload") or {}
        info = payload.get("info") if payload.get("type") == "token_count" else None
        if isinstance(info, dict) and info.get("total_token_usage"):
            total = info["total_token_usage"]
    cached = total.get("cached_input_tokens", 0)
    return Usage(
        input_tokens=total.get("input_tokens", 0) - cached,
        output_tokens=total.get("output_tokens", 0),
        cache_read_tokens=cached,
        reasoning_tokens=total.get("reasoning_output_tokens", 0),
    )


def test_a_pause_inside_a_turn_never_ends_the_wait(lab_home: Path, workdir: Path) -> None:
    model = ScriptedModel(
        rules=[
            Rule(
                "pause",
                [
                    Reply(
                        "Let me check.",
                        tools=[ToolUse("Bash", {"command": "echo before-the-pause"})],
                        reasoning="First a command.",
                    ),
                    Reply("Done after the pause.", delay=5),
                ],
            )
        ]
    )
    run = Run("codex", cwd=workdir, model=model)
    try:
        run.send("pause between steps")
        assert run.wait(timeout=90) == "idle", run.screen()
        assert run.messages[-1].text == "Done after the pause."
        assert [m.text for m in run.messages if m.thinking] == ["First a command."]
    finally:
        run.stop()


def test_a_subagent_works_nested_under_its_call_and_its_tokens_roll_up(
    lab_home: Path, workdir: Path
) -> None:
    model = ScriptedModel(
        rules=[
            Rule(
                "child task",
                [
                    Reply(
                        tools=[ToolUse("Bash", {"command": "sleep 3; echo child-output"})],
                        reasoning="The child plans.",
                    ),
                    Reply("The child is done."),
                ],
            ),
            Rule(
                "delegate",
                [
                    Reply(tools=[ToolUse("spawn_agent", {"message": "child task: echo"})]),
                    # Held until the child is done, so its notification lands in this turn,
                    # and the model answers it as the turn's next step.
                    Reply("A sub-agent is on it.", delay=8),
                    Reply("The sub-agent finished."),
                ],
            ),
        ]
    )
    run = Run("codex", cwd=workdir, model=model)
    try:
        run.send("please delegate")

        def child_running(r: Run) -> bool:
            return any(
                m.parent_tool_id and m.tool is not None and m.tool.status == "running"
                for m in r.messages
            )

        # Live: the sub-agent's command shows under the spawn call while it runs.
        assert run.wait_for(child_running, timeout=90), run.screen()
        assert run.state == "working"
        assert run.wait(timeout=120) == "idle", run.screen()
        assert run.messages[-1].text == "The sub-agent finished."
        spawn = next(m.tool for m in run.messages if m.tool and m.tool.name == "spawn_agent")
        assert spawn is not None
        assert spawn.agent_id
        nested = [m for m in run.messages if m.parent_tool_id == spawn.id]
        assert [m.text for m in nested if m.kind == "text"] == [
            "child task: echo",
            "The child plans.",
            "The child is done.",
        ]
        assert not any("subagent_notification" in m.text for m in run.messages)
        # Tokens: the parent's and the sub-agent's rollouts, each response once.
        assert run.transcript_path is not None
        child = next(run.transcript_path.parent.glob(f"rollout-*-{spawn.agent_id}.jsonl"))
        parent_total, child_total = _rollout_total(run.transcript_path), _rollout_total(child)
        assert run.session.usage == parent_total + child_total
        scopes = {u.scope: (u.requests, u.usage) for u in run.session.models}
        assert scopes == {"main": (3, parent_total), "subagent": (2, child_total)}
    finally:
        run.stop()


def test_compact_is_one_lifecycle_message_with_the_summary(lab_home: Path, workdir: Path) -> None:
    model = ScriptedModel(
        rules=[Rule("hello", "Hello from the scripted model.")],
        fallback="Summary: the user said hello.",
    )
    run = Run("codex", cwd=workdir, model=model)
    try:
        run.send("hello")
        assert run.wait(timeout=60) == "idle", run.screen()
        run.send("/compact")

        def compacted(r: Run) -> bool:
            return any(m.text == "Conversation compacted" for m in r.messages)

        assert run.wait_for(compacted, timeout=60), run.screen()
        assert run.wait(timeout=60) == "idle"
        notes = [m for m in run.messages if m.kind == "lifecycle"]
        assert len(notes) == 1 and "Summary: the user said hello." in notes[0].detail
        assert not any(m.text.startswith("Summary:") for m in run.messages)
        assert sum(u.requests for u in run.session.models) == 2  # the summary is billed
    finally:
        run.stop()


def test_an_image_the_agent_views_is_an_attachment_of_the_call(
    lab_home: Path, workdir: Path
) -> None:
    (workdir / "red.png").write_bytes(_png())
    view = ToolUse("view_image", {"path": str(workdir / "red.png")})
    model = ScriptedModel(rules=[Rule("image", [Reply(tools=[view]), Reply("A red square.")])])
    run = Run("codex", cwd=workdir, model=model)
    try:
        run.send("look at the image")
        assert run.wait(timeout=60) == "idle", run.screen()
        call = next(m for m in run.messages if m.tool is not None)
        assert call.tool is not None and call.tool.status == "ok"
        assert [a.media_type for a in call.attachments] == ["image/png"]
        assert base64.b64decode(call.attachments[0].data) == _png()
    finally:
        run.stop()


def test_a_long_command_shows_running_then_its_whole_output(lab_home: Path, workdir: Path) -> None:
    # 0.171.0 records no output while a command runs (no output deltas in the rollout, no
    # hook between PreToolUse and PostToolUse): the call is running, then complete.
    stream = ToolUse("Bash", {"command": "sleep 1; echo a; sleep 1; echo b"})
    model = ScriptedModel(rules=[Rule("stream", [Reply(tools=[stream]), Reply("Both lines.")])])
    run = Run("codex", cwd=workdir, model=model)
    seen: list[tuple[str, str | None]] = []

    def listener(event: ChatEvent) -> None:
        seen.extend((m.tool.status, m.tool.progress) for m in event.changed if m.tool)

    run.subscribe(listener)
    try:
        run.send("stream a command")
        assert run.wait(timeout=60) == "idle", run.screen()
        call = next(m.tool for m in run.messages if m.tool is not None)
        assert call is not None
        assert call.status == "ok" and "a\nb" in (call.output or "")
        assert ("running", None) in seen and all(progress is None for _, progress in seen)
    finally:
        run.stop()


def test_approval_always_is_not_asked_again(lab_home: Path, workdir: Path, tmp_path: Path) -> None:
    target = tmp_path / "outside" / "always.txt"
    target.parent.mkdir()
    model = script(escalate=escalated(target), again=escalated(target))
    run = Run("codex", cwd=workdir, model=model)
    try:
        run.send("please escalate")
        assert run.wait_for(lambda r: r.pending_dialog is not None, timeout=60), run.screen()
        dialog = run.pending_dialog
        assert dialog is not None
        assert [o.label for o in dialog.questions[0].options][1] == "Approve always"
        final = run.answer("approve_always")
        assert (final.status, final.outcome) == ("answered", "approved always"), final
        assert run.wait(timeout=60) == "idle", run.screen()
        assert target.exists()
        target.unlink()
        # 0.171.0 remembers the whole command as the prefix: the same command runs unasked.
        run.send("and again")
        assert run.wait_for(lambda r: target.exists(), timeout=60), run.screen()
        assert run.wait(timeout=60) == "idle", run.screen()
        kinds = [m.kind for m in run.messages if m.tool and m.tool.name == "exec_command"]
        assert kinds == ["dialog", "tool"], kinds
    finally:
        run.stop()
