"""Gemini CLI's tool confirmations as dialogs; the keys that answer them are
``_compat.APPROVAL``.

A confirmation is known from the run's hook spool (``_signals.py``).
"""

from __future__ import annotations

import json
from typing import Any

from ...schema import Dialog
from ..kit import approval_dialog as permission
from . import _compat

__all__ = ["approval_dialog", "confirmation_id"]


def confirmation_id(record: dict[str, Any]) -> str:
    """The id a confirmation's dialog goes by: its Notification hook names no tool call
    (the call reaches the session file only once it is over), so its time stands in.

    Examples
    --------
    >>> confirmation_id({"timestamp": "2026-01-01T00:00:00.000Z"})
    'confirm:2026-01-01T00:00:00.000Z'
    """
    return f"confirm:{record.get('timestamp')}"


def approval_dialog(
    details: dict[str, Any],
    tool_id: str | None = None,
    *,
    tool_input: dict[str, Any] | None = None,
    always: bool = True,
) -> Dialog:
    r"""A confirmation (shell command, file edit, MCP tool, web fetch) as a dialog.

    An MCP tool's arguments come as ``tool_input`` when they are known (its BeforeTool
    hook; Python ``code`` shown as Python). ``always=False`` offers no "for this session":
    a tool of the run's own servers that asks before every call.

    Examples
    --------
    >>> d = approval_dialog({"type": "exec", "command": "touch /x"}, "confirm:t")
    >>> d.kind, d.tool_id, [o.label for o in d.questions[0].options]
    ('approval', 'confirm:t', ['Approve', 'Approve always', 'Reject'])
    >>> e = approval_dialog({"type": "edit", "fileName": "a.txt", "fileDiff": "+hi\n"})
    >>> e.questions[0].text, e.tool_name, e.body
    ('Apply this change to a.txt?', 'edit', '```diff\n+hi\n```')
    >>> m = approval_dialog({"type": "mcp", "serverName": "lab", "toolName": "lookup"})
    >>> m.questions[0].text, m.tool_name, m.questions[0].options[1].description
    ('Allow the MCP tool lookup of server lab?', 'mcp_lab_lookup', 'Allow tool for this session')
    >>> k = {"type": "mcp", "serverName": "kernel", "toolName": "run_python"}
    >>> k = approval_dialog(k, tool_input={"code": "x = 1"}, always=False)
    >>> [o.label for o in k.questions[0].options], k.body.splitlines()
    (['Approve', 'Reject'], ['```python', 'x = 1', '```'])
    """
    kind = details.get("type")
    if kind == _compat.EDIT_CONFIRM:
        name = details.get("fileName") or details.get("filePath")
        diff = str(details.get("fileDiff") or "").rstrip("\n")
        text = _compat.EDIT_QUESTION
        if name:
            text = f"{text.removesuffix('?')} to {name}?"
        what, tool_name = "Make this change once", "edit"
        body = f"```diff\n{diff}\n```" if diff else ""
    elif kind == _compat.MCP_CONFIRM:
        server, tool = str(details.get("serverName") or ""), str(details.get("toolName") or "")
        text = f"Allow the MCP tool {tool} of server {server}?"
        what, tool_name = "Call it this once", f"{_compat.MCP_PREFIX}{server}_{tool}"
        body = _mcp_body(server, tool, tool_input)
    elif kind == _compat.INFO_CONFIRM:
        urls = [str(u) for u in details.get("urls") or []]
        text = "Allow fetching " + (", ".join(urls) if urls else "from the web") + "?"
        what, tool_name = "Fetch it this once", "web_fetch"
        prompt = str(details.get("prompt") or "")
        body = f"```\n{prompt}\n```" if prompt else ""
    else:
        command = details.get("command")
        text, what, tool_name = _compat.APPROVAL_QUESTION, "Run it this once", _compat.SHELL_TOOL
        body = f"```\n{command}\n```" if command else ""
    return permission(
        text,
        approve=what,
        approve_always=_compat.ALWAYS_CHOICES.get(str(kind), _compat.ALWAYS_CHOICES["exec"])
        if always
        else None,
        reject="Don't do it; the turn stops",
        tool_id=tool_id,
        tool_name=tool_name,
        body=body,
    )


def _mcp_body(server: str, tool: str, tool_input: dict[str, Any] | None) -> str:
    if tool_input is None:
        return (
            f"MCP server **{server}**, tool **{tool}**.\n\n"
            "Its arguments show in the terminal only: the CLI does not report them."
        )
    code = tool_input.get("code")
    if isinstance(code, str) and len(tool_input) == 1:
        return f"```python\n{code}\n```"
    return f"```json\n{json.dumps(tool_input, indent=2)}\n```"
