"""Codex's live signals: hook records spooled per run, one JSON file per event.

Codex 0.171.0 writes no approval request into the rollout (the pending ``function_call``
is there, its output comes after the answer), so the structured signal is the
PermissionRequest hook: it names the tool (``Bash``) and its input, not the call; the call
is the newest PreToolUse of that tool not yet closed by a PostToolUse.
"""

from __future__ import annotations

from typing import Any

from ...schema import Dialog
from .. import LiveSignals, RunContext, spool_signature
from .. import spool_records as signals
from . import _compat
from ._dialogs import approval_dialog

__all__ = ["SIGNALS", "CodexSignals", "signals"]

SIGNALS = "signals"
"""The run-folder spool the hooks write into."""

_CLOSING = ("PostToolUse", "Stop", "UserPromptSubmit", "SessionStart")


class CodexSignals(LiveSignals):
    """Hook records spooled per run (see ``_compat.HOOK_EVENTS``)."""

    def _records(self, context: RunContext) -> list[dict[str, Any]]:
        return signals(context.runtime_dir / SIGNALS)

    @staticmethod
    def _open_calls(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
        closed = {r.get("tool_use_id") for r in records if r.get("hook_event_name") in _CLOSING}
        return [
            r
            for r in records
            if r.get("hook_event_name") == "PreToolUse" and r.get("tool_use_id") not in closed
        ]

    def pending_dialog(self, context: RunContext) -> Dialog | None:
        records = self._records(context)
        if not records or records[-1].get("hook_event_name") != "PermissionRequest":
            return None  # anything after the request (a result, a new turn) answered it
        last = records[-1]
        # A turn end or a new prompt closes every call before it.
        start = max(
            (i for i, r in enumerate(records) if r.get("hook_event_name") in _CLOSING[1:]),
            default=-1,
        )
        name = last.get("tool_name")
        if name not in _compat.APPROVAL_TOOLS:
            return None  # reported by blocked(): no verified recipe answers it
        calls = self._open_calls(records[start + 1 :])
        call = next((r for r in reversed(calls) if r.get("tool_name") == name), None)
        if call is None:
            return None
        return approval_dialog(str(name), last.get("tool_input"), call.get("tool_use_id"))

    def blocked(self, context: RunContext) -> str | None:
        records = self._records(context)
        if not records or records[-1].get("hook_event_name") != "PermissionRequest":
            return None
        if self.pending_dialog(context) is not None:
            return None
        tool = records[-1].get("tool_name") or "a tool"
        return f"Codex asks for permission to use {tool}; answer it in the terminal."

    def signature(self, context: RunContext) -> object:
        spool = context.runtime_dir / SIGNALS
        return spool_signature(spool)

    def sweep(self, context: RunContext) -> None:
        return  # records are small and one per event; the spool goes with the run
