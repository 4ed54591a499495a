"""Browser: Copilot CLI's ``ask_user`` form answered from the widget's form in a real
JupyterLab in Debian's Chromium, against the real pinned CLI."""

from __future__ import annotations

from pathlib import Path

import lab_widget
from tests.support.browser import open_chat, send, wait_text

CELL = """
import tempfile
from lab_widget import Reply, Rule, Run, ScriptedModel, ToolUse

FORM = {"message": "A few choices.", "requestedSchema": {"properties": {
    "db": {"type": "string", "title": "Database", "enum": ["SQLite", "Postgres"]},
    "name": {"type": "string", "title": "Project name"},
    "langs": {"type": "array", "title": "Languages",
              "items": {"type": "string", "enum": ["Python", "Rust", "Go"]}},
}, "required": ["db", "name", "langs"]}}
model = ScriptedModel(rules=[Rule("ask", [Reply("", tools=[ToolUse("ask_user", FORM)]),
                                          Reply("Thanks, noted.")])])
run = Run("copilot", cwd=tempfile.mkdtemp(prefix="browser-work-"), model=model)
run
"""


def test_answer_copilots_ask_user_form(tmp_path: Path, lab_home: Path) -> None:
    with open_chat(tmp_path, lab_home, CELL) as page:
        send(page, "ask me")
        form = page.locator(".lw-chat .lw-dialog-form")
        form.wait_for(timeout=120_000)
        assert page.locator(".lw-chat .lw-state").get_attribute("data-state") == "question"
        form.locator("fieldset.lw-question[data-header='Database'] input[value='Postgres']").check()
        name = form.locator("fieldset.lw-question[data-header='Project name'] .lw-freetext")
        name.fill("lab widget")
        languages = form.locator("fieldset.lw-question[data-header='Languages']")
        languages.locator("input[value='Python']").check()
        languages.locator("input[value='Go']").check()
        page.click(".lw-chat .lw-dialog-submit")
        outcome = page.locator(".lw-chat .lw-dialog[data-status='answered'] .lw-dialog-outcome")
        outcome.wait_for(timeout=90_000)
        assert "Database → Postgres" in outcome.inner_text()
        wait_text(page, "Thanks, noted.")
        [run] = lab_widget.runs()
        [dialog] = [m.dialog for m in run.messages if m.dialog is not None]
        assert dialog.answers is not None
        assert [(a.selected, a.text) for a in dialog.answers] == [
            (["Postgres"], None),
            ([], "lab widget"),
            (["Python", "Go"], None),
        ]
        run.stop()
