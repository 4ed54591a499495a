"""Live: Mistral Vibe's own behaviour under tmux against the scripted model: a chat, a tool
call with its result, an approval answered from the chat (approved, then denied), a clear,
and the session read back with the tokens the model billed.
"""

from __future__ import annotations

from pathlib import Path

from lab_widget import Reply, Rule, Run, ScriptedModel, ToolUse


def _touch(name: str) -> list[Reply]:
    return [Reply("", tools=[ToolUse("Bash", {"command": f"touch {name}"})]), Reply("Made it.")]


def _last(run: Run) -> str:
    return run.messages[-1].text if run.messages else ""


def test_vibe_chats_calls_a_tool_answers_an_approval_and_clears(
    lab_home: Path, workdir: Path
) -> None:
    echo = ToolUse("Bash", {"command": "echo tool-output-42"})
    model = ScriptedModel(
        rules=[
            Rule("use a tool", [Reply("Let me check.", tools=[echo]), Reply("It said 42.")]),
            Rule("make one", _touch("one.txt")),
            Rule("make two", _touch("two.txt")),
        ],
        sequence=["Hello from the scripted model.", "Second answer."],
    )
    run = Run("mistral-vibe", cwd=workdir, model=model)
    try:
        run.send("hello", ready_timeout=180)
        assert run.wait_for(lambda r: _last(r) == "Hello from the scripted model.", timeout=90)
        assert run.wait(timeout=60) == "idle", run.screen()

        # A tool the CLI runs unasked, its output paired with its call.
        run.send("please use a tool")
        assert run.wait_for(lambda r: _last(r) == "It said 42.", timeout=90), run.screen()
        tool = next(m.tool for m in run.messages if m.tool is not None)
        assert (tool.name, tool.status) == ("file_system.bash", "ok")
        assert "tool-output-42" in (tool.output or "")

        # An approval: Allow once runs the command.
        run.send("please make one")
        assert run.wait_for(lambda r: r.pending_dialog is not None, timeout=90), run.screen()
        dialog = run.pending_dialog
        assert dialog is not None and dialog.kind == "approval"
        assert dialog.body == "touch one.txt" and run.state == "question"
        run.answer("Approve", timeout=60)
        assert run.wait_for(lambda r: _last(r) == "Made it.", timeout=90), run.screen()
        assert run.wait(timeout=60) == "idle", run.screen()
        assert (workdir / "one.txt").exists()

        # Denied: the model is told and the turn goes on.
        run.send("please make two")
        assert run.wait_for(lambda r: r.pending_dialog is not None, timeout=90), run.screen()
        run.answer("Reject", timeout=60)
        assert run.wait(timeout=90) == "idle", run.screen()
        assert not (workdir / "two.txt").exists()
        calls = [m for m in run.messages if m.tool is not None]
        assert [m.dialog.status for m in calls if m.dialog is not None] == ["answered", "rejected"]

        # Read back with the tokens the model billed: every request once.
        session = run.session
        billed = [m.usage for m in run.messages if m.usage is not None]
        assert len(billed) == len(model.scripted_requests) == 7
        assert session.usage.total == sum(u.total for u in billed) > 0
        assert session.usage.output_tokens == sum(u.output_tokens for u in billed)
        assert session.model == "scripted-model"

        # /clear opens a new epoch with its echo; the next prompt lands there.
        first = run.transcript_id
        run.clear()
        assert run.wait_for(lambda r: r.transcript_id != first, timeout=60), run.screen()
        run.send("and again")
        assert run.wait_for(lambda r: _last(r) == "Second answer.", timeout=90), run.screen()
        assert [(m.role, m.command or m.text) for m in run.messages] == [
            ("user", "/clear"),
            ("user", "and again"),
            ("assistant", "Second answer."),
        ]
    finally:
        run.stop()
