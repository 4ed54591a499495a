"""Browser: the chat as part of the notebook, in a real JupyterLab and a real Jupyter
Notebook 7 in Debian's Chromium, with the real pinned CLI on the scripted model: a code block
inserted as a cell and run, ``@df`` completed from the kernel and sent described, earlier
conversations kept after a clear, and the run's export opened in JupyterLab."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any

import nbformat

from lab_widget._install import tools_dir
from tests.support.browser import (
    Lab,
    chromium_page,
    jupyter_lab,
    jupyter_notebook,
    run_cell,
    run_first_cell,
    send,
    wait_text,
    write_notebook,
)
from tests.support.paths import ROOT

ARTIFACTS = ROOT / "build" / "test-artifacts"

CELL = """
import tempfile
import pandas as pd
from lab_widget import Reply, Rule, Run, ScriptedModel, ToolUse

df = pd.DataFrame({"city": ["Oslo", "Lima", "Pune"], "temp": [4.5, 19.0, 31.2]})
QUESTIONS = [
    {"question": "Which database should we use?", "header": "Database", "multiSelect": False,
     "options": [{"label": "SQLite", "description": "A file"},
                 {"label": "Postgres", "description": "A server"}]},
]
model = ScriptedModel(
    rules=[
        Rule("code", "Here is the code:\\n\\n```python\\nprint(6 * 7)\\n```"),
        Rule("summarise", "Three cities."),
        Rule("hello", "Hello from the scripted model."),
        Rule("ask", [Reply(tools=[ToolUse("AskUserQuestion", {"questions": QUESTIONS})]),
                     Reply("Thanks, noted.")]),
    ],
    fallback="ok",
)
run = Run("claude-code", cwd=tempfile.mkdtemp(prefix="browser-work-"), model=model)
run
"""

EXPORT_CELL = """
print(run.export("record.ipynb").name, run.export("record.html").name)
"""

CELLS = ".jp-Notebook .jp-Cell"


def idle(page: Any) -> None:
    page.wait_for_selector(".lw-chat .lw-state[data-state='idle']", timeout=90_000)


@contextmanager
def open_chat(
    tmp_path: Path, lab_home: Path, app: str, cells: list[str]
) -> Iterator[tuple[Any, Lab]]:
    """A notebook in JupyterLab (``app="lab"``) or Notebook 7, its first cell's chat idle."""
    root = tmp_path / "notebooks"
    root.mkdir()
    write_notebook(root / "chat.ipynb", cells)
    env = {"LAB_WIDGET_HOME": str(lab_home), "LAB_WIDGET_TOOLS": str(tools_dir())}
    server: AbstractContextManager[Lab] = (
        jupyter_lab(root, env) if app == "lab" else jupyter_notebook(root, env)
    )
    with server as lab, chromium_page() as page:
        page.goto(lab.notebook_url("chat.ipynb"))
        run_first_cell(page)
        idle(page)
        yield page, lab


def cell_text(page: Any, index: int) -> str:
    text: str = page.locator(CELLS).nth(index).locator(".jp-InputArea-editor").inner_text()
    return text.strip()


def insert_and_run_code(page: Any) -> None:
    """Ask for code, insert its block as a cell below the chat, run it, see its output."""
    before = page.locator(CELLS).count()
    send(page, "show me some code")
    wait_text(page, "Here is the code")
    block = page.locator(".lw-chat .lw-msg[data-role='assistant'] .lw-codeblock").last
    block.hover()
    assert block.locator(".lw-code-copy").is_visible()
    block.locator(".lw-code-insert").click()
    page.wait_for_function(
        "([sel, n]) => document.querySelectorAll(sel).length === n", arg=[CELLS, before + 1]
    )
    assert cell_text(page, 1) == "print(6 * 7)"  # right below the chat's cell
    run_cell(page, 1)
    output = page.locator(CELLS).nth(1).locator(".jp-OutputArea-output")
    output.wait_for(timeout=60_000)
    page.wait_for_function("(el) => el.innerText.includes('42')", arg=output.element_handle())
    idle(page)


def shot(page: Any, tmp_path: Path, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(tmp_path / name), full_page=True)
    shutil.copy(tmp_path / name, ARTIFACTS / name)


