"""Browser: from a notebook in a real JupyterLab, Claude Code on a second user's account over
real SSH chats in the widget, answers a dialog in its form and survives a killed connection."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import lab_widget
from lab_widget._install import tools_dir
from tests.live.test_remote import host_kwargs
from tests.support import sshd
from tests.support.browser import (
    chromium_page,
    jupyter_lab,
    run_cell,
    run_first_cell,
    write_notebook,
)

from .test_chat import send, texts, wait_text

CELL = """
import json
from lab_widget import Reply, Rule, Run, ScriptedModel, SshHost, ToolUse

DATABASE = {{"question": "Which database should we use?", "header": "Database",
    "multiSelect": False, "options": [{{"label": "SQLite", "description": "A file"}},
                                      {{"label": "Postgres", "description": "A server"}}]}}
model = ScriptedModel(
    rules=[
        Rule("ask", [Reply(tools=[ToolUse("AskUserQuestion", {{"questions": [DATABASE]}})]),
                     Reply("Thanks, noted.")]),
        Rule("who", [Reply(tools=[ToolUse("Bash", {{"command": "id -un"}})]), Reply("That is me.")]),
    ],
    fallback="Hello over SSH.",
)
host = SshHost(**json.loads({host!r}))
run = Run("claude-code", cwd={cwd!r}, model=model, host=host)
run
"""

KILL = "run._backend.connection._proc.kill()  # the connection drops; the agent lives on"
COUNT = "print(f'reconnects: {run._backend.connection.reconnects}, messages: {len(run.messages)}')"


def wait_count(page: Any, count: int, timeout: float = 90_000) -> None:
    page.wait_for_function(
        "(n) => document.querySelectorAll('.lw-chat .lw-msg').length >= n",
        arg=count,
        timeout=timeout,
    )


def test_a_notebook_drives_an_agent_on_another_account_over_ssh(
    tmp_path: Path, lab_home: Path, ssh_server: sshd.SshServer
) -> None:
    cwd = ssh_server.folder_of_user("browser")
    cell = CELL.format(host=json.dumps(host_kwargs(ssh_server.host())), cwd=str(cwd))
    root = tmp_path / "notebooks"
    root.mkdir()
    write_notebook(root / "remote.ipynb", [cell, KILL, COUNT])
    env = {"LAB_WIDGET_HOME": str(lab_home), "LAB_WIDGET_TOOLS": str(tools_dir())}
    with jupyter_lab(root, env) as lab, chromium_page() as page:
        page.goto(lab.notebook_url("remote.ipynb"))
        run_first_cell(page)
        page.wait_for_selector(".lw-chat .lw-state[data-state='idle']", timeout=90_000)
        send(page, "hello")
        wait_text(page, "Hello over SSH.")
        send(page, "ask me")
        form = page.locator(".lw-chat .lw-dialog-form")
        form.wait_for(timeout=90_000)
        form.locator("fieldset.lw-question[data-header='Database'] input[value='Postgres']").check()
        page.click(".lw-chat .lw-dialog-submit")
        outcome = page.locator(".lw-chat .lw-dialog[data-status='answered'] .lw-dialog-outcome")
        outcome.wait_for(timeout=90_000)
        assert "Database → Postgres" in outcome.inner_text()
        wait_text(page, "Thanks, noted.")
        before = texts(page)
        run_cell(page, 1)  # kill the ssh process from the notebook
        send(page, "who are you")
        wait_text(page, "That is me.", timeout=120_000)
        wait_count(page, len(before) + 3)
        after = texts(page)
        # Nothing shown twice, nothing lost: the old messages, then exactly the new turn.
        assert after[: len(before)] == before
        assert len(after) == len(before) + 3, after
        assert "id -un" in after[len(before) + 1]
        run_cell(page, 2)
        page.wait_for_function(
            "(t) => document.body.innerText.includes(t)",
            arg=f"reconnects: 1, messages: {len(after)}",
            timeout=30_000,
        )
        # The command ran as the second user, on the host.
        [run] = lab_widget.runs(host=ssh_server.host())
        [*_, tool] = [m.tool for m in run.messages if m.tool is not None]
        assert tool.output == sshd.USER
        run.stop()
