"""Live: the real pinned Qwen Code under real tmux, against the scripted model: a chat, a
shell call with its result, a confirmation answered once then always, a clear into a new
session, each read back with its usage as billed.
"""

from __future__ import annotations

from pathlib import Path

from lab_widget import Reply, Rule, Run, ScriptedModel, ToolUse


def script() -> ScriptedModel:
    make = [
        Reply("Creating it.", tools=[ToolUse("Bash", {"command": "touch made.txt"})]),
        Reply("The file is there."),
    ]
    return ScriptedModel(
        rules=[
            Rule(
                "use a tool",
                [
                    Reply(
                        "Let me check.", tools=[ToolUse("Bash", {"command": "echo tool-output-42"})]
                    ),
                    Reply("The tool said tool-output-42."),
                ],
            ),
            Rule("make a file", make),
        ],
        sequence=["Hello from the scripted model.", "Second answer.", "Third answer."],
    )


def test_chat_tool_and_usage_as_billed(lab_home: Path, workdir: Path) -> None:
    model = script()
    with Run("qwen-code", cwd=workdir, model=model) as run:
        run.send("hello")
        assert run.wait(timeout=120) == "idle", run.screen()
        assert [(m.role, m.text) for m in run.messages] == [
            ("user", "hello"),
            ("assistant", "Hello from the scripted model."),
        ]
        # Qwen Code's context parts (<system-reminder>) are not the user's words.
        assert [r.user_text for r in model.scripted_requests] == ["hello"]
        run.send("please use a tool")
        assert run.wait_for(
            lambda r: r.messages[-1].text == "The tool said tool-output-42.", timeout=90
        ), run.screen()
        tool = next(m.tool for m in run.messages if m.tool is not None)
        assert tool.name == "run_shell_command"
        assert tool.input == {"command": "echo tool-output-42"}
        assert (tool.status, tool.output) == ("ok", "tool-output-42")
        assert run.wait(timeout=60) == "idle", run.screen()
        # One usage figure a request the scripted model answered, none counted twice.
        summary = run.session
        billed = len(model.requests)
        assert billed == 3 and summary.models[0].requests == billed
        assert summary.usage.output_tokens > 0 and summary.usage.input_tokens > 0
        assert summary.model and summary.cwd == str(workdir)


def test_approval_once_then_always_from_the_chat(lab_home: Path, workdir: Path) -> None:
    with Run("qwen-code", cwd=workdir, model=script()) as run:
        run.send("please make a file")
        assert run.wait_for(lambda r: r.pending_dialog is not None, timeout=120), run.screen()
        dialog = run.pending_dialog
        assert dialog is not None and dialog.kind == "approval"
        assert dialog.tool_name == "run_shell_command" and "touch made.txt" in dialog.body
        assert run.state == "question"
        assert run.answer("approve").status == "answered"
        assert run.wait(timeout=90) == "idle", run.screen()
        assert (workdir / "made.txt").exists()
        assert run.messages[-1].text == "The file is there."
        (workdir / "made.txt").unlink()
        run.send("please make a file")
        assert run.wait_for(lambda r: r.pending_dialog is not None, timeout=90), run.screen()
        final = run.answer("approve_always")
        assert final.status == "answered", final
        assert run.wait(timeout=90) == "idle", run.screen()
        assert (workdir / "made.txt").exists()
        (workdir / "made.txt").unlink()
        # Always: the same command root runs unasked.
        run.send("please make a file")
        assert run.wait_for(lambda r: (workdir / "made.txt").exists(), timeout=90), run.screen()
        assert run.wait(timeout=90) == "idle", run.screen()
        answered = [m.dialog for m in run.messages if m.dialog is not None]
        assert [d.status for d in answered] == ["answered", "answered"]
        assert run.pending_dialog is None


def test_clear_opens_a_new_session_read_back(lab_home: Path, workdir: Path) -> None:
    with Run("qwen-code", cwd=workdir, model=script()) as run:
        run.send("hello")
        assert run.wait(timeout=120) == "idle", run.screen()
        first = run.transcript_id
        first_usage = run.session.usage
        run.send("/clear")
        run.send("again")
        assert run.wait_for(
            lambda r: r.transcript_id != first and r.messages[-1].text == "Second answer.",
            timeout=90,
        ), run.screen()
        assert [(m.role, m.text) for m in run.messages] == [
            ("user", "/clear"),
            ("user", "again"),
            ("assistant", "Second answer."),
        ]
        # The new epoch counts its own response only.
        assert run.session.models[0].requests == 1
        past = {c.session.transcript_id: c.session for c in run.history()}
        assert first in past and past[first].usage == first_usage
