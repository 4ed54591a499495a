"""The permission requests a run's embedded server announces on its event stream.

``GET /permission`` is the plain way to list what the agent waits on, but in 1.18.33 it
answers 400 ("Expected JSON value, got undefined at [0]["metadata"]["timeout"]") while any
pending request holds an undefined field, as a web fetch without a timeout does. The event
stream (``GET /event``, server-sent events) announces the same request as
``permission.asked`` and its end as ``permission.replied``, so one reader per server keeps
the requests it saw open; the run's signals use it whenever the list does not answer.
"""

from __future__ import annotations

import http.client
import json
import logging
import threading
import urllib.parse
from typing import Any

from . import _compat
from ._server import without_login

__all__ = ["PermissionFeed", "feed_for"]

_log = logging.getLogger(__name__)


class PermissionFeed:
    """Open permission requests of one server, kept from its event stream by a daemon
    thread that ends when the stream does (the agent exited).
    """

    def __init__(self, base: str) -> None:
        self.base = base
        self._lock = threading.Lock()
        self._open: dict[str, dict[str, Any]] = {}
        self._connected = threading.Event()
        self._thread = threading.Thread(target=self._follow, name="opencode-events", daemon=True)
        self._thread.start()

    @property
    def alive(self) -> bool:
        return self._thread.is_alive()

    def wait_connected(self, timeout: float) -> bool:
        """Whether the stream is open (requests asked before it are not seen)."""
        return self._connected.wait(timeout)

    def requests(self) -> list[dict[str, Any]]:
        """The requests announced and not yet replied to, oldest first."""
        with self._lock:
            return list(self._open.values())

    def _follow(self) -> None:
        plain, headers = without_login(self.base)
        parts = urllib.parse.urlsplit(plain)
        conn = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port)
        try:
            headers["Accept"] = "text/event-stream"
            conn.request("GET", _compat.EVENT_PATH, headers=headers)
            # The server sends its headers with its first event, ``server.connected``, at
            # once on subscribing: from then on no request goes unannounced. A server that
            # refuses the stream is no feed (its empty list would hide open requests).
            stream = conn.getresponse()
            if stream.status != 200:
                _log.debug("event stream of %s refused: %s", self.base, stream.status)
                return
            self._connected.set()
            for raw in stream:
                self._take(raw)
        except (OSError, http.client.HTTPException, ValueError) as exc:
            _log.debug("event stream of %s ended: %s", self.base, exc)
        finally:
            conn.close()

    def _take(self, raw: bytes) -> None:
        line = raw.decode(errors="replace").strip()
        if not line.startswith("data:"):
            return
        try:
            event = json.loads(line[5:])
        except ValueError:
            return
        if not isinstance(event, dict) or not isinstance(event.get("properties"), dict):
            return
        props = event["properties"]
        kind = event.get("type")
        with self._lock:
            if kind == _compat.PERMISSION_ASKED and isinstance(props.get("id"), str):
                self._open[props["id"]] = props
            elif kind == _compat.PERMISSION_REPLIED:
                self._open.pop(str(props.get("requestID")), None)


_feeds: dict[str, PermissionFeed] = {}
_feeds_lock = threading.Lock()


def feed_for(base: str, *, start: bool = True) -> PermissionFeed | None:
    """The feed of the server at ``base``, (re)started when its stream is not followed
    (with ``start=False``: only one that follows it now).
    """
    with _feeds_lock:
        if not start:
            found = _feeds.get(base)
            return found if found is not None and found.alive else None
        feed = _feeds.get(base)
        if feed is None or not feed.alive:
            feed = _feeds[base] = PermissionFeed(base)
        return feed
