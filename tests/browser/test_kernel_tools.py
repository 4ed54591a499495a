"""Browser: the agent works in the notebook's own kernel. In a real JupyterLab in Debian's
Chromium, a run started with ``kernel=True`` (the real pinned Claude Code, driven by the
scripted model) asks to run code in the kernel; the widget's form shows the code; Reject
leaves the kernel untouched, Approve runs it there: the variable exists for the next cell and
the call's output shows in the chat. Asked to, the agent inserts a cell below the chat. A run
started without the tools gets them from the chat header's switch, its conversation kept.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import lab_widget
from tests.support.browser import open_chat, run_cell, send, wait_text

CODE = "x = len(df)"
INSERTED = "df.describe()"
CELLS = ".jp-Notebook .jp-Cell"

CELL = f"""
import tempfile
import pandas as pd
from lab_widget import Reply, Rule, Run, ScriptedModel, ToolUse

df = pd.DataFrame({{"a": range(7)}})
call = ToolUse("mcp__kernel__run_python", {{"code": {CODE + chr(10) + "print('rows:', x)"!r}}})
turn = [Reply("Let me count them in your kernel.", tools=[call]), Reply("Done: x holds it.")]
cell = ToolUse("mcp__kernel__insert_cell", {{"code": {INSERTED!r}}})
keep = [Reply(tools=[cell]), Reply("It is below the chat.")]
model = ScriptedModel(
    rules=[Rule("again", turn), Rule("count the rows", turn), Rule("keep it", keep)]
)
run = Run("claude-code", cwd=tempfile.mkdtemp(prefix="browser-work-"), model=model, kernel=True)
run
"""

LOOK = "print('x is', globals().get('x', 'unset'), '({})')"
"""A cell the user runs to look at ``x`` (the mark tells one look's output from another)."""


def answer(page: Any, choice: str, code: str = CODE) -> str:
    """Answer the form showing the kernel call with ``choice``; the outcome the chat shows."""
    form = page.locator(".lw-chat .lw-dialog-form")
    form.wait_for(timeout=120_000)
    assert page.locator(".lw-chat .lw-state").get_attribute("data-state") == "question"
    assert code in form.inner_text()
    options = [o.get_attribute("value") for o in form.locator("input[type='radio']").all()]
    assert options == ["Approve", "Approve for this run", "Reject"], options
    form.locator(f"input[value='{choice}']").check()
    page.click(".lw-chat .lw-dialog-submit")
    outcome = page.locator(".lw-chat .lw-dialog[data-status] .lw-dialog-outcome").last
    outcome.wait_for(timeout=90_000)
    page.wait_for_selector(".lw-chat .lw-state[data-state='idle']", timeout=120_000)
    return str(outcome.inner_text())


def look(page: Any, index: int) -> str:
    """Run the look cell ``index``; what it printed."""
    run_cell(page, index)
    out = page.locator(CELLS).nth(index).locator(".jp-OutputArea-output")
    out.first.wait_for(timeout=60_000)
    return str(out.first.inner_text())


def test_kernel_code_is_rejected_then_approved_from_the_form(
    tmp_path: Path, lab_home: Path
) -> None:
    with open_chat(tmp_path, lab_home, CELL, LOOK.format(1), LOOK.format(2)) as page:
        send(page, "count the rows of df into x")
        assert "rejected" in answer(page, "Reject")
        assert look(page, 1).strip() == "x is unset (1)"

        send(page, "please try that again")
        assert "approved" in answer(page, "Approve")
        wait_text(page, "Done: x holds it.", timeout=120_000)
        assert look(page, 2).strip() == "x is 7 (2)"

        [run] = lab_widget.runs()
        cards = [m.tool for m in run.messages if m.tool is not None]
        assert [t.status for t in cards][-1] == "ok" and "rows: 7" in (cards[-1].output or "")

        # A cell for the user: inserted right below the chat's, not run.
        before = page.locator(CELLS).count()
        send(page, "keep it in a cell")
        assert "approved" in answer(page, "Approve", INSERTED)
        page.wait_for_function(
            "([sel, n]) => document.querySelectorAll(sel).length === n", arg=[CELLS, before + 1]
        )
        editor = page.locator(CELLS).nth(1).locator(".jp-InputArea-editor")
        assert editor.inner_text().strip() == INSERTED
        wait_text(page, "It is below the chat.", timeout=120_000)
        run.stop()


SWITCH_CELL = CELL.replace(
    "rules=[", 'rules=[Rule("hello", [Reply("Hello: what shall we look at?")]), '
).replace("kernel=True)", "kernel=False)")


def test_the_header_switch_gives_a_running_agent_the_kernels_tools(
    tmp_path: Path, lab_home: Path
) -> None:
    with open_chat(tmp_path, lab_home, SWITCH_CELL, LOOK.format(1)) as page:
        switch = page.locator(".lw-chat .lw-kernel-switch").first
        assert not switch.is_checked()
        send(page, "hello")
        wait_text(page, "Hello: what shall we look at?", timeout=120_000)
        page.wait_for_selector(".lw-chat .lw-state[data-state='idle']", timeout=60_000)

        # The agent starts again with the tools; what was said stays, above.
        page.locator(".lw-chat .lw-kernel-switch:not(:disabled)").first.click()
        page.wait_for_selector(".lw-chat .lw-kernel-switch:checked", timeout=120_000)
        page.wait_for_selector(".lw-chat .lw-state[data-state='idle']", timeout=120_000)
        past = page.locator(".lw-chat .lw-past-conversation").first
        past.locator("summary").click()
        said = past.locator(".lw-msg", has_text="Hello: what shall we look at?")
        said.wait_for(timeout=30_000)

        send(page, "count the rows of df into x")
        assert "approved" in answer(page, "Approve")
        wait_text(page, "Done: x holds it.", timeout=120_000)
        assert look(page, 1).strip() == "x is 7 (1)"
        [run] = lab_widget.runs()
        run.stop()
