"""OpenCode's live signals: the permission requests its TUI's embedded server holds.

OpenCode 1.18.33 writes no permission request into its store (the tool part stays
``running`` until the answer), so the structured signal is the embedded server the run
starts on a fixed port: ``GET /permission`` lists the pending requests, each naming the
tool call (``tool.callID``) it holds; where that list fails, the server's event stream
(``_permission_feed.py``) holds the same requests.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ...schema import Dialog
from .. import LiveSignals, RunContext
from . import _compat
from ._dialogs import approval_dialog, call_input, tool_server_dialog
from ._family import OPENCODE, OpenCodeFamily
from ._permission_feed import feed_for
from ._server import STATE, get_json, server_url

__all__ = ["OpenCodeSignals", "pending_requests"]

_KEPT_SERVERS = 64
_answers: OrderedDict[str, list[dict[str, Any]]] = OrderedDict()
_answers_lock = threading.Lock()
# Per thread, the runs whose requests were looked up in the current snapshot: one request to
# the server (≈ 10 ms) then answers every question a refresh asks (up to five while working).
_looked = threading.local()


def pending_requests(context: RunContext) -> list[dict[str, Any]]:
    """The permission requests the run's agent waits on now.

    A server that does not answer in time (a loaded machine) leaves its last answer
    standing: a prompt the user has not answered is still open, and hiding it for one
    slow request would flip the run from ``question`` to ``working`` and back.
    """
    run = str(context.runtime_dir)
    held: dict[str, list[dict[str, Any]]] | None = getattr(_looked, "runs", None)
    if held is not None and run in held:
        return list(held[run])
    requests = _ask(context, run)
    if held is not None:
        held[run] = requests
    return list(requests)


def _ask(context: RunContext, run: str) -> list[dict[str, Any]]:
    base = server_url(context)
    if base is None:
        return []
    value = get_json(base + _compat.PERMISSION_PATH)
    # A server that answers is followed from then on; where the list fails (see
    # _permission_feed), the stream holds the same requests.
    feed = feed_for(base, start=isinstance(value, list))
    if not isinstance(value, list) and feed is not None and feed.wait_connected(0):
        value = feed.requests()
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


_inputs: OrderedDict[str, dict[str, Any]] = OrderedDict()
_first_asked: OrderedDict[str, float] = OrderedDict()
_inputs_lock = threading.Lock()


def _unseen_for(context: RunContext, request: dict[str, Any]) -> float:
    """Seconds since ``request`` was first looked at without its call's arguments."""
    key = f"{context.runtime_dir}:{request.get('id')}"
    now = time.monotonic()
    with _inputs_lock:
        first = _first_asked.setdefault(key, now)
        while len(_first_asked) > _KEPT_SERVERS:
            _first_asked.popitem(last=False)
    return now - first


def _input_of(context: RunContext, request: dict[str, Any]) -> dict[str, Any] | None:
    """The arguments of the call ``request`` holds, asked of the server once per request."""
    key = f"{context.runtime_dir}:{request.get('id')}"
    with _inputs_lock:
        if key in _inputs:
            return _inputs[key]
    base = server_url(context)
    found = call_input(base, request) if base is not None else None
    if found is not None:
        with _inputs_lock:
            _inputs[key] = found
            while len(_inputs) > _KEPT_SERVERS:
                _inputs.popitem(last=False)
    return found


def _answerable(request: dict[str, Any]) -> bool:
    """Any named request the server can take a reply for (``_compat.PERMISSION_KINDS``)."""
    return isinstance(request.get("permission"), str) and bool(request.get("id"))


class OpenCodeSignals(LiveSignals):
    """Pending permission requests, asked of the run's embedded server (of any CLI of the
    family: ``family`` names it in what the dialogs say).
    """

    def __init__(self, family: OpenCodeFamily = OPENCODE) -> None:
        self.family = family

    def pending_dialog(self, context: RunContext) -> Dialog | None:
        for request in pending_requests(context):
            if not _answerable(request):
                continue
            asking = STATE.read(context).get("asking")
            if isinstance(asking, list) and request["permission"] in asking:
                found = _input_of(context, request)
                if found is None and _unseen_for(context, request) < _compat.CALL_INPUT_WAIT:
                    return None  # not a dialog yet: one without its code would be approved blind
                return tool_server_dialog(request, found)
            return approval_dialog(request, self.family.always_scope)
        return None

    def blocked(self, context: RunContext) -> str | None:
        requests = pending_requests(context)
        if not requests or any(_answerable(r) for r in requests):
            return None
        what = requests[0].get("permission") or "a tool"
        return f"{self.family.name} asks for permission to use {what}; answer it in the terminal."

    def signature(self, context: RunContext) -> object:
        return tuple(str(r.get("id")) for r in pending_requests(context))

    def sweep(self, context: RunContext) -> None:
        return  # the server forgets answered requests itself

    @contextmanager
    def snapshot(self, context: RunContext) -> Iterator[None]:
        outer = getattr(_looked, "runs", None)
        if outer is not None:
            yield  # already inside one: its look stands
            return
        _looked.runs = {}
        try:
            yield
        finally:
            _looked.runs = None
