"""Browser: the runs dashboard and the chat header's session line in a real JupyterLab."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import lab_widget
from lab_widget._install import tools_dir
from tests.support.browser import chromium_page, jupyter_lab, run_first_cell, write_notebook

CELL = """
import tempfile
import time
import lab_widget
from lab_widget import Run, ScriptedModel

model = ScriptedModel(rules=[], sequence=["Hello from the dashboard test."])
run = Run("claude-code", cwd=tempfile.mkdtemp(prefix="browser-work-"), model=model, name="board")
run.send("hello")
run.wait(timeout=90)
time.sleep(3)  # the table starts watching after the run's last activity
lab_widget.runs()
"""

ROW = ".lw-runs tr[data-run='board']"


def test_dashboard_opens_a_chat_and_stops_a_run(tmp_path: Path, lab_home: Path) -> None:
    root = tmp_path / "notebooks"
    root.mkdir()
    write_notebook(root / "board.ipynb", [CELL])
    env = {"LAB_WIDGET_HOME": str(lab_home), "LAB_WIDGET_TOOLS": str(tools_dir())}
    with jupyter_lab(root, env) as lab, chromium_page() as page:
        page.goto(lab.notebook_url("board.ipynb"))
        run_first_cell(page)
        page.wait_for_selector(f"{ROW} .lw-state[data-state='idle']", timeout=120_000)
        row = page.locator(ROW)
        assert row.locator(".lw-runs-provider").inner_text() == "Claude Code"
        assert row.locator(".lw-runs-tokens").inner_text() not in ("", "0")
        assert row.locator(".lw-runs-cost").inner_text().startswith("$")
        assert row.locator(".lw-runs-memory").inner_text().endswith(" MB")
        assert row.locator(".lw-runs-holder").inner_text() == "this kernel"
        started = row.locator(".lw-runs-started").inner_text()
        assert started == "just now" or started.endswith(" ago"), started
        # Last activity is the transcript's last entry, not when the table started watching.
        [run] = lab_widget.runs()
        updated = run.session.updated_at
        assert updated is not None
        at = row.locator(".lw-runs-activity").get_attribute("title")
        assert at == updated.astimezone(UTC).isoformat(timespec="seconds"), (at, updated)
        assert datetime.now(UTC) - updated > timedelta(seconds=3)

        # Open: the run's chat appears below the table, with its session line.
        row.locator(".lw-runs-open").click()
        page.wait_for_selector(".lw-chat .lw-msg", timeout=30_000)
        assert "Hello from the dashboard test." in page.locator(".lw-chat").inner_text()
        session = page.locator(".lw-chat .lw-session")
        assert session.is_visible()
        assert session.locator(".lw-session-model").inner_text() != ""
        assert " in · " in session.locator(".lw-session-tokens").inner_text()
        assert row.locator(".lw-runs-open").inner_text() == "Close"

        # Stop asks first; the second click ends the run and the row says so.
        row.locator(".lw-runs-stop").click()
        assert row.locator(".lw-runs-stop").inner_text() == "Stop? Click again"
        assert row.locator(".lw-state").get_attribute("data-state") != "ended"
        row.locator(".lw-runs-stop").click()
        page.wait_for_selector(f"{ROW} .lw-state[data-state='ended']", timeout=30_000)
        assert row.locator(".lw-runs-stop").is_disabled()
