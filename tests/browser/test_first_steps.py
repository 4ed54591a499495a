"""Browser: what a new user sees while the agent works, in a real JupyterLab in Debian's
Chromium over the real pinned Claude Code: a line while the model has not answered, and a
prompt sent meanwhile shown as queued until the agent takes it; the meter after a new
conversation, and no branch in a folder outside git; a frame as tall as the chat, code-block
actions above the code, a shell call in the look every agent's has, and an ended run without
its dead affordances."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import lab_widget
from lab_widget._install import tools_dir
from tests.support.browser import (
    chromium_page,
    jupyter_lab,
    run_first_cell,
    send,
    texts,
    wait_text,
    write_notebook,
)

CELL = """
import tempfile
from lab_widget import Reply, Rule, Run, ScriptedModel, ToolUse

model = ScriptedModel(
    rules=[
        Rule("slow", Reply("The slow answer.", delay=8)),
        Rule("after", "Taken after the turn."),
        Rule("code", Reply(blocks=["Sorted:\\n\\n```python\\nprint(sorted([3, 1, 2]))\\n```\\n"])),
        Rule("list", [Reply("Listing.", tools=[ToolUse("Bash", {"command": "ls -a", "description": "List"})]),
                      Reply("Listed.")]),
    ],
    fallback="ok",
)
run = Run("claude-code", cwd=tempfile.mkdtemp(prefix="browser-work-"), model=model)
run
"""


def overlap(a: Any, b: Any) -> bool:
    return bool(
        a["x"] < b["x"] + b["width"]
        and b["x"] < a["x"] + a["width"]
        and a["y"] < b["y"] + b["height"]
        and b["y"] < a["y"] + a["height"]
    )


def code_block_actions(page: Any) -> None:
    send(page, "code please")
    wait_text(page, "Sorted:", timeout=90_000)
    # The reply streams and is drawn again block by block: measure the one that stays.
    page.wait_for_selector(".lw-chat .lw-state[data-state='idle']", timeout=60_000)
    # The answer's code: its actions show without hovering and cover no line of it.
    block = page.locator(".lw-chat .lw-text.lw-assistant .lw-codeblock").last
    page.mouse.move(0, 0)
    bar, code = block.locator(".lw-code-actions"), block.locator("pre.lw-code")
    assert bar.locator(".lw-code-insert").is_visible() and bar.locator(".lw-code-copy").is_visible()
    bar.wait_for(state="visible", timeout=15_000)
    assert not overlap(bar.bounding_box(), code.bounding_box())


def shell_card(page: Any) -> None:
    send(page, "list the folder")
    wait_text(page, "Listed.", timeout=90_000)
    # The agent's Bash call, shown as every agent's shell call: its command after a $,
    # the agent's own name for the tool as a detail.
    card = page.locator(".lw-chat .lw-tool").filter(has_text="ls -a").last
    assert card.locator(".lw-tool-name").inner_text() == "Shell"
    assert card.locator(".lw-tool-summary").inner_text() == "$ ls -a"
    assert card.locator(".lw-tool-native").inner_text() == "Bash"


def test_waiting_for_the_model_and_a_queued_prompt(tmp_path: Path, lab_home: Path) -> None:
    root = tmp_path / "notebooks"
    root.mkdir()
    write_notebook(root / "first.ipynb", [CELL])
    env = {"LAB_WIDGET_HOME": str(lab_home), "LAB_WIDGET_TOOLS": str(tools_dir())}
    with jupyter_lab(root, env) as lab, chromium_page() as page:
        page.goto(lab.notebook_url("first.ipynb"))
        run_first_cell(page)
        page.wait_for_selector(".lw-chat .lw-state[data-state='idle']", timeout=120_000)
        # A chat with nothing in it yet is not the full height.
        assert page.locator(".lw-chat").bounding_box()["height"] < 400
        code_block_actions(page)
        shell_card(page)
        send(page, "slow please")
        # Taken: the prompt is in the chat and the composer free; the model has not answered.
        wait_text(page, "slow please", timeout=60_000)
        page.wait_for_selector(".lw-chat .lw-waiting", timeout=30_000)
        page.wait_for_function("() => document.querySelector('.lw-chat .lw-input').value === ''")
        send(page, "after that")
        queued = page.locator(".lw-chat .lw-queued")
        queued.wait_for(timeout=15_000)
        assert "after that" in queued.inner_text()
        assert "Queued" in queued.inner_text()
        assert not any("The slow answer." in t for t in texts(page))
        # The agent takes it when its turn ends: the transcript shows it, the copy goes.
        wait_text(page, "Taken after the turn.", timeout=90_000)
        page.wait_for_selector(".lw-chat .lw-queued", state="detached", timeout=15_000)
        shown = texts(page)
        assert sum("after that" in t for t in shown) == 1
        assert page.locator(".lw-chat .lw-waiting").count() == 0
        # A folder outside git: no branch at all (git would call it HEAD).
        page.wait_for_selector(".lw-chat .lw-session:not([hidden])", timeout=30_000)
        assert not page.locator(".lw-chat .lw-session-branch").is_visible()
        # A new conversation: the meter stays, with the whole run's totals.
        page.wait_for_selector(".lw-chat .lw-state[data-state='idle']", timeout=60_000)
        page.click(".lw-chat .lw-clear")
        total = page.locator(".lw-chat .lw-session-total")
        total.wait_for(timeout=60_000)
        assert total.inner_text().startswith("session: ")
        assert page.locator(".lw-chat .lw-session").is_visible()
        for run in lab_widget.runs():
            run.stop()
        page.wait_for_selector(".lw-chat .lw-state[data-state='ended']", timeout=60_000)
        assert not page.locator(".lw-chat .lw-attach-row").is_visible()
        assert not page.locator(".lw-chat .lw-hint").is_visible()
