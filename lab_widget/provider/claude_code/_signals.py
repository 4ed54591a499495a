"""Claude Code's live signals: hook records spooled per run, one JSON file per event.

The run's settings (``plan_spawn``) install the kit's hook command for every event of
``_compat.HOOKS``.
"""

from __future__ import annotations

from typing import Any

from ...schema import Dialog
from .. import RunContext
from ..kit import HookSignals, open_calls, spool_drop, spool_entries
from . import _compat
from ._config import RUN_STATE
from ._dialogs import approval_for_tool, dialog_for_tool

__all__ = ["ClaudeSignals", "sweepable"]

_CLOSING = ("PostToolUse", "PostToolUseFailure")

_TOOL_OR_NOTIFICATION = frozenset(
    {"PreToolUse", "PostToolUse", "PostToolUseFailure", "Notification"}
)


class ClaudeSignals(HookSignals):
    """Hook records spooled per run: PreToolUse opens a tool call, PostToolUse closes it,
    Notification ``permission_prompt`` says the TUI waits for a permission answer.
    """

    def pending_dialog(self, context: RunContext) -> Dialog | None:
        records = self.records(context)
        calls = open_calls(records, _CLOSING)
        last = next(
            (r for r in reversed(records) if r.get("hook_event_name") != "Notification"), None
        )
        if last is not None and last.get("hook_event_name") == "PermissionRequest":
            # The prompt names the tool, not the call: it is the newest open call of it.
            name = last.get("tool_name")
            # A sub-agent's records carry its agent_id: the call is of the same agent.
            agent_id = last.get("agent_id")
            call = next(
                (
                    r
                    for r in reversed(calls)
                    if r.get("tool_name") == name and r.get("agent_id") == agent_id
                ),
                None,
            )
            if call is not None:
                # A question or plan tool may ask for permission too: it is still that dialog.
                own = dialog_for_tool(str(name), call.get("tool_input"), call.get("tool_use_id"))
                if own is not None:
                    return own
                # A sub-agent's prompt names it (agent_id, agent_type): same keys, same
                # picker, in the main TUI; its messages nest under the call by the reader.
                agent = last.get("agent_type") if last.get("agent_id") else None
                return approval_for_tool(
                    str(name),
                    last.get("tool_input"),
                    call.get("tool_use_id"),
                    suggestions=last.get("permission_suggestions"),
                    agent_type=str(agent) if agent else None,
                    always=name not in (RUN_STATE.read(context).get("asking_tools") or []),
                )
        for record in reversed(calls):
            dialog = dialog_for_tool(
                str(record.get("tool_name")), record.get("tool_input"), record.get("tool_use_id")
            )
            if dialog is not None:
                return dialog
        return None

    def blocked(self, context: RunContext) -> str | None:
        records = self.records(context)
        last = next(
            (r for r in reversed(records) if r.get("hook_event_name") in _TOOL_OR_NOTIFICATION),
            None,
        )
        if (
            last
            and last.get("hook_event_name") == "Notification"
            and last.get("notification_type") == "permission_prompt"
        ):
            return str(last.get("message") or "The agent asks for permission.")
        return None

    def signature(self, context: RunContext) -> object:
        # The status line moves too (the CLI's cost, quotas): a change the chat shows.
        try:
            status = (context.runtime_dir / _compat.STATUS_SPOOL).stat()
            line: object = (status.st_size, status.st_mtime_ns)
        except OSError:
            line = None
        return (super().signature(context), line)

    def sweep(self, context: RunContext) -> None:
        spool = self.spool(context)
        spool_drop(spool, sweepable(spool_entries(spool)))


_SWEPT = frozenset(
    {
        "PreToolUse",
        "PostToolUse",
        "PostToolUseFailure",
        "PermissionRequest",
        "Notification",
        _compat.PROMPT_SUBMITTED,
    }
)


def sweepable(entries: list[tuple[str, dict[str, Any]]]) -> list[str]:
    """Names of the records no answer of :class:`ClaudeSignals` depends on any more.

    Kept: session records (they locate each epoch), the PreToolUse of every open call, the
    newest record of each kind the answers look back for (any, any but a Notification,
    any tool or notification event), and the newest submitted prompt (a send in progress
    waits for it). So the answers are the same after a sweep, now and after any later
    record.

    Examples
    --------
    >>> pre = {"hook_event_name": "PreToolUse", "tool_use_id": "a"}
    >>> post = {"hook_event_name": "PostToolUse", "tool_use_id": "a"}
    >>> idle = {"hook_event_name": "Notification", "notification_type": "idle_prompt"}
    >>> sweepable([("1", pre), ("2", post), ("3", idle), ("4", idle)])
    ['1', '3']
    """
    records = [record for _, record in entries]
    open_ids = {r.get("tool_use_id") for r in open_calls(records, _CLOSING)}
    newest: dict[str, int] = {}
    for i, record in enumerate(records):
        event = record.get("hook_event_name")
        newest["any"] = i  # pending_dialog and blocked each look back for one of these
        if event != "Notification":
            newest["not a notification"] = i
        if event in _TOOL_OR_NOTIFICATION:
            newest["tool or notification"] = i
        if event == _compat.PROMPT_SUBMITTED:
            newest["prompt"] = i
    keep = set(newest.values())
    names = []
    for i, (name, record) in enumerate(entries):
        event = record.get("hook_event_name")
        if i in keep or event not in _SWEPT:
            continue
        if event == "PreToolUse" and record.get("tool_use_id") in open_ids:
            continue
        names.append(name)
    return names
