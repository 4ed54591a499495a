"""Mistral Vibe's dialogs: its tool approval prompt as the session store records it
(``callback_registered`` of kind ``approval``). The keys that answer it are
``_compat.APPROVAL``.
"""

from __future__ import annotations

import json
from typing import Any

from ...schema import Dialog
from .. import kit
from . import _compat

__all__ = ["approval_dialog"]


def approval_dialog(
    tool_input: dict[str, Any], tool_id: str, tool_name: str, *, always: bool = True
) -> Dialog:
    """The approval prompt about the call whose entry is ``tool_id`` (its input, as the
    store's ``callback_registered`` and the call's effect both give it).

    ``always=False`` offers no "allow for the session": a tool of the run's own servers
    that asks before every call. Code (a ``code`` input) is shown as Python.

    Examples
    --------
    >>> d = approval_dialog({"command": "touch a"}, "effect-1", "file_system.bash")
    >>> d.tool_id, d.body, d.questions[0].text
    ('effect-1', 'touch a', 'Permission for the file_system.bash tool')
    >>> d = approval_dialog({"code": "x = 1"}, "effect-2", "mcp_kernel.run_python", always=False)
    >>> [o.label for o in d.questions[0].options], d.body.splitlines()
    (['Approve', 'Reject'], ['```python', 'x = 1', '```'])
    """
    command, code = tool_input.get("command"), tool_input.get("code")
    if isinstance(code, str):
        body = f"```python\n{code}\n```"
    elif isinstance(command, str):
        body = command
    else:
        body = json.dumps(tool_input, sort_keys=True)
    return kit.approval_dialog(
        f"Permission for the {tool_name} tool",
        approve=_compat.APPROVE_CHOICE,
        approve_always=_compat.APPROVE_ALWAYS_CHOICE if always else None,
        reject=_compat.REJECT_CHOICE,
        tool_id=tool_id,
        tool_name=tool_name,
        body=body,
    )
