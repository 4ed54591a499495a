"""Live: the real pinned Gemini CLI under real tmux, against the scripted model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lab_widget import Reply, Rule, Run, ScriptedModel, ToolUse

TOOL_TURN = [
    Reply("Let me check.", tools=[ToolUse("Bash", {"command": "echo tool-output-42"})]),
    Reply("The tool said tool-output-42."),
]
FILE_TURN = [
    Reply("Creating it.", tools=[ToolUse("Bash", {"command": "touch made.txt"})]),
    Reply("The file is there."),
]


def script(**rules: list[Reply]) -> ScriptedModel:
    return ScriptedModel(
        rules=[
            Rule("use a tool", TOOL_TURN),
            Rule("make a file", FILE_TURN),
            Rule(
                "list the folder",
                [Reply(tools=[ToolUse("Bash", {"command": "ls"})]), Reply("Listed.")],
            ),
            *(Rule(k, v) for k, v in rules.items()),
        ],
        sequence=["Hello from the scripted model.", "Second answer."],
    )


def test_a_listed_folder_shows_in_the_call_output(lab_home: Path, workdir: Path) -> None:
    with Run("gemini", cwd=workdir, model=script()) as run:
        (workdir / "marker-42.txt").write_text("")
        run.send("please list the folder")
        assert run.wait(timeout=90) == "idle", run.screen()
        listed = [m.tool for m in run.messages if m.tool is not None][-1]
        assert listed is not None
        assert listed.input["command"] == "ls"
        assert listed.status == "ok" and "marker-42.txt" in (listed.output or "")


def test_approval_approve_runs_the_command(lab_home: Path, workdir: Path) -> None:
    with Run("gemini", cwd=workdir, model=script()) as run:
        run.send("please make a file")
        assert run.wait_for(lambda r: r.pending_dialog is not None, timeout=90), run.screen()
        dialog = run.pending_dialog
        assert dialog is not None and dialog.kind == "approval"
        assert dialog.tool_name == "run_shell_command" and "touch made.txt" in dialog.body
        assert run.state == "question"
        resolved = run.answer("approve")
        assert resolved.status == "answered"
        assert run.wait(timeout=90) == "idle", run.screen()
        assert (workdir / "made.txt").exists()
        assert run.messages[-1].text == "The file is there."
        assert run.pending_dialog is None


def test_approval_reject_leaves_the_command_unrun(lab_home: Path, workdir: Path) -> None:
    with Run("gemini", cwd=workdir, model=script()) as run:
        run.send("please make a file")
        assert run.wait_for(lambda r: r.pending_dialog is not None, timeout=90), run.screen()
        resolved = run.answer("reject")
        assert resolved.status == "rejected", resolved
        assert run.wait(timeout=60) == "idle", run.screen()
        assert not (workdir / "made.txt").exists()
        assert run.pending_dialog is None
        # The declined call stays in the chat although Gemini CLI rolls it out of history.
        assert any(m.dialog is not None and m.dialog.status == "rejected" for m in run.messages)


def edit_script(workdir: Path) -> ScriptedModel:
    write = ToolUse("write_file", {"file_path": str(workdir / "new.txt"), "content": "hello\n"})
    swap = {"old_string": "beta", "new_string": "gamma", "instruction": "swap the word"}
    replace = ToolUse("replace", {"file_path": str(workdir / "old.txt"), **swap})
    return ScriptedModel(
        rules=[
            Rule("write a file", [Reply("Writing.", tools=[write]), Reply("Written.")]),
            Rule("edit the file", [Reply("Editing.", tools=[replace]), Reply("Edited.")]),
        ]
    )


def test_edit_confirmation_approved_from_the_chat(lab_home: Path, workdir: Path) -> None:
    (workdir / "old.txt").write_text("alpha\nbeta\n")
    with Run("gemini", cwd=workdir, model=edit_script(workdir)) as run:
        run.send("please edit the file")
        assert run.wait_for(lambda r: r.pending_dialog is not None, timeout=90), run.screen()
        dialog = run.pending_dialog
        assert dialog is not None and dialog.kind == "approval" and dialog.tool_name == "edit"
        assert dialog.questions[0].text == "Apply this change to old.txt?"
        assert "-beta" in dialog.body and "+gamma" in dialog.body
        assert run.state == "question"
        assert run.answer("approve").status == "answered"
        assert run.wait(timeout=90) == "idle", run.screen()
        assert (workdir / "old.txt").read_text() == "alpha\ngamma\n"
        assert run.messages[-1].text == "Edited."
        shown = [m.dialog for m in run.messages if m.dialog is not None]
        assert [(d.tool_name, d.outcome) for d in shown] == [("edit", "approved")]


def test_edit_confirmation_rejected_leaves_the_file_unwritten(
    lab_home: Path, workdir: Path
) -> None:
    with Run("gemini", cwd=workdir, model=edit_script(workdir)) as run:
        run.send("please write a file")
        assert run.wait_for(lambda r: r.pending_dialog is not None, timeout=90), run.screen()
        dialog = run.pending_dialog
        assert dialog is not None and "+hello" in dialog.body
        assert run.answer("reject").status == "rejected"
        assert run.wait(timeout=60) == "idle", run.screen()
        assert not (workdir / "new.txt").exists()
        assert run.pending_dialog is None
        assert any(m.dialog is not None and m.dialog.status == "rejected" for m in run.messages)


def test_users_own_config_without_hooks_follows_the_session_file(
    lab_home: Path, workdir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A user's own setup: their settings pick the API key, their trust file trusts the folder,
    # and their environment points at the endpoint. The run's folder is under /tmp, which
    # Gemini CLI will not read system settings from: the run goes without hooks and follows
    # the session file alone, and leaves the user's files as they were.
    monkeypatch.setenv("CI", "true")
    home = tmp_path / "user-home"
    settings_dir = home / ".gemini"
    settings_dir.mkdir(parents=True)
    user_settings = json.dumps(
        {
            "security": {"auth": {"selectedType": "gemini-api-key"}},
            "privacy": {"usageStatisticsEnabled": False},
            "general": {"enableAutoUpdate": False},
        }
    )
    (settings_dir / "settings.json").write_text(user_settings)
    (settings_dir / "trustedFolders.json").write_text(json.dumps({str(workdir): "TRUST_FOLDER"}))
    model = script()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GEMINI_API_KEY", model.api_key)
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", model.base_url)
    run = Run("gemini", cwd=workdir)
    try:
        run.send("hello")
        assert run.wait(timeout=90) == "idle", run.screen()
        assert [m.text for m in run.messages if m.kind == "text"] == [
            "hello",
            "Hello from the scripted model.",
        ]
        assert run.transcript_path is not None
        assert str(home) in str(run.transcript_path)  # the user's own session store
        assert (settings_dir / "settings.json").read_text() == user_settings
        assert not list((lab_home).rglob("signals/*.json"))  # no hook fired
    finally:
        run.stop()
        model.stop()


SUBAGENT_RULES = [
    Rule(
        "count the files here",
        [
            Reply("Counting.", tools=[ToolUse("Bash", {"command": "ls"})]),
            # A pause in the sub-agent's turn: the chat shows it at work meanwhile.
            Reply(tools=[ToolUse("complete_task", {"result": {"response": "3 files."}})], delay=4),
        ],
    ),
    Rule(
        "delegate",
        [
            Reply(
                "Asking a sub-agent.",
                tools=[
                    ToolUse(
                        "invoke_agent",
                        {"agent_name": "generalist", "prompt": "count the files here"},
                    )
                ],
            ),
            Reply("The sub-agent found 3 files."),
        ],
    ),
]


def test_a_subagent_shows_under_its_call_while_it_works(lab_home: Path, workdir: Path) -> None:
    for name in ("a.txt", "b.txt", "c.txt"):
        (workdir / name).write_text(name)
    model = ScriptedModel(rules=SUBAGENT_RULES)
    with Run("gemini", cwd=workdir, model=model) as run:
        run.send("please delegate the count")

        def at_work(r: Run) -> bool:
            return any(m.parent_tool_id and m.text == "Counting." for m in r.messages)

        assert run.wait_for(at_work, timeout=90), run.screen()
        # Gemini CLI records the call when it ends: meanwhile a running stand-in holds it.
        (call,) = [m.tool for m in run.messages if m.tool and m.tool.name == "invoke_agent"]
        assert call is not None
        assert call.status == "running" and call.agent_id
        assert run.state == "working"
        assert run.wait_for(
            lambda r: r.messages[-1].text == "The sub-agent found 3 files.", timeout=90
        ), run.screen()
        assert run.wait(timeout=60) == "idle"
        (call,) = [m.tool for m in run.messages if m.tool and m.tool.name == "invoke_agent"]
        assert call is not None
        assert call.status == "ok" and call.agent_id
        nested = [m for m in run.messages if m.parent_tool_id == call.id]
        assert [m.text for m in nested if m.kind == "text"] == ["count the files here", "Counting."]
        assert [m.tool.name for m in nested if m.tool] == ["run_shell_command", "complete_task"]
        scopes = {m.scope for m in run.session.models}
        assert scopes == {"main", "subagent"}
        # Every sub-agent request the model answered is counted, as a sub-agent's.
        sub = [r for r in model.scripted_requests if r.user_text == "count the files here"]
        assert sum(m.requests for m in run.session.models if m.scope == "subagent") == len(sub)


def test_thinking_shows_before_the_answer(lab_home: Path, workdir: Path) -> None:
    model = ScriptedModel(
        rules=[Rule("think", Reply("Four.", reasoning="**Adding** Two and two make four."))]
    )
    with Run("gemini", cwd=workdir, model=model) as run:
        run.send("think: what is two and two?")
        assert run.wait(timeout=90) == "idle", run.screen()
        shown = [(m.thinking, m.text) for m in run.messages if m.role == "assistant"]
        assert shown == [(True, "**Adding**\n\nTwo and two make four."), (False, "Four.")]


def test_a_pause_between_steps_never_ends_the_wait_early(lab_home: Path, workdir: Path) -> None:
    # 1.5 s after the text block before the call, and 4 s before the next step: the
    # transcript holds the text without its call, then the call's result without an answer.
    model = ScriptedModel(
        rules=[
            Rule(
                "pause",
                [
                    Reply(
                        "Checking.",
                        tools=[ToolUse("Bash", {"command": "echo a"})],
                        block_delay=1.5,
                    ),
                    Reply("Done after the pause.", delay=4),
                ],
            )
        ]
    )
    with Run("gemini", cwd=workdir, model=model) as run:
        run.send("pause between the steps")
        assert run.wait(timeout=90) == "idle", run.screen()
        assert run.messages[-1].text == "Done after the pause."


def test_a_running_command_shows_no_progress(lab_home: Path, workdir: Path) -> None:
    # Gemini CLI records a call only when it ends (and fires no hook with its output).
    command = "sleep 1; echo a; sleep 1; echo b"
    model = ScriptedModel(
        rules=[Rule("slow", [Reply(tools=[ToolUse("Bash", {"command": command})]), Reply("Done.")])]
    )
    run = Run("gemini", cwd=workdir, model=model, approval_mode="yolo")
    seen: list[object] = []
    try:
        run.subscribe(lambda event: seen.extend(m.tool for m in event.changed if m.tool))
        run.send("run the slow command")
        assert run.wait(timeout=90) == "idle", run.screen()
        (tool,) = [m.tool for m in run.messages if m.tool]
        assert tool is not None
        assert tool.status == "ok" and tool.output == "a\nb"
        assert all(getattr(t, "progress", None) is None for t in seen)
    finally:
        run.stop()
