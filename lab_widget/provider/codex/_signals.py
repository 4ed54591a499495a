"""Codex's live signals: hook records spooled per run, one JSON file per event.

Codex 0.171.0 writes no approval request into the rollout (the pending ``function_call``
is there, its output comes after the answer), so the structured signal is the
PermissionRequest hook: it names the tool (``Bash``) and its input, not the call; the call
is the newest PreToolUse of that tool not yet closed by a PostToolUse.
"""

from __future__ import annotations

from typing import Any

from ...schema import Dialog
from .. import RunContext
from ..kit import HookSignals, open_calls
from . import _compat
from ._config import RUN_STATE
from ._dialogs import approval_dialog, tool_server_dialog
from ._questions import question_dialog

__all__ = ["CodexSignals"]

_CLOSING = ("PostToolUse", "Stop", "UserPromptSubmit", "SessionStart")


def _open_question(records: list[dict[str, Any]]) -> Dialog | None:
    """The question picker open now: a question call's PreToolUse not yet closed (by its
    PostToolUse, the turn's end or a new prompt).
    """
    start = max(
        (i for i, r in enumerate(records) if r.get("hook_event_name") in _CLOSING[1:]),
        default=-1,
    )
    calls = open_calls(records[start + 1 :], _CLOSING)
    call = next((r for r in reversed(calls) if r.get("tool_name") == _compat.QUESTION_TOOL), None)
    if call is None:
        return None
    return question_dialog(call.get("tool_input"), call.get("tool_use_id"))


class CodexSignals(HookSignals):
    """Hook records spooled per run (see ``_compat.HOOKS``)."""

    def pending_dialog(self, context: RunContext) -> Dialog | None:
        records = self.records(context)
        question = _open_question(records)
        if question is not None:
            return question
        if not records or records[-1].get("hook_event_name") != "PermissionRequest":
            return None  # anything after the request (a result, a new turn) answered it
        last = records[-1]
        # A turn end or a new prompt closes every call before it.
        start = max(
            (i for i, r in enumerate(records) if r.get("hook_event_name") in _CLOSING[1:]),
            default=-1,
        )
        name = last.get("tool_name")
        own = name in RUN_STATE.read(context).get("asking_tools", ())
        if name not in _compat.APPROVAL_TOOLS and not own:
            return None  # reported by blocked(): no verified recipe answers it
        calls = open_calls(records[start + 1 :], _CLOSING)
        call = next((r for r in reversed(calls) if r.get("tool_name") == name), None)
        if call is None:
            return None
        dialog = tool_server_dialog if own else approval_dialog
        return dialog(str(name), last.get("tool_input"), call.get("tool_use_id"))

    def blocked(self, context: RunContext) -> str | None:
        records = self.records(context)
        if not records or records[-1].get("hook_event_name") != "PermissionRequest":
            return None
        if self.pending_dialog(context) is not None:
            return None
        tool = records[-1].get("tool_name") or "a tool"
        return f"Codex asks for permission to use {tool}; answer it in the terminal."
