"""Copilot CLI's dialogs: its shell approval prompt as the session log records it
(``permission.requested``), and plan mode's review of the plan (an ``exit_plan_mode``
call). The keys that answer them are ``_compat.APPROVAL`` and ``_compat.PLAN_KEYS``.
"""

from __future__ import annotations

import json
from typing import Any

from ...schema import Dialog, Option, Question
from .. import APPROVE, REJECT, kit
from . import _compat

__all__ = ["approval_dialog", "plan_dialog", "plan_ended"]


def approval_dialog(request: dict[str, Any], tool_name: str) -> Dialog:
    """The approval a ``permission.requested`` event's ``permissionRequest`` opens.

    Examples
    --------
    >>> d = approval_dialog({"kind": "shell", "toolCallId": "c1", "fullCommandText": "touch a"},
    ...                     "bash")
    >>> d.tool_id, d.body, d.questions[0].text
    ('c1', 'touch a', 'Do you want to run this command?')
    >>> m = approval_dialog({"kind": "mcp", "toolCallId": "c2", "serverName": "kernel",
    ...                      "toolTitle": "run_python", "args": {"code": "x = 1"}},
    ...                     "kernel-run_python")
    >>> m.questions[0].text, [o.label for o in m.questions[0].options], m.body.splitlines()
    ('Allow run_python of kernel?', ['Approve', 'Reject'], ['```python', 'x = 1', '```'])
    """
    if request.get("kind") == _compat.MCP_REQUEST:
        return _tool_server_dialog(request, tool_name)
    command = request.get("fullCommandText")
    return kit.approval_dialog(
        _compat.APPROVAL_QUESTION,
        approve=_compat.APPROVE_CHOICE,
        approve_always=_compat.ALWAYS_CHOICE,
        reject=_compat.REJECT_CHOICE,
        tool_id=str(request.get("toolCallId") or "") or None,
        tool_name=tool_name,
        body=command if isinstance(command, str) else "",
    )


def _tool_server_dialog(request: dict[str, Any], tool_name: str) -> Dialog:
    """An MCP tool's prompt, answered once or not at all: its "don't ask again" row would
    keep the tool allowed for the folder in the CLI's home, beyond the run (the user's own
    home when the run is not isolated).
    """
    args = request.get("args")
    code = args.get("code") if isinstance(args, dict) else None
    if isinstance(code, str):
        body = f"```python\n{code}\n```"
    else:
        body = f"```json\n{json.dumps(args, ensure_ascii=False)}\n```"
    title = request.get("toolTitle") or tool_name
    return kit.approval_dialog(
        f"Allow {title} of {request.get('serverName')}?",
        approve=_compat.APPROVE_CHOICE,
        approve_always=None,
        reject=_compat.REJECT_CHOICE,
        tool_id=str(request.get("toolCallId") or "") or None,
        tool_name=tool_name,
        body=body,
    )


def plan_dialog(tool_input: dict[str, Any], call_id: str | None) -> Dialog:
    """An ``exit_plan_mode`` call as a plan dialog, its summary as the body.

    Examples
    --------
    >>> d = plan_dialog({"summary": "- touch a"}, "c1")
    >>> d.kind, d.body, [o.label for o in d.questions[0].options]
    ('plan', '- touch a', ['Approve', 'Reject'])
    """
    question = Question(
        header="Plan",
        text=_compat.PLAN_QUESTION,
        options=[
            Option(label=APPROVE, description=_compat.PLAN_APPROVE),
            Option(label=REJECT, description=_compat.PLAN_REJECT),
        ],
        free_text=False,
    )
    summary = tool_input.get("summary")
    return Dialog(
        kind="plan",
        questions=[question],
        tool_id=call_id,
        tool_name=_compat.PLAN_TOOL,
        body=summary if isinstance(summary, str) else "",
    )


def plan_ended(dialog: Dialog, success: bool, said: str) -> Dialog:
    """The plan dialog as its call's result ended it: approved, or rejected (``said``)."""
    if success:
        return dialog.model_copy(update={"status": "answered", "outcome": "approved"})
    return dialog.model_copy(update={"status": "rejected", "outcome": said or "rejected"})
