"""Live: Copilot CLI's ``ask_user`` form answered from the chat on the real pinned binary
(by ``run.answer`` and as the widget's form sends it), verified against the answers its
session log records; a shell command approved always is not asked again.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

from lab_widget import FreeText, Reply, Rule, Run, ScriptedModel, ToolUse
from lab_widget.errors import AnswerMismatchWarning
from lab_widget.schema import Answer, DialogAnswer

SETUP = {
    "message": "A few choices before I start.",
    "requestedSchema": {
        "properties": {
            "db": {
                "type": "string",
                "title": "Database",
                "oneOf": [
                    {"const": "sqlite", "title": "SQLite"},
                    {"const": "postgres", "title": "Postgres"},
                ],
            },
            "name": {"type": "string", "title": "Project name"},
        },
        "required": ["db", "name"],
    },
}
LANGUAGES = {
    "message": "And the languages?",
    "requestedSchema": {
        "properties": {
            "langs": {
                "type": "array",
                "title": "Languages",
                "items": {"type": "string", "enum": ["Python", "Rust", "Go"]},
            },
        },
        "required": ["langs"],
    },
}


def _asks(form: dict[str, Any], then: str) -> list[Reply]:
    return [Reply("", tools=[ToolUse("ask_user", form)]), Reply(then)]


def _recorded(run: Run, index: int) -> list[tuple[list[str], str | None]]:
    dialogs = [m.dialog for m in run.messages if m.dialog is not None and m.kind == "dialog"]
    dialog = dialogs[index]
    assert dialog.status == "answered" and dialog.answers is not None, dialog
    return [(a.selected, a.text) for a in dialog.answers]


def test_ask_user_answered_from_run_answer_and_from_the_form(lab_home: Path, workdir: Path) -> None:
    model = ScriptedModel(
        rules=[
            Rule("set it up", _asks(SETUP, "Set up.")),
            Rule("languages", _asks(LANGUAGES, "Languages noted.")),
        ]
    )
    run = Run("copilot", cwd=workdir, model=model)
    try:
        run.send("please set it up", ready_timeout=120)
        assert run.wait(timeout=90) == "question", run.screen()
        dialog = run.pending_dialog
        assert dialog is not None and dialog.kind == "question", dialog
        assert dialog.tool_name == "ask_user" and dialog.body == SETUP["message"]
        assert [(q.header, [o.label for o in q.options]) for q in dialog.questions] == [
            ("Database", ["SQLite", "Postgres"]),
            ("Project name", []),
        ]
        with warnings.catch_warnings():
            warnings.simplefilter("error", AnswerMismatchWarning)
            final = run.answer({"Database": "Postgres", "Project name": FreeText("lab widget")})
        assert final.status == "answered", final
        assert _recorded(run, 0) == [(["Postgres"], None), ([], "lab widget")]
        assert run.wait_for(lambda r: r.messages[-1].text == "Set up.", timeout=90), run.screen()
        assert model.requests[-1].body["messages"][-1]["content"] == (
            "User responded: db=postgres, name=lab widget"
        )

        # As the widget's form sends it: several options and a typed one, for the tool id.
        run.send("now the languages")
        assert run.wait(timeout=90) == "question", run.screen()
        dialog = run.pending_dialog
        assert dialog is not None and dialog.questions[0].multi_select
        answer = DialogAnswer(
            tool_id=dialog.tool_id, answers=[Answer(selected=["Python", "Go"], text="Zig")]
        )
        with warnings.catch_warnings():
            warnings.simplefilter("error", AnswerMismatchWarning)
            run.answer_dialog(answer)
        assert _recorded(run, 1) == [(["Python", "Go"], "Zig")]
        assert run.wait(timeout=90) == "idle", run.screen()
        assert run.messages[-1].text == "Languages noted."
    finally:
        run.stop()


def _touch(name: str) -> list[Reply]:
    return [Reply("", tools=[ToolUse("Bash", {"command": f"touch {name}"})]), Reply("Made it.")]


def test_approve_always_stops_asking_for_that_command(lab_home: Path, workdir: Path) -> None:
    model = ScriptedModel(
        rules=[Rule("make one", _touch("one.txt")), Rule("make two", _touch("two.txt"))]
    )
    run = Run("copilot", cwd=workdir, model=model)
    try:
        run.send("please make one", ready_timeout=120)
        assert run.wait(timeout=90) == "question", run.screen()
        dialog = run.pending_dialog
        assert dialog is not None and dialog.kind == "approval"
        labels = [o.label for o in dialog.questions[0].options]
        assert labels == ["Approve", "Approve always", "Reject"]
        final = run.answer("Approve always")
        assert final.status == "answered" and final.outcome == "approved always", final
        assert run.wait(timeout=60) == "idle", run.screen()

        # The same command again runs unasked: no dialog, the file is made.
        run.send("please make two")
        assert run.wait(timeout=60) == "idle", run.screen()
        assert (workdir / "one.txt").exists() and (workdir / "two.txt").exists()
        dialogs = [m.dialog for m in run.messages if m.dialog is not None]
        assert [(d.kind, d.status) for d in dialogs] == [("approval", "answered")]
    finally:
        run.stop()


def _plans(summary: str) -> list[Reply]:
    return [Reply("", tools=[ToolUse("exit_plan_mode", {"summary": summary})]), Reply("Planned.")]


def test_plan_approved_and_rejected_from_the_chat(lab_home: Path, workdir: Path) -> None:
    model = ScriptedModel(
        rules=[
            Rule("plan one", _plans("- touch a")),
            Rule("plan two", _plans("- touch b")),
            Rule("smaller steps", Reply("Revised.")),
        ],
        fallback="ok",
    )
    run = Run("copilot", cwd=workdir, model=model)
    try:
        # A slash command is confirmed by nothing: the first message is a prompt, whose
        # hook says the TUI takes input (an Enter sent earlier is dropped).
        run.send("hello", ready_timeout=120)
        assert run.wait(timeout=60) == "idle", run.screen()
        run.send("/plan")
        run.send("please plan one")
        assert run.wait(timeout=90) == "question", run.screen()
        dialog = run.pending_dialog
        assert dialog is not None and (dialog.kind, dialog.body) == ("plan", "- touch a")
        assert dialog.tool_name == "exit_plan_mode"
        final = run.answer("approve")
        assert (final.status, final.outcome) == ("answered", "approved"), final
        # Approved, the CLI leaves plan mode and the model goes on in the same turn.
        assert run.wait_for(lambda r: r.messages[-1].text == "Planned.", timeout=90), run.screen()
        assert run.wait(timeout=60) == "idle", run.screen()

        run.send("/plan")
        run.send("please plan two")
        assert run.wait(timeout=90) == "question", run.screen()
        final = run.answer("reject", feedback="smaller steps")
        assert final.status == "rejected", final
        assert run.wait_for(lambda r: r.messages[-1].text == "Revised.", timeout=90), run.screen()
        [first, second] = [m for m in run.messages if m.kind == "dialog"]
        assert first.tool is not None and first.tool.status == "ok"
        assert second.tool is not None and second.tool.status == "error"
    finally:
        run.stop()
