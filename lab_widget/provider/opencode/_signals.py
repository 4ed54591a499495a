"""OpenCode's live signals: the permission requests its TUI's embedded server holds.

OpenCode 1.18.33 writes no permission request into its store (the tool part stays
``running`` until the answer), so the structured signal is the embedded server the run
starts on a fixed port: ``GET /permission`` lists the pending requests, each naming the
tool call (``tool.callID``) it holds.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

from ...schema import Dialog
from .. import LiveSignals, RunContext
from . import _compat
from ._dialogs import approval_dialog
from ._server import get_json, server_url

__all__ = ["OpenCodeSignals", "pending_requests"]

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
