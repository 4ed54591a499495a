"""Copilot CLI's live signals: hook records spooled per run, one JSON file per event.

The run's ``<COPILOT_HOME>/settings.json`` names the kit's hook command for every event of
``_compat.HOOKS``. Copilot CLI's payloads do not name their event, so each event's command
names it (``{"hook_event_name": <event>, "payload": <stdin>}``). What the spool is for: the
``userPromptSubmitted`` record confirms a submit. The approval prompt needs no signal: the
session log itself records it (``permission.requested``) while it is open, so the reader
reports it, and nothing else the TUI waits on is left to tell.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ...schema import Dialog
from .. import RunContext
from ..kit import HookSignals, hook_command
from . import _compat

__all__ = ["CopilotSignals", "hook_settings"]


def hook_settings(spool: Path) -> dict[str, Any]:
    """The ``hooks`` settings that spool every event of ``_compat.HOOKS``.

    Examples
    --------
    >>> hooks = hook_settings(Path("/run/signals"))
    >>> sorted(hooks) == sorted(_compat.HOOKS.events)
    True
    >>> hooks["agentStop"][0]["type"], hooks["agentStop"][0]["bash"].endswith("agentStop")
    ('command', True)
    """
    return {
        event: [
            {
                "type": "command",
                "bash": hook_command(spool, event),
                "timeoutSec": _compat.HOOK_TIMEOUT,
            }
        ]
        for event in _compat.HOOKS.events
    }


class CopilotSignals(HookSignals):
    """Hook records spooled per run (see ``_compat.HOOKS``)."""

    def pending_dialog(self, context: RunContext) -> Dialog | None:
        return None  # the session log records the approval prompt while it is open

    def blocked(self, context: RunContext) -> str | None:
        return None
