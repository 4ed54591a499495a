"""Live: the real pinned Kilo Code CLI under real tmux, against the scripted model.

Kilo is run by OpenCode's family code with Kilo's record; this plays, in one run (its
start-up is the slow part), what the fork must do as its parent does: chat, a shell call
with its result, a permission answered once and then always, ``/new`` into a new epoch, and
the usage read back as the model billed it.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import pytest

from lab_widget import Reply, Rule, Run, ScriptedModel, ToolUse
from lab_widget.provider.kilo import _commands
from lab_widget.schema import Usage
from tests.support.local import local_parts
from tests.support.waiting import retry_until

pytestmark = pytest.mark.live

ASK = {"bash": "ask"}
"""Run option ``permission``: Kilo asks before every shell command (its default runs them)."""

COMMAND = "echo tool-output-42"


def billed(text: str, input_tokens: int, output: int, cached: int, **more: Any) -> Reply:
    """A reply with the usage the model reports for it (cached input counted apart)."""
    return Reply(
        text,
        input_tokens=input_tokens,
        output_tokens=output,
        cache_read_tokens=cached,
        **more,
    )


def script() -> ScriptedModel:
    tool = ToolUse("Bash", {"command": COMMAND, "description": "echo"})
    return ScriptedModel(
        rules=[
            Rule(
                "use a tool",
                [
                    billed("Let me check.", 1000, 20, 300, tools=[tool]),
                    billed("The tool said tool-output-42.", 1100, 10, 400),
                ],
            ),
        ],
        sequence=[
            billed("Hello from the scripted model.", 900, 7, 0),
            billed("Second answer.", 500, 3, 100),
        ],
    )


def tool_turn(run: Run, prompt: str, answer: str | None) -> None:
    """A prompt whose turn calls the shell; ``answer`` is the chat's answer to its
    permission prompt (``None``: no prompt is expected)."""
    before = len(run.messages)
    run.send(prompt)
    if answer is not None:
        assert run.wait_for(lambda r: r.pending_dialog is not None, timeout=120), run.screen()
        dialog = run.pending_dialog
        assert dialog is not None and dialog.kind == "approval"
        assert COMMAND in dialog.body
        labels = [o.label for o in dialog.questions[0].options]
        assert labels == ["Approve", "Approve always", "Reject"]
        scope = dialog.questions[0].options[1].description or ""
        assert "until Kilo is restarted" in scope
        assert run.state == "question"
        resolved = run.answer(answer)
        assert resolved.status == "answered", resolved
    assert run.wait_for(
        lambda r: (
            len(r.messages) > before and r.messages[-1].text == "The tool said tool-output-42."
        ),
        timeout=120,
    ), run.screen()
    assert run.wait(timeout=60) == "idle", run.screen()
    calls = [m for m in run.messages[before:] if m.tool is not None]
    assert [c.tool.status for c in calls if c.tool] == ["ok"], calls
    assert calls[0].tool is not None and "tool-output-42" in (calls[0].tool.output or "")
    # Asked calls show as the dialog that kept its call; an unasked one as a plain call.
    assert calls[0].kind == ("dialog" if answer is not None else "tool")


def test_chat_tool_and_new_epoch(lab_home: Path, workdir: Path) -> None:
    model = script()
    with Run("kilo", cwd=workdir, model=model, permission=ASK) as run:
        run.send("hello", ready_timeout=180)
        assert run.wait_for(
            lambda r: bool(r.messages) and r.messages[-1].text == "Hello from the scripted model.",
            180,
        ), run.screen()
        assert run.wait(timeout=60) == "idle", run.screen()
        # The user's words alone: Kilo's <environment_details> reach neither the chat nor
        # the text the scripted model matched.
        assert [m.text for m in run.messages if m.role == "user"] == ["hello"]
        assert [r.user_text for r in model.scripted_requests] == ["hello"]

        tool_turn(run, "please use a tool", "approve")
        tool_turn(run, "use a tool again", "approve_always")
        tool_turn(run, "use a tool a third time", None)  # allowed always: not asked
        first = run.transcript_id
        # Every response counted once with its final figures, as billed: cached input apart.
        assert run.session.usage == Usage(
            input_tokens=900 + 3 * (1000 + 1100),
            output_tokens=7 + 3 * (20 + 10),
            cache_read_tokens=3 * (300 + 400),
        ), run.session.usage

        run.clear()
        run.send("and again")
        assert run.wait_for(
            lambda r: r.transcript_id != first and r.messages[-1].text == "Second answer.", 120
        ), run.screen()
        assert run.wait(timeout=60) == "idle", run.screen()
        assert run.messages[0].command == "/new"
        assert [m.text for m in run.messages if m.role == "user"] == ["/new", "and again"]
        assert run.session.usage == Usage(
            input_tokens=500, output_tokens=3, cache_read_tokens=100
        ), run.session.usage


_MENU_ROW = re.compile(r"┃ (/\S+)\s{2,}(.+?)\s*┃")


def test_pinned_builtins_match_the_tui_menu(lab_home: Path, workdir: Path) -> None:
    with Run("kilo", cwd=workdir, model=script()) as run:
        # Session commands (/fork, /undo, ...) are listed once a session exists.
        run.send("hello", ready_timeout=180)
        assert run.wait(timeout=120) == "idle", run.screen()
        terminal = local_parts(run).terminal
        terminal.type_text("/")
        assert retry_until(lambda: bool(_MENU_ROW.findall(run.screen())), timeout=15), run.screen()
        # The menu shows a window of rows; walking down past the end shows them all.
        rows: set[tuple[str, str]] = set()
        for _ in range(len(_commands.BUILTIN_COMMANDS) + 15):
            rows |= set(_MENU_ROW.findall(run.screen()))
            terminal.keys("Down")
            time.sleep(0.25)
        rows |= set(_MENU_ROW.findall(run.screen()))
    pinned = {(c.name, c.description) for c in _commands.BUILTIN_COMMANDS}
    assert rows == pinned, (
        f"menu drift: missing {sorted(pinned - rows)}, new {sorted(rows - pinned)}"
    )