def test_jupyterlab_code_cells_mentions_earlier_conversations_and_export(
    tmp_path: Path, lab_home: Path
) -> None:
    with open_chat(tmp_path, lab_home, "lab", [CELL, EXPORT_CELL]) as (page, lab):
        insert_and_run_code(page)

        # @df: completed from the kernel's variables, sent described.
        box = page.locator(".lw-chat .lw-input")
        box.click()
        box.press_sequentially("summarise @d")
        item = page.locator(".lw-chat .lw-mentions .lw-complete-item[data-name='df']")
        item.wait_for(timeout=30_000)
        assert "DataFrame" in item.inner_text() and "3 × 2" in item.inner_text()
        box.press("Tab")
        assert box.input_value() == "summarise @df "
        box.press("Enter")
        wait_text(page, "Three cities.")
        sent = page.locator(".lw-chat .lw-msg[data-role='user']").last
        assert sent.locator(".lw-bubble > p").first.inner_text() == "summarise df"
        sent.locator("details.lw-context > summary").click()  # the descriptions, folded
        described = sent.locator("details.lw-context").inner_text()
        assert "df: pandas DataFrame, 3 rows × 2 columns" in described
        assert "Lima" in described
        idle(page)

        # A new conversation keeps the earlier one, collapsed, expandable.
        page.click(".lw-chat .lw-clear")
        wait_text(page, "/clear")
        label = page.locator(".lw-chat .lw-past-label")
        label.wait_for(timeout=30_000)
        assert re.fullmatch(r"Earlier conversation, \d+ messages", label.inner_text().strip())
        assert page.locator(".lw-chat .lw-past-log .lw-msg").count() == 0  # collapsed
        label.click()
        page.wait_for_function(
            "() => document.querySelector('.lw-chat .lw-past-log').innerText"
            ".includes('Three cities.')"
        )
        code = page.locator(".lw-chat .lw-past-log .lw-codeblock", has_text="print(6 * 7)")
        assert code.locator(".lw-code-copy").count() == 1
        shot(page, tmp_path, "notebook-chat.png")
        idle(page)

        # The run's record, exported by the kernel, opens in JupyterLab.
        run_cell(page, 2)
        output = page.locator(CELLS).nth(2).locator(".jp-OutputArea-output")
        output.wait_for(timeout=60_000)
        page.wait_for_function(
            "(el) => el.innerText.includes('record.ipynb record.html')",
            arg=output.element_handle(),
        )
        page.goto(lab.notebook_url("record.ipynb"))
        # The workspace reopens the chat's notebook too, in a tab behind this one.
        record = page.locator(".jp-NotebookPanel:visible .jp-Notebook")
        record.locator(".jp-MarkdownCell .jp-RenderedMarkdown").first.wait_for(timeout=60_000)
        page.wait_for_function(
            "(el) => el.innerText.includes('Three cities.')", arg=record.element_handle()
        )
        assert "Conversation 1 of 2" in record.inner_text()
        saved = nbformat.read(lab.root / "record.ipynb", as_version=4)
        nbformat.validate(saved)
        assert any(c.source.startswith("## Conversation 2 of 2") for c in saved.cells)
        editors = record.locator(".jp-CodeCell .jp-InputArea-editor").all_inner_texts()
        assert "print(6 * 7)" in [t.strip() for t in editors]
        assert record.locator("script").count() == 0
        shot(page, tmp_path, "exported-notebook.png")

        # The HTML page runs nothing and shows the same record.
        page.goto((lab.root / "record.html").as_uri())
        assert page.evaluate("() => document.scripts.length") == 0
        assert "Three cities." in page.inner_text("body")
        assert "print(6 * 7)" in page.inner_text("body")


def test_notebook7_chat_dialog_form_and_code_cell(tmp_path: Path, lab_home: Path) -> None:
    with open_chat(tmp_path, lab_home, "notebook", [CELL]) as (page, _lab):
        assert page.locator(".lw-chat .lw-provider").inner_text().strip() == "Claude Code"
        send(page, "hello")
        wait_text(page, "Hello from the scripted model.")
        idle(page)

        send(page, "ask me")
        form = page.locator(".lw-chat .lw-dialog-form")
        form.wait_for(timeout=60_000)
        form.locator("fieldset.lw-question[data-header='Database'] input[value='Postgres']").check()
        page.click(".lw-chat .lw-dialog-submit")
        outcome = page.locator(".lw-chat .lw-dialog[data-status='answered'] .lw-dialog-outcome")
        outcome.wait_for(timeout=90_000)
        assert "Database → Postgres" in outcome.inner_text()
        wait_text(page, "Thanks, noted.")
        idle(page)

        insert_and_run_code(page)
        shot(page, tmp_path, "notebook7-chat.png")
