"""Live: Codex's Plan mode question picker (``request_user_input``) answered from the chat on
the real pinned binary, verified against the answers its rollout records.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import pytest

from lab_widget import FreeText, Reply, Rule, Run, ScriptedModel, ToolUse
from lab_widget.errors import AnswerMismatchWarning
from lab_widget.schema import Answer, DialogAnswer

pytestmark = [pytest.mark.live, pytest.mark.usefixtures("codex_binary")]

DATABASE = {
    "id": "db",
    "header": "Database",
    "question": "Which database should we use?",
    "options": [
        {"label": "SQLite", "description": "a file"},
        {"label": "Postgres", "description": "a server"},
    ],
}
INTERFACE = {
    "id": "ui",
    "header": "Interface",
    "question": "Which interface?",
    "options": [
        {"label": "CLI", "description": "terminal"},
        {"label": "Web", "description": "browser"},
    ],
}


def asking(*questions: dict[str, Any]) -> ScriptedModel:
    call = ToolUse("request_user_input", {"questions": list(questions)})
    return ScriptedModel(
        rules=[Rule("ask me", [Reply(tools=[call]), Reply("Thanks, noted.")])], fallback="ok"
    )


def ask_in_plan_mode(workdir: Path, *questions: dict[str, Any]) -> Run:
    run = Run("codex", cwd=workdir, model=asking(*questions))
    run.send("/plan", ready_timeout=90)
    run.send("ask me")
    assert run.wait(timeout=90) == "question", run.screen()
    return run


def recorded(run: Run) -> list[tuple[list[str], str | None]]:
    [dialog] = [m.dialog for m in run.messages if m.dialog is not None]
    assert dialog.status == "answered" and dialog.answers is not None
    return [(a.selected, a.text) for a in dialog.answers]


def test_plan_mode_question_answered_from_the_chat(lab_home: Path, workdir: Path) -> None:
    run = ask_in_plan_mode(workdir, DATABASE)
    try:
        dialog = run.pending_dialog
        assert dialog is not None and dialog.kind == "question"
        assert dialog.tool_name == "request_user_input"
        assert [o.label for o in dialog.questions[0].options] == ["SQLite", "Postgres"]
        with warnings.catch_warnings():
            warnings.simplefilter("error", AnswerMismatchWarning)
            final = run.answer({"Database": "Postgres"})
        assert (final.status, final.outcome) == ("answered", "Database → Postgres")
        assert recorded(run) == [(["Postgres"], None)]
        assert run.wait(timeout=90) == "idle", run.screen()
        assert run.messages[-1].text == "Thanks, noted."
    finally:
        run.stop()


def test_plan_mode_two_questions_with_a_typed_answer(lab_home: Path, workdir: Path) -> None:
    run = ask_in_plan_mode(workdir, DATABASE, INTERFACE)
    try:
        dialog = run.pending_dialog
        assert dialog is not None and len(dialog.questions) == 2
        # As the widget's form sends it: one answer per question for the dialog's tool id.
        answer = DialogAnswer(
            tool_id=dialog.tool_id,
            answers=[Answer(text="DuckDB, embedded"), Answer(selected=["Web"])],
        )
        with warnings.catch_warnings():
            warnings.simplefilter("error", AnswerMismatchWarning)
            run.answer_dialog(answer)
        assert recorded(run) == [([], "DuckDB, embedded"), (["Web"], None)]
        assert run.wait(timeout=90) == "idle", run.screen()
    finally:
        run.stop()


def test_plan_mode_typed_answer_on_the_last_question(lab_home: Path, workdir: Path) -> None:
    run = ask_in_plan_mode(workdir, DATABASE, INTERFACE)
    try:
        run.answer({"Database": "SQLite", "Interface": FreeText("a notebook widget")})
        assert recorded(run) == [(["SQLite"], None), ([], "a notebook widget")]
    finally:
        run.stop()


def test_default_mode_question_is_refused_not_stuck(lab_home: Path, workdir: Path) -> None:
    with Run("codex", cwd=workdir, model=asking(DATABASE)) as run:
        run.send("ask me", ready_timeout=90)

        def refused(r: Run) -> bool:
            calls = [m.tool for m in r.messages if m.tool and m.tool.name == "request_user_input"]
            return bool(calls) and calls[0].status != "running"

        # Its PreToolUse hook may report the picker for the instant before the refusal.
        assert run.wait_for(refused, timeout=90), run.screen()
        assert run.wait_for(lambda r: r.state == "idle", timeout=60), run.screen()
        [call] = [m for m in run.messages if m.tool and m.tool.name == "request_user_input"]
        assert call.kind == "tool" and call.dialog is None and call.tool is not None
        assert "unavailable in Default mode" in (call.tool.output or "")
        assert run.pending_dialog is None
