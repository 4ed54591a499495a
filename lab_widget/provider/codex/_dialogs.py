"""Codex's approval prompt as a dialog, and the keys that answer it.

The prompt is known from the run's hook spool (``_signals.py``); its answer is one key.
"""

from __future__ import annotations

from typing import Any

from ...schema import Dialog, DialogAnswer, Option, Question
from .. import Terminal, approval_key, play_keys
from . import _compat

__all__ = ["approval_dialog", "play", "recipe"]


def approval_dialog(tool_name: str, tool_input: Any, tool_id: str | None) -> Dialog:
    """The command approval prompt as a dialog.

    Examples
    --------
    >>> d = approval_dialog("Bash", {"command": "touch /x", "description": "Why?"}, "call_1")
    >>> d.kind, d.tool_id, [o.label for o in d.questions[0].options]
    ('approval', 'call_1', ['Approve', 'Reject'])
    """
    command = tool_input.get("command") if isinstance(tool_input, dict) else None
    reason = tool_input.get("description") if isinstance(tool_input, dict) else None
    question = Question(
        header="Permission",
        text=_compat.APPROVAL_QUESTION,
        options=[
            Option(label=_compat.APPROVE, description="Run it this once"),
            Option(label=_compat.REJECT, description="Don't run it; the turn stops"),
        ],
        free_text=False,
    )
    body = ""
    if reason:
        body += f"{reason}\n\n"
    if command:
        body += f"```\n{command}\n```"
    return Dialog(
        kind="approval", questions=[question], tool_id=tool_id, tool_name=tool_name, body=body
    )


def recipe(dialog: Dialog, answer: DialogAnswer) -> list[str]:
    """The keys that play ``answer`` into the open prompt of ``dialog``.

    Examples
    --------
    >>> from lab_widget.schema import Answer
    >>> d = approval_dialog("Bash", {"command": "ls"}, "c")
    >>> recipe(d, DialogAnswer(answers=[Answer(selected=["Approve"])]))
    ['y']
    >>> recipe(d, DialogAnswer(answers=[Answer(selected=["Reject"])]))
    ['Escape']
    """
    return [approval_key(dialog, answer, _compat.APPROVAL_KEYS, _compat.REJECT)]


def play(terminal: Terminal, keys: list[str]) -> None:
    """Type a recipe once the prompt takes keys."""
    play_keys(terminal, keys, _compat.DIALOG_SETTLE)
