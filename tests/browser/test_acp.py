"""Browser: an ACP agent's permission request answered from the widget's form in a real
JupyterLab in Debian's Chromium, against the real pinned CLI in its ACP mode (OpenCode's
``opencode acp``, set to ask before a shell command)."""

from __future__ import annotations

from pathlib import Path

import lab_widget
from tests.support.browser import open_chat, send, wait_text

CELL = """
import tempfile
import lab_widget
from lab_widget import AcpAgent, Reply, Rule, Run, ScriptedModel, ToolUse

binary = lab_widget.providers(check_auth=False).get("opencode").binary
agent = AcpAgent("opencode-acp", [binary, "acp"], config_from="opencode")
echo = ToolUse("bash", {"command": "echo 42", "description": "run it"})
model = ScriptedModel(rules=[Rule("echo", [Reply("Running.", tools=[echo]), Reply("Done.")])])
run = Run(agent, cwd=tempfile.mkdtemp(prefix="browser-work-"), model=model,
          permission={"bash": "ask"})
run
"""


def test_an_acp_permission_is_answered_from_the_form(tmp_path: Path, lab_home: Path) -> None:
    with open_chat(tmp_path, lab_home, CELL) as page:
        send(page, "echo it")
        form = page.locator(".lw-chat .lw-dialog-form")
        form.wait_for(timeout=120_000)
        assert page.locator(".lw-chat .lw-state").get_attribute("data-state") == "question"
        form.locator("input[value='Approve']").check()
        page.click(".lw-chat .lw-dialog-submit")
        outcome = page.locator(".lw-chat .lw-dialog[data-status='answered'] .lw-dialog-outcome")
        outcome.wait_for(timeout=90_000)
        assert "approved" in outcome.inner_text()
        wait_text(page, "Done.", timeout=120_000)
        [run] = lab_widget.runs()
        [tool] = [m.tool for m in run.messages if m.tool is not None]
        assert tool.status == "ok" and "42" in (tool.output or "")
        [dialog] = [m.dialog for m in run.messages if m.dialog is not None]
        assert (dialog.status, dialog.outcome) == ("answered", "approved")
        run.stop()
