"""Qwen Code's tool confirmations as dialogs, from its ``PermissionRequest`` hook records;
the keys that answer them are ``_compat.APPROVAL``.
"""

from __future__ import annotations

import json
from typing import Any

from ...schema import Dialog, Message
from .. import kit
from . import _compat

__all__ = ["answered", "approval_dialog"]


def approval_dialog(record: dict[str, Any], *, always: bool = True) -> Dialog:
    r"""A ``PermissionRequest`` record as a dialog, its command (or its input, Python
    ``code`` as Python) shown. ``always=False`` offers no "always allow": a tool of the
    run's own servers that asks before every call (the CLI hides that row then).

    Examples
    --------
    >>> d = approval_dialog({"tool_name": "run_shell_command", "timestamp": "t",
    ...                      "tool_input": {"command": "touch x"}})
    >>> d.tool_id, d.tool_name, d.body
    ('confirm:t', 'run_shell_command', '```\ntouch x\n```')
    >>> [o.label for o in d.questions[0].options]
    ['Approve', 'Approve always', 'Reject']
    >>> k = approval_dialog({"tool_name": "mcp__kernel__run_python",
    ...                      "tool_input": {"code": "x = 1"}}, always=False)
    >>> [o.label for o in k.questions[0].options], k.body.splitlines()
    (['Approve', 'Reject'], ['```python', 'x = 1', '```'])
    """
    tool = str(record.get("tool_name") or "tool")
    given = record.get("tool_input")
    given = given if isinstance(given, dict) else {}
    command = given.get("command")
    code = given.get("code")
    if command is not None:
        body = f"```\n{command}\n```"
    elif isinstance(code, str) and len(given) == 1:
        body = f"```python\n{code}\n```"
    else:
        body = f"```\n{json.dumps(given, indent=2)}\n```"
    text = _compat.APPROVAL_QUESTION if command is not None else f"Allow the tool {tool}?"
    return kit.approval_dialog(
        text,
        approve="Allow it once",
        approve_always=_compat.ALWAYS_CHOICE if always else None,
        reject="Don't do it; the turn stops",
        # The record names no call: its time stands in.
        tool_id=f"confirm:{record.get('timestamp')}",
        tool_name=tool,
        body=body,
    )


def answered(message: Message, records: list[dict[str, Any]], session: str, since: str) -> Message:
    """``message`` (a finished call) as the confirmation it waited on, answered, when the
    spool holds one of ``session`` for the same tool and input since ``since`` (the turn's
    prompt); else ``message`` unchanged. The call then goes by the confirmation's id: the
    chat learns from it that the confirmation was answered, and how.
    """
    tool = message.tool
    if tool is None or tool.status == "running":
        return message
    asked = [
        r
        for r in records
        if r.get("hook_event_name") == _compat.PERMISSION_EVENT
        and r.get("session_id") == session
        and r.get("tool_name") == tool.name
        and r.get("tool_input") == tool.input
        and str(r.get("timestamp") or "") >= since
    ]
    if not asked:
        return message
    rejected = tool.status == "error" and _compat.REJECTED_STATUS in (tool.output or "")
    dialog = approval_dialog(asked[0]).model_copy(
        update={
            "status": "rejected" if rejected else "answered",
            "outcome": "rejected" if rejected else "approved",
        }
    )
    return message.model_copy(
        update={
            "kind": "dialog",
            "dialog": dialog,
            "tool": tool.model_copy(update={"id": dialog.tool_id}),
        }
    )
