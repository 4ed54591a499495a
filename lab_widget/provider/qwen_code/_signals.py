"""Qwen Code's live signals: hook records spooled per run, with Claude Code's event names.

A confirmation is the ``PermissionRequest`` record (``tool_name``, ``tool_input``): it is
open while nothing but notifications followed it. ``UserPromptSubmit`` and ``Stop``
bracket each turn.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ...schema import Dialog
from .. import RunContext
from ..kit import HookSignals, hook_command
from . import _compat
from ._config import RUN_STATE
from ._dialogs import approval_dialog

__all__ = ["QwenCodeSignals", "hook_settings", "last_turn_record"]

_QUIET = "Notification"
"""Records that answer nothing (an idle prompt, a permission's notice)."""


def hook_settings(spool: Path) -> dict[str, Any]:
    """The ``hooks`` settings that spool every event of ``_compat.HOOKS``.

    Examples
    --------
    >>> sorted(hook_settings(Path("/s"))) == sorted(_compat.HOOKS.events)
    True
    """
    command = hook_command(spool)
    return {
        event: [{"matcher": "*", "hooks": [{"type": "command", "command": command}]}]
        for event in _compat.HOOKS.events
    }


class QwenCodeSignals(HookSignals):
    """Hook records spooled per run (see ``_compat.HOOKS``)."""

    def pending_dialog(self, context: RunContext) -> Dialog | None:
        for record in reversed(self.records(context)):
            event = record.get("hook_event_name")
            if event == _QUIET:
                continue
            if event != _compat.PERMISSION_EVENT:
                return None
            asking = RUN_STATE.read(context).get("asking_tools") or []
            return approval_dialog(record, always=record.get("tool_name") not in asking)
        return None

    def blocked(self, context: RunContext) -> str | None:
        return None  # every confirmation the hooks report is answered from the chat


def last_turn_record(signals: list[dict[str, Any]], session_id: str) -> dict[str, Any] | None:
    """The session's latest ``UserPromptSubmit`` or ``Stop`` record.

    Examples
    --------
    >>> last_turn_record([{"hook_event_name": "Stop", "session_id": "s"}], "s")
    {'hook_event_name': 'Stop', 'session_id': 's'}
    >>> last_turn_record([{"hook_event_name": "Stop", "session_id": "t"}], "s") is None
    True
    """
    turns = (_compat.PROMPT_SUBMITTED, _compat.TURN_END)
    found = [
        r
        for r in signals
        if r.get("session_id") == session_id and r.get("hook_event_name") in turns
    ]
    return found[-1] if found else None
