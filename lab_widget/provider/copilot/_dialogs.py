"""Copilot CLI's dialogs: its shell approval prompt as the session log records it
(``permission.requested``). The keys that answer it are ``_compat.APPROVAL``.
"""

from __future__ import annotations

from typing import Any

from ...schema import Dialog
from .. import kit
from . import _compat

__all__ = ["approval_dialog"]


def approval_dialog(request: dict[str, Any], tool_name: str) -> Dialog:
    """The approval a ``permission.requested`` event's ``permissionRequest`` opens.

    Examples
    --------
    >>> d = approval_dialog({"kind": "shell", "toolCallId": "c1", "fullCommandText": "touch a"},
    ...                     "bash")
    >>> d.tool_id, d.body, d.questions[0].text
    ('c1', 'touch a', 'Do you want to run this command?')
    """
    command = request.get("fullCommandText")
    return kit.approval_dialog(
        _compat.APPROVAL_QUESTION,
        approve=_compat.APPROVE_CHOICE,
        reject=_compat.REJECT_CHOICE,
        tool_id=str(request.get("toolCallId") or "") or None,
        tool_name=tool_name,
        body=command if isinstance(command, str) else "",
    )
