"""Live: dialogs of the real pinned Claude Code answered from Python, verified in the transcript."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import pytest

from lab_widget import FreeText, Reply, Rule, Run, ScriptedModel, ToolUse
from lab_widget.errors import AnswerMismatchWarning, InvalidAnswerError, NoDialogError
from tests.support.questions import DATABASE, FEATURES


def asking(*questions: dict[str, Any]) -> ScriptedModel:
    turn = [
        Reply(tools=[ToolUse("AskUserQuestion", {"questions": list(questions)})]),
        Reply("Thanks, noted."),
    ]
    return ScriptedModel(rules=[Rule("ask", turn)], fallback="ok")


def ask(workdir: Path, *questions: dict[str, Any]) -> Run:
    run = Run("claude-code", cwd=workdir, model=asking(*questions))
    run.send("ask me")
    assert run.wait(timeout=60) == "question", run.screen()
    assert run.pending_dialog is not None
    return run


def recorded(run: Run) -> list[tuple[list[str], str | None]]:
    [dialog] = [m.dialog for m in run.messages if m.dialog is not None]
    assert dialog.answers is not None
    return [(a.selected, a.text) for a in dialog.answers]


def finish(run: Run) -> None:
    assert run.wait(timeout=60) == "idle"
    assert run.messages[-1].text == "Thanks, noted."


def test_single_select(lab_home: Path, workdir: Path) -> None:
    run = ask(workdir, DATABASE)
    try:
        dialog = run.pending_dialog
        assert dialog is not None and dialog.kind == "question"
        assert [o.label for o in dialog.questions[0].options] == ["SQLite", "Postgres"]
        assert run.wait_for(lambda r: bool(r.messages) and r.messages[-1].kind == "dialog", 10)
        with warnings.catch_warnings():
            warnings.simplefilter("error", AnswerMismatchWarning)
            final = run.answer({"Database": "Postgres"})
        assert final.status == "answered" and final.outcome == "Database → Postgres"
        assert recorded(run) == [(["Postgres"], None)]
        finish(run)
    finally:
        run.stop()


def test_multi_select_two_picks(lab_home: Path, workdir: Path) -> None:
    run = ask(workdir, FEATURES)
    try:
        run.answer({"Features": ["Auth", "Search"]})
        assert recorded(run) == [(["Auth", "Search"], None)]
        finish(run)
    finally:
        run.stop()


def test_free_text(lab_home: Path, workdir: Path) -> None:
    run = ask(workdir, DATABASE)
    try:
        run.answer({"Which database should we use?": FreeText("DuckDB, embedded")})
        assert recorded(run) == [([], "DuckDB, embedded")]
        finish(run)
    finally:
        run.stop()


def test_two_questions_in_one_form(lab_home: Path, workdir: Path) -> None:
    run = ask(workdir, DATABASE, FEATURES)
    try:
        final = run.answer({"Database": "SQLite", "Features": ["Auth", "Export"]})
        assert final.outcome == "Database → SQLite; Features → Auth, Export"
        assert recorded(run) == [(["SQLite"], None), (["Auth", "Export"], None)]
        finish(run)
    finally:
        run.stop()


def test_invalid_and_stale_answers_type_nothing(lab_home: Path, workdir: Path) -> None:
    run = ask(workdir, DATABASE)
    try:
        with pytest.raises(InvalidAnswerError, match="not an option"):
            run.answer({"Database": "Oracle"})
        with pytest.raises(InvalidAnswerError, match="one answer"):
            run.answer({"Database": ["SQLite", "Postgres"]})
        with pytest.raises(InvalidAnswerError, match="no answer"):
            run.answer({})
        assert run.state == "question"  # nothing reached the picker
        stale = run.pending_dialog
        run.answer({"Database": "SQLite"})
        with pytest.raises(NoDialogError):
            run.answer({"Database": "Postgres"})
        assert recorded(run) == [(["SQLite"], None)]
        assert stale is not None
    finally:
        run.stop()


def planning(plan: str) -> ScriptedModel:
    turn = [Reply(tools=[ToolUse("ExitPlanMode", {"plan": plan})]), Reply("Plan handled.")]
    return ScriptedModel(rules=[Rule("plan", turn)], fallback="Feedback received.")


def test_plan_approve(lab_home: Path, workdir: Path) -> None:
    with Run(
        "claude-code",
        cwd=workdir,
        model=planning("# Plan\n\n1. Write app.py"),
        permission_mode="plan",
    ) as run:
        run.send("make a plan")
        assert run.wait(timeout=60) == "question"
        dialog = run.pending_dialog
        assert dialog is not None and dialog.kind == "plan"
        assert [o.label for o in dialog.questions[0].options] == ["Approve", "Reject"]
        # Whichever source reported it first, the plan's text is there.
        assert run.wait_for(lambda r: bool(r.messages) and r.messages[-1].kind == "dialog", 10)
        assert run.pending_dialog is not None
        assert run.pending_dialog.body == "# Plan\n\n1. Write app.py"
        final = run.answer("approve")
        assert (final.status, final.outcome) == ("answered", "approved")
        assert run.wait(timeout=60) == "idle"


def test_plan_reject_with_feedback(lab_home: Path, workdir: Path) -> None:
    model = planning("# Plan\n\n1. Delete everything")
    with Run("claude-code", cwd=workdir, model=model, permission_mode="plan") as run:
        run.send("make a plan")
        assert run.wait(timeout=60) == "question"
        final = run.answer("reject", feedback="Keep the data, please.")
        assert final.status == "rejected"
        assert run.wait(timeout=60) == "idle"
        assert any(m.role == "user" and m.text == "Keep the data, please." for m in run.messages)
        assert any("Keep the data" in r.user_text for r in model.scripted_requests)


def permission_run(workdir: Path) -> Run:
    turn = [
        Reply(
            tools=[
                ToolUse(
                    "Bash", {"command": "touch made-by-agent.txt", "description": "Create a file"}
                )
            ]
        ),
        Reply("Done."),
    ]
    model = ScriptedModel(rules=[Rule("run", turn)], fallback="ok")
    # "default" asks before each command: the permission prompt appears.
    run = Run("claude-code", cwd=workdir, model=model, permission_mode="default")
    run.send("run it")
    assert run.wait(timeout=60) == "question", run.screen()
    dialog = run.pending_dialog
    assert dialog is not None and dialog.kind == "approval" and dialog.tool_name == "Bash"
    assert "touch made-by-agent.txt" in dialog.questions[0].text
    return run


def test_tool_approval_approve(lab_home: Path, workdir: Path) -> None:
    run = permission_run(workdir)
    try:
        final = run.answer("approve")
        assert (final.kind, final.status, final.outcome) == ("approval", "answered", "approved")
        assert run.wait(timeout=60) == "idle"
        assert (workdir / "made-by-agent.txt").exists()
        [message] = [m for m in run.messages if m.tool and m.tool.name == "Bash"]
        assert message.kind == "dialog" and message.tool and message.tool.status == "ok"
    finally:
        run.stop()


def test_tool_approval_reject(lab_home: Path, workdir: Path) -> None:
    run = permission_run(workdir)
    try:
        final = run.answer("reject")
        assert (final.status, final.outcome) == ("rejected", "rejected")
        assert run.wait(timeout=60) == "idle"
        assert not (workdir / "made-by-agent.txt").exists()
    finally:
        run.stop()


def delegating(command: str) -> ScriptedModel:
    sub_turn = [
        Reply("Making it.", tools=[ToolUse("Bash", {"command": command, "description": "Make"})]),
        Reply(tools=[ToolUse("SubagentHandback", {"message": "Made the file."})]),
    ]
    agent = {
        "description": "Make a file",
        "prompt": "make the file",
        "subagent_type": "general-purpose",
    }
    main_turn = [
        Reply("I will ask a sub-agent.", tools=[ToolUse("Agent", agent)]),
        Reply("Waiting for the sub-agent."),
        Reply("The sub-agent reported."),
    ]
    return ScriptedModel(
        rules=[Rule("make the file", sub_turn), Rule("please delegate", main_turn)]
    )


def subagent_permission(workdir: Path) -> Run:
    model = delegating("touch made-by-subagent.txt")
    run = Run("claude-code", cwd=workdir, model=model, permission_mode="default")
    run.send("please delegate")
    assert run.wait(timeout=90) == "question", run.screen()
    dialog = run.pending_dialog
    assert dialog is not None and dialog.kind == "approval" and dialog.tool_name == "Bash"
    assert "touch made-by-subagent.txt" in dialog.questions[0].text
    assert dialog.body.startswith("Asked by the general-purpose sub-agent.")
    return run


def nested_dialog(run: Run) -> Any:
    agent = next(m for m in run.messages if m.tool is not None and m.tool.name == "Agent")
    assert agent.tool is not None
    [message] = [m for m in run.subagents[agent.tool.id] if m.tool and m.tool.name == "Bash"]
    assert message.parent_tool_id == agent.tool.id
    return message


def test_subagent_permission_approved_from_the_chat(lab_home: Path, workdir: Path) -> None:
    run = subagent_permission(workdir)
    try:
        final = run.answer("approve")
        assert (final.kind, final.status, final.outcome) == ("approval", "answered", "approved")
        assert run.wait(timeout=90) == "idle", run.screen()
        assert (workdir / "made-by-subagent.txt").exists()
        message = nested_dialog(run)
        assert message.kind == "dialog" and message.dialog.outcome == "approved"
        assert message.tool.status == "ok"
    finally:
        run.stop()


def test_subagent_permission_rejected_from_the_chat(lab_home: Path, workdir: Path) -> None:
    run = subagent_permission(workdir)
    try:
        final = run.answer("reject")
        assert (final.status, final.outcome) == ("rejected", "rejected")
        assert not (workdir / "made-by-subagent.txt").exists()
        message = nested_dialog(run)
        assert message.dialog.status == "rejected"
    finally:
        run.stop()


def test_tool_approval_always_names_its_scope(lab_home: Path, workdir: Path) -> None:
    run = permission_run(workdir)
    try:
        dialog = run.pending_dialog
        assert dialog is not None
        always = dialog.questions[0].options[1]
        assert always.label == "Approve always" and always.description.startswith("Run it, and ")
        final = run.answer("approve_always")
        assert (final.status, final.outcome) == ("answered", "approved always"), final
        assert final.answers is not None and final.answers[0].selected == ["Approve always"]
        assert run.wait(timeout=60) == "idle"
        assert (workdir / "made-by-agent.txt").exists()
    finally:
        run.stop()
