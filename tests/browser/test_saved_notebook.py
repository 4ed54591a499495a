"""Browser: a notebook saved with its chat, in a real JupyterLab in Debian's Chromium over the
real pinned Claude Code, reopened with nothing running it still shows the conversation; its
file shows it to front ends without the widget too (nbconvert, as nbviewer and GitHub use)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import nbformat
from nbconvert import HTMLExporter

import lab_widget
from lab_widget._install import tools_dir
from tests.support.browser import chromium_page, jupyter_lab, run_first_cell, send, wait_text
from tests.support.paths import ROOT

ANSWER = "Saved for later: the answer."
HOSTILE = "<script>window.__xss=1</script>"

CELL = f"""
import tempfile
from lab_widget import Rule, Run, ScriptedModel

model = ScriptedModel(rules=[Rule("hello", {ANSWER + " " + HOSTILE!r})], fallback="ok")
run = Run("claude-code", cwd=tempfile.mkdtemp(prefix="browser-work-"), model=model)
run
"""


def environment_defaults(tmp_path: Path) -> Path:
    """The defaults ``make setup`` gives the project's JupyterLab, written by the same script."""
    folder = tmp_path / "app-settings"
    subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "lab_settings.py"), str(folder / "overrides.json")],
        check=True,
        timeout=60,
    )
    return folder


def mark_view(page: Any) -> None:
    page.evaluate("() => document.querySelector('.lw-chat').dataset.old = '1'")


def save(page: Any) -> None:
    # From the chat's composer, as a user typing there does.
    page.locator(".lw-chat .lw-input").focus()
    page.keyboard.press("Control+s")
    page.wait_for_function("() => !document.querySelector('.jp-mod-dirty')", timeout=30_000)


def test_a_saved_chat_reopens_without_its_run(tmp_path: Path, lab_home: Path) -> None:
    root = tmp_path / "notebooks"
    root.mkdir()
    path = root / "saved.ipynb"
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(CELL)]
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    path.write_text(nbformat.writes(nb))
    env = {"LAB_WIDGET_HOME": str(lab_home), "LAB_WIDGET_TOOLS": str(tools_dir())}
    defaults = environment_defaults(tmp_path)
    with jupyter_lab(root, env, app_settings=defaults) as lab, chromium_page() as page:
        page.goto(lab.notebook_url("saved.ipynb"))
        run_first_cell(page)
        page.wait_for_selector(".lw-chat .lw-state[data-state='idle']", timeout=120_000)
        mark_view(page)
        send(page, "hello")
        # Typed while the agent answers: the view drawn when the turn ends keeps it.
        box = page.locator(".lw-chat .lw-input")
        box.fill("a draft typed meanwhile")
        wait_text(page, ANSWER, timeout=90_000)
        # The settled run replaces its output's data: JupyterLab draws a new view.
        page.wait_for_selector(".lw-chat:not([data-old])", timeout=30_000)
        assert page.locator(".lw-chat .lw-input").input_value() == "a draft typed meanwhile"
        page.locator(".lw-chat .lw-input").fill("")
        assert page.evaluate("() => window.__xss") is None
        save(page)
        [run] = lab_widget.runs()
        run.stop()

    saved = json.loads(path.read_text())
    [output] = saved["cells"][0]["outputs"]
    page_part = "".join(output["data"]["text/html"])
    assert ANSWER in page_part
    assert HOSTILE not in page_part  # the agent's markup stays text
    widgets = saved["metadata"]["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
    [view] = [m["state"] for m in widgets.values() if "_snapshot" in m["state"]]
    assert any(ANSWER in m.get("text", "") for m in view["_snapshot"]["messages"])

    # nbviewer and GitHub: no widget state they can use, the HTML beside it instead.
    del saved["metadata"]["widgets"]
    body, _ = HTMLExporter().from_notebook_node(nbformat.reads(json.dumps(saved), 4))  # type: ignore[no-untyped-call]
    assert ANSWER in body and HOSTILE not in body

    # Reopened in a new server: no kernel knows the run; the chat comes from the saved state.
    with jupyter_lab(root, env, app_settings=defaults) as lab, chromium_page() as page:
        page.goto(lab.notebook_url("saved.ipynb"))
        page.wait_for_selector(".lw-chat", timeout=90_000)
        wait_text(page, ANSWER, timeout=30_000)
        assert "model not found" not in page.inner_text(".jp-Notebook")
        assert page.evaluate("() => window.__xss") is None
