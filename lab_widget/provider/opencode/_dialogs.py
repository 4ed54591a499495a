"""OpenCode's permission prompt, known from the TUI's embedded server, and its keys.

OpenCode 1.18.33 writes no permission request into its store (the tool part stays
``running`` until the answer), so the structured signal is the embedded server the run
starts on a fixed port: ``GET /permission`` lists the pending requests, each naming the
tool call (``tool.callID``) it holds.
"""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from collections import OrderedDict
from typing import Any

from ...schema import Dialog, DialogAnswer, Option, Question
from .._seam import LiveSignals, RunContext, Terminal
from .._shared import approval_key, load_json, play_keys
from . import _compat

__all__ = ["OpenCodeSignals", "approval_dialog", "load_json", "pending_requests", "recipe"]

STATE_FILE = "opencode.json"


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def server_url(context: RunContext) -> str | None:
    """The run's embedded server, if it was given a port."""
    port = load_json(context.runtime_dir / STATE_FILE).get("port")
    return f"http://127.0.0.1:{port}" if isinstance(port, int) else None


def get_json(url: str) -> Any:
    """A JSON answer of the embedded server, ``None`` when it does not answer."""
    try:
        with urllib.request.urlopen(url, timeout=_compat.SERVER_TIMEOUT) as response:
            return json.load(response)
    except (OSError, ValueError, urllib.error.URLError):
        return None


_KEPT_SERVERS = 64
_answers: OrderedDict[str, list[dict[str, Any]]] = OrderedDict()
_answers_lock = threading.Lock()


def pending_requests(context: RunContext) -> list[dict[str, Any]]:
    """The permission requests the run's agent waits on now.

    A server that does not answer in time (a loaded machine) leaves its last answer
    standing: a prompt the user has not answered is still open, and hiding it for one
    slow request would flip the run from ``question`` to ``working`` and back.
    """
    base = server_url(context)
    if base is None:
        return []
    run = str(context.runtime_dir)
    value = get_json(base + _compat.PERMISSION_PATH)
    if not isinstance(value, list):
        with _answers_lock:
            return list(_answers.get(run, []))
    requests = [r for r in value if isinstance(r, dict)]
    with _answers_lock:
        _answers.pop(run, None)
        _answers[run] = requests
        while len(_answers) > _KEPT_SERVERS:
            _answers.popitem(last=False)
    return requests


def approval_dialog(request: dict[str, Any]) -> Dialog:
    """A shell permission request as a dialog.

    Examples
    --------
    >>> d = approval_dialog({"permission": "bash", "metadata": {"command": "ls"},
    ...                      "tool": {"callID": "call_1"}})
    >>> d.kind, d.tool_id, [o.label for o in d.questions[0].options]
    ('approval', 'call_1', ['Approve', 'Reject'])
    """
    metadata = _dict(request.get("metadata"))
    tool = _dict(request.get("tool"))
    command = metadata.get("command")
    question = Question(
        header="Permission",
        text="Permission required: run this shell command?",
        options=[
            Option(label=_compat.APPROVE, description="Allow once: run it this once"),
            Option(label=_compat.REJECT, description="Don't run it; the turn stops"),
        ],
        free_text=False,
    )
    return Dialog(
        kind="approval",
        questions=[question],
        tool_id=str(tool.get("callID")) if tool.get("callID") else None,
        tool_name=str(request.get("permission") or "bash"),
        body=f"```\n{command}\n```" if command else "",
    )


class OpenCodeSignals(LiveSignals):
    """Pending permission requests, asked of the run's embedded server."""

    def pending_dialog(self, context: RunContext) -> Dialog | None:
        for request in pending_requests(context):
            if request.get("permission") in _compat.APPROVAL_PERMISSIONS:
                return approval_dialog(request)
        return None

    def blocked(self, context: RunContext) -> str | None:
        requests = pending_requests(context)
        if not requests or any(
            r.get("permission") in _compat.APPROVAL_PERMISSIONS for r in requests
        ):
            return None
        what = requests[0].get("permission") or "a tool"
        return f"OpenCode asks for permission to use {what}; answer it in the terminal."

    def signature(self, context: RunContext) -> object:
        return tuple(str(r.get("id")) for r in pending_requests(context))

    def sweep(self, context: RunContext) -> None:
        return  # the server forgets answered requests itself


def recipe(dialog: Dialog, answer: DialogAnswer) -> list[str]:
    """The keys that play ``answer`` into the open permission prompt.

    Examples
    --------
    >>> from lab_widget.schema import Answer
    >>> d = approval_dialog({"permission": "bash", "tool": {"callID": "c"}})
    >>> recipe(d, DialogAnswer(answers=[Answer(selected=["Approve"])]))
    ['Enter']
    >>> recipe(d, DialogAnswer(answers=[Answer(selected=["Reject"])]))
    ['Escape']
    """
    return [approval_key(dialog, answer, _compat.APPROVAL_KEYS, _compat.REJECT)]


def play(terminal: Terminal, keys: list[str]) -> None:
    """Type a recipe once the prompt takes keys."""
    play_keys(terminal, keys, _compat.DIALOG_SETTLE)
