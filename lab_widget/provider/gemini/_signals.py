"""Gemini CLI's live signals: hook records spooled per run, one JSON file per event.

Gemini CLI 0.61.0 writes a tool call into its session file only once the call is over, so
the structured signal is the Notification hook (``notification_type: "ToolPermission"``)
that fires when the confirmation opens. It names no call id; its ``details`` carry the
command. Whatever the spool records after it (the call's AfterTool, the turn's AfterAgent,
a new session) means the confirmation was answered.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ...schema import Dialog, State
from .. import RunContext
from ..kit import HookSignals, hook_command
from . import _compat
from ._config import RUN_STATE
from ._dialogs import approval_dialog, confirmation_id

__all__ = ["GeminiSignals", "confirmations", "hook_settings", "turn_state"]


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


def hook_settings(spool: Path) -> dict[str, Any]:
    """The ``hooks`` settings that spool every event of ``_compat.HOOKS``.

    Examples
    --------
    >>> hooks = hook_settings(Path("/run/signals"))
    >>> sorted(hooks) == sorted(_compat.HOOKS.events)
    True
    >>> hooks["Notification"][0]["hooks"][0]["type"]
    'command'
    """
    command = hook_command(spool)
    return {
        event: [{"matcher": "*", "hooks": [{"type": "command", "command": command}]}]
        for event in _compat.HOOKS.events
    }


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


def _tool_input(
    records: list[dict[str, Any]], name: str, session_id: object
) -> dict[str, Any] | None:
    """The arguments of the call whose confirmation is the last record: the latest BeforeTool
    record of its tool since the confirmation before (spooled for the run's own servers
    only; the scheduler fires it just before the call's confirmation).
    """
    for record in reversed(records[:-1]):
        if record.get("session_id") != session_id:
            continue
        event = record.get("hook_event_name")
        if event == "Notification":
            return None  # an earlier confirmation: this call's arguments were not spooled
        tool_input = record.get("tool_input")
        if event == _compat.TOOL_ARGS_HOOK and record.get("tool_name") == name:
            return tool_input if isinstance(tool_input, dict) else None
    return None


class GeminiSignals(HookSignals):
    """Hook records spooled per run (see ``_compat.HOOKS``)."""

    def pending_dialog(self, context: RunContext) -> Dialog | None:
        record = _open_permission(self.records(context))
        details = record.get("details") if record else None
        if not isinstance(details, dict) or details.get("type") not in _compat.ANSWERED_CONFIRMS:
            return None  # other confirmations (MCP tools, web fetches) go to blocked()
        assert record is not None
        if details.get("type") != _compat.MCP_CONFIRM:
            return approval_dialog(details, confirmation_id(record))
        name = _compat.MCP_TOOLS.tool(str(details.get("serverName")), str(details.get("toolName")))
        asking = RUN_STATE.read(context).get("asking_tools") or []
        return approval_dialog(
            details,
            confirmation_id(record),
            tool_input=_tool_input(self.records(context), name, record.get("session_id")),
            always=name not in asking,
        )

    def blocked(self, context: RunContext) -> str | None:
        record = _open_permission(self.records(context))
        if record is None or self.pending_dialog(context) is not None:
            return None
        details = record.get("details")
        kind = details.get("type") if isinstance(details, dict) else None
        unreported = _compat.UNREPORTED_DIALOGS.get(str(kind))
        if unreported is not None:
            return f"Gemini CLI {unreported}; answer it in the terminal."
        what = str(record.get("message") or "a tool needs confirmation")
        return f"Gemini CLI asks for confirmation ({what}); answer it in the terminal."


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
