"""Browser: the new user's path through the quickstart, in a real JupyterLab in Debian's
Chromium over the real pinned Claude Code on the scripted model: the whole notebook run
(Run All) to its end, its chat drawn; the cell that starts the run run again, twice (the
second time it stops the agent its first time started, and says so); then the kernel
restarted from the menu, which leaves that agent's scripted model gone with it: the next
``runs()`` stops the agent and says why, instead of listing a run that would spin."""

from __future__ import annotations

import shutil
import warnings
from pathlib import Path
from typing import Any

import pytest

import lab_widget
from lab_widget import RunStoppedWarning
from lab_widget._install import tools_dir
from tests.support.browser import (
    KERNEL_IDLE,
    chromium_page,
    jupyter_lab,
    run_all_cells,
    run_cell,
)
from tests.support.paths import ROOT
from tests.support.waiting import retry_until

RUN_CELL = 3
"""The quickstart's ``run = Run(...)`` cell (markdown cells count)."""


def menu(page: Any, top: str, item: str) -> None:
    """Choose ``item`` in JupyterLab's ``top`` menu, as a user does."""
    page.locator(".lm-MenuBar-itemLabel", has_text=top).first.click()
    page.locator(".lm-Menu-itemLabel", has_text=item).first.click()


def cell_output(page: Any, index: int) -> Any:
    return page.locator(".jp-Notebook .jp-Cell").nth(index).locator(".jp-OutputArea")


def live_runs() -> list[lab_widget.Run]:
    return [r for r in lab_widget.runs() if r.state != "ended"]


@pytest.mark.timeout(600)
def test_the_quickstart_top_to_bottom_a_rerun_cell_and_a_kernel_restart(
    tmp_path: Path, lab_home: Path
) -> None:
    root = tmp_path / "notebooks"
    root.mkdir()
    shutil.copy(ROOT / "notebooks" / "quickstart.ipynb", root / "quickstart.ipynb")
    env = {
        "LAB_WIDGET_HOME": str(lab_home),
        "LAB_WIDGET_TOOLS": str(tools_dir()),
        "LAB_WIDGET_QUICKSTART_SCRIPTED": "1",
    }
    with jupyter_lab(root, env) as lab, chromium_page() as page:
        page.goto(lab.notebook_url("quickstart.ipynb"))
        page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=60_000)
        page.wait_for_function(KERNEL_IDLE, timeout=120_000)
        run_all_cells(page)
        # Run All stops at the first error: the last cell's output means every one ran.
        cells = page.locator(".jp-Notebook .jp-Cell")
        last = cell_output(page, cells.count() - 1)
        last.get_by_text("'ended'").wait_for(timeout=240_000)
        # Its chat: the conversation the quickstart cleared folded above the new one.
        chat = page.locator(".lw-chat").first
        chat.locator(".lw-state[data-state='ended']").wait_for(timeout=30_000)
        assert "Earlier conversation" in chat.inner_text() and "/clear" in chat.inner_text()
        assert live_runs() == []

        # The run cell again: a new agent. Once more: the one before is stopped, and said so.
        run_cell(page, RUN_CELL)
        page.wait_for_function(KERNEL_IDLE, timeout=120_000)
        [first] = live_runs()
        run_cell(page, RUN_CELL)
        said = cell_output(page, RUN_CELL).get_by_text("an earlier execution of this cell")
        said.wait_for(timeout=120_000)
        page.wait_for_function(KERNEL_IDLE, timeout=120_000)
        assert first.wait_for(lambda r: r.state == "ended", timeout=30)
        [second] = live_runs()
        assert second.id != first.id

        # A restart takes the scripted model the agent talks to: nothing could answer it.
        menu(page, "Kernel", "Restart Kernel")
        page.locator(".jp-Dialog .jp-mod-accept").click()
        said_why: list[str] = []

        def stopped() -> bool:
            # The old kernel's process takes a moment to exit after the restart.
            with warnings.catch_warnings(record=True) as seen:
                warnings.simplefilter("always")
                left = live_runs()
            said_why.extend(str(w.message) for w in seen if w.category is RunStoppedWarning)
            return left == []

        assert retry_until(stopped, 60)
        assert any("served by a kernel that has ended" in why for why in said_why), said_why
        assert second.wait_for(lambda r: r.state == "ended", timeout=30)
