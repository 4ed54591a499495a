"""Live: Copilot CLI's own behaviour under tmux against the scripted model: a shell command
that asks first, answered from the chat (approved, then rejected); the model's reasoning
streamed over chat completions read as its thinking.
"""

from __future__ import annotations

from pathlib import Path

from lab_widget import Reply, Rule, Run, ScriptedModel, ToolUse
from lab_widget.scripted import Thinking


def _touch(name: str) -> list[Reply]:
    return [Reply("", tools=[ToolUse("Bash", {"command": f"touch {name}"})]), Reply("Made it.")]


def test_a_shell_approval_answered_from_the_chat_runs_the_command(
    lab_home: Path, workdir: Path
) -> None:
    model = ScriptedModel(
        rules=[Rule("make one", _touch("one.txt")), Rule("make two", _touch("two.txt"))]
    )
    run = Run("copilot", cwd=workdir, model=model)
    try:
        run.send("please make one", ready_timeout=120)
        assert run.wait_for(lambda r: r.pending_dialog is not None, timeout=90), run.screen()
        dialog = run.pending_dialog
        assert dialog is not None and dialog.kind == "approval"
        assert dialog.body == "touch one.txt" and run.state == "question"
        run.answer("Approve")
        assert run.wait_for(lambda r: r.messages[-1].text == "Made it.", timeout=90), run.screen()
        assert run.wait(timeout=30) == "idle"
        assert (workdir / "one.txt").exists()
        tool = next(m for m in run.messages if m.tool is not None)
        assert tool.dialog is not None and tool.dialog.status == "answered"
        assert tool.tool is not None and tool.tool.status == "ok"

        # Reject: Esc cancels the call and ends the turn.
        run.send("please make two")
        assert run.wait_for(lambda r: r.pending_dialog is not None, timeout=90), run.screen()
        run.answer("Reject")
        assert run.wait(timeout=30) == "idle", run.screen()
        assert not (workdir / "two.txt").exists()
        second = [m for m in run.messages if m.tool is not None][-1]
        assert second.dialog is not None and second.dialog.status == "rejected"
        assert any(m.kind == "lifecycle" and m.text == "Interrupted" for m in run.messages)
    finally:
        run.stop()


def test_reasoning_over_chat_completions_reads_as_thinking(lab_home: Path, workdir: Path) -> None:
    reply = Reply(blocks=[Thinking("Let me think about it."), "Thought it through."])
    model = ScriptedModel(rules=[Rule("think", reply)])
    run = Run("copilot", cwd=workdir, model=model)
    try:
        run.send("please think", ready_timeout=120)
        assert run.wait(timeout=90) == "idle", run.screen()
        said = [(m.thinking, m.text) for m in run.messages if m.role == "assistant"]
        assert said == [(True, "Let me think about it."), (False, "Thought it through.")]
        assert run.session.usage.reasoning_tokens > 0
    finally:
        run.stop()
