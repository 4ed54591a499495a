"""Codex's approval prompt as a dialog; the keys that answer it are ``_compat.APPROVAL``.

The prompt is known from the run's hook spool (``_signals.py``).
"""

from __future__ import annotations

import json
from typing import Any

from ...schema import Dialog
from ..kit import approval_dialog as permission
from . import _compat

__all__ = ["approval_dialog", "tool_server_dialog"]


def approval_dialog(tool_name: str, tool_input: Any, tool_id: str | None) -> Dialog:
    """The command approval prompt as a dialog.

    Examples
    --------
    >>> d = approval_dialog("Bash", {"command": "touch /x", "description": "Why?"}, "call_1")
    >>> d.kind, d.tool_id, [o.label for o in d.questions[0].options]
    ('approval', 'call_1', ['Approve', 'Approve always', 'Reject'])
    """
    command = tool_input.get("command") if isinstance(tool_input, dict) else None
    reason = tool_input.get("description") if isinstance(tool_input, dict) else None
    body = ""
    if reason:
        body += f"{reason}\n\n"
    if command:
        body += f"```\n{command}\n```"
    return permission(
        _compat.APPROVAL_QUESTION,
        approve="Run it this once",
        approve_always="Run it, and don't ask again for commands that start the same way",
        reject="Don't run it; the turn stops",
        tool_id=tool_id,
        tool_name=tool_name,
        body=body,
    )


def tool_server_dialog(tool_name: str, tool_input: Any, tool_id: str | None) -> Dialog:
    """The prompt for a tool of the run's own servers that asks before every call: once or
    not at all (the CLI offers nothing that would outlive the call).

    Examples
    --------
    >>> d = tool_server_dialog("mcp__kernel__run_python", {"code": "x = 1"}, "call_1")
    >>> d.questions[0].text
    'Allow the kernel MCP server to run tool "run_python"?'
    >>> [o.label for o in d.questions[0].options], d.body.splitlines()
    (['Approve', 'Reject'], ['```python', 'x = 1', '```'])
    >>> tool_server_dialog("mcp__kernel__describe", {"name": "df"}, None).body.splitlines()[1]
    '{"name": "df"}'
    """
    server, _, tool = tool_name.removeprefix(_compat.MCP_NAMESPACE_PREFIX).partition("__")
    code = tool_input.get("code") if isinstance(tool_input, dict) else None
    if isinstance(code, str):
        body = f"```python\n{code}\n```"
    else:
        body = f"```json\n{json.dumps(tool_input, ensure_ascii=False)}\n```"
    return permission(
        _compat.MCP_APPROVAL_QUESTION.format(server=server, tool=tool),
        approve="Run the tool and continue",
        approve_always=None,
        reject="Cancel this tool call",
        tool_id=tool_id,
        tool_name=tool_name,
        body=body,
    )
