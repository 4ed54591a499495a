"""Gemini CLI's tool confirmation, known from the run's hook spool, and the keys that answer it.

Gemini CLI 0.61.0 writes a tool call into its session file only once the call is over, so
the structured signal is the Notification hook (``notification_type: "ToolPermission"``)
that fires when the confirmation opens. It names no call id; its ``details`` carry the
command. Whatever the spool records after it (the call's AfterTool, the turn's AfterAgent,
a new session) means the confirmation was answered.
"""

from __future__ import annotations

from typing import Any

from ...schema import Dialog, DialogAnswer, Option, Question, State
from .. import (
    LiveSignals,
    RunContext,
    Terminal,
    approval_key,
    load_json,
    play_keys,
    spool_signature,
)
from .. import spool_records as signals
from . import _compat

__all__ = [
    "GeminiSignals",
    "approval_dialog",
    "confirmation_id",
    "confirmations",
    "load_json",
    "play",
    "recipe",
    "signals",
]

SPOOL = "signals"


def confirmation_id(record: dict[str, Any]) -> str:
    """The id a confirmation's dialog goes by: its Notification hook names no tool call
    (the call reaches the session file only once it is over), so its time stands in.

    Examples
    --------
    >>> confirmation_id({"timestamp": "2026-01-01T00:00:00.000Z"})
    'confirm:2026-01-01T00:00:00.000Z'
    """
    return f"confirm:{record.get('timestamp')}"


def confirmations(records: list[dict[str, Any]], session_id: str) -> list[dict[str, Any]]:
    """The confirmations (shell commands, file edits) the spool recorded for one session,
    oldest first.
    """
    return [
        r
        for r in records
        if r.get("hook_event_name") == "Notification"
        and r.get("notification_type") == _compat.NOTIFICATION_PERMISSION
        and r.get("session_id") == session_id
        and isinstance(r.get("details"), dict)
        and r["details"].get("type") in _compat.ANSWERED_CONFIRMS
    ]


def approval_dialog(details: dict[str, Any], tool_id: str | None = None) -> Dialog:
    r"""A shell command's or a file edit's confirmation as a dialog.

    Examples
    --------
    >>> d = approval_dialog({"type": "exec", "command": "touch /x"}, "confirm:t")
    >>> d.kind, d.tool_id, [o.label for o in d.questions[0].options]
    ('approval', 'confirm:t', ['Approve', 'Reject'])
    >>> e = approval_dialog({"type": "edit", "fileName": "a.txt", "fileDiff": "+hi\n"})
    >>> e.questions[0].text, e.tool_name, e.body
    ('Apply this change to a.txt?', 'edit', '```diff\n+hi\n```')
    """
    if details.get("type") == _compat.EDIT_CONFIRM:
        name = details.get("fileName") or details.get("filePath")
        diff = str(details.get("fileDiff") or "").rstrip("\n")
        text = _compat.EDIT_QUESTION
        if name:
            text = f"{text.removesuffix('?')} to {name}?"
        what, tool_name = "Make this change once", "edit"
        body = f"```diff\n{diff}\n```" if diff else ""
    else:
        command = details.get("command")
        text, what, tool_name = _compat.APPROVAL_QUESTION, "Run it this once", _compat.SHELL_TOOL
        body = f"```\n{command}\n```" if command else ""
    question = Question(
        header="Permission",
        text=text,
        options=[
            Option(label=_compat.APPROVE, description=what),
            Option(label=_compat.REJECT, description="Don't do it; the turn stops"),
        ],
        free_text=False,
    )
    return Dialog(
        kind="approval", questions=[question], tool_id=tool_id, tool_name=tool_name, body=body
    )


def _open_permission(records: list[dict[str, Any]]) -> dict[str, Any] | None:
    if not records:
        return None
    last = records[-1]
    if (
        last.get("hook_event_name") == "Notification"
        and last.get("notification_type") == _compat.NOTIFICATION_PERMISSION
    ):
        return last
    return None


class GeminiSignals(LiveSignals):
    """Hook records spooled per run (see ``_compat.HOOK_EVENTS``)."""

    def _records(self, context: RunContext) -> list[dict[str, Any]]:
        return signals(context.runtime_dir / SPOOL)

    def pending_dialog(self, context: RunContext) -> Dialog | None:
        record = _open_permission(self._records(context))
        details = record.get("details") if record else None
        if not isinstance(details, dict) or details.get("type") not in _compat.ANSWERED_CONFIRMS:
            return None  # other confirmations (MCP tools, web fetches) go to blocked()
        assert record is not None
        return approval_dialog(details, confirmation_id(record))

    def blocked(self, context: RunContext) -> str | None:
        record = _open_permission(self._records(context))
        if record is None or self.pending_dialog(context) is not None:
            return None
        what = str(record.get("message") or "a tool needs confirmation")
        return f"Gemini CLI asks for confirmation ({what}); answer it in the terminal."

    def signature(self, context: RunContext) -> object:
        spool = context.runtime_dir / SPOOL
        return spool_signature(spool)

    def sweep(self, context: RunContext) -> None:
        return  # records are small and one per event; the spool goes with the run


def recipe(dialog: Dialog, answer: DialogAnswer) -> list[str]:
    """The keys that play ``answer`` into the open confirmation of ``dialog``.

    Examples
    --------
    >>> from lab_widget.schema import Answer
    >>> d = approval_dialog({"type": "exec", "command": "ls"})
    >>> recipe(d, DialogAnswer(answers=[Answer(selected=["Approve"])]))
    ['Enter']
    >>> recipe(d, DialogAnswer(answers=[Answer(selected=["Reject"])]))
    ['Escape']
    """
    return [approval_key(dialog, answer, _compat.APPROVAL_KEYS, _compat.REJECT)]


def play(terminal: Terminal, keys: list[str]) -> None:
    """Type a recipe once the confirmation takes keys."""
    play_keys(terminal, keys, _compat.DIALOG_SETTLE)


_TURN_EVENTS = ("BeforeAgent", "AfterAgent")


def turn_state(signals: list[dict[str, Any]], session_id: str) -> State | None:
    """``working`` between a turn's BeforeAgent and AfterAgent hooks, else ``idle``.

    ``None`` when the spool holds no turn of this session.

    Examples
    --------
    >>> turn_state([{"hook_event_name": "BeforeAgent", "session_id": "s"}], "s")
    'working'
    >>> turn_state([{"hook_event_name": "BeforeAgent", "session_id": "t"}], "s") is None
    True
    """
    for record in reversed(signals):
        event = record.get("hook_event_name")
        if event in _TURN_EVENTS and record.get("session_id") == session_id:
            return "working" if event == "BeforeAgent" else "idle"
    return None
