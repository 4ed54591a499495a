"""The embedded server's event stream (``GET /event``, server-sent events) as a submit
confirmation: the user message a submitted prompt creates is announced there at once.

Read over a plain socket with ``select`` (no thread, no polling): the stream is chunked
HTTP, decoded here just enough to find each ``data:`` line.
"""

from __future__ import annotations

import json
import select
import socket
import time
from typing import Any
from urllib.parse import urlsplit

from . import _compat
from ._server import without_login

__all__ = ["UserMessageWatch"]

_CONNECTED = "server.connected"


class _EventStream:
    """One open ``GET /event`` stream; :meth:`events` yields what arrived within a time."""

    def __init__(self, base_url: str, timeout: float) -> None:
        plain, headers = without_login(base_url)
        parts = urlsplit(plain)
        self._sock = socket.create_connection(
            (parts.hostname or "127.0.0.1", parts.port or 80), timeout=timeout
        )
        login = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
        request = (
            f"GET {_compat.EVENT_PATH} HTTP/1.1\r\nHost: {parts.netloc}\r\n{login}"
            "Accept: text/event-stream\r\n\r\n"
        )
        self._sock.sendall(request.encode())
        self._sock.setblocking(False)
        self._raw = b""
        self._body = b""
        self._headers_done = False

    def _fill(self, deadline: float) -> bool:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([self._sock], [], [], left)[0]:
            return False
        try:
            data = self._sock.recv(65536)
        except BlockingIOError:
            return True
        if not data:
            raise ConnectionError("the event stream closed")
        self._raw += data
        return True

    def _decode(self) -> None:
        if not self._headers_done:
            end = self._raw.find(b"\r\n\r\n")
            if end < 0:
                return
            status = self._raw.split(b"\r\n", 1)[0]
            if b" 200 " not in status + b" ":
                raise ConnectionError(f"the event stream answered {status!r}")
            self._raw = self._raw[end + 4 :]
            self._headers_done = True
        while True:  # chunked transfer: "<hex size>\r\n<data>\r\n"
            line_end = self._raw.find(b"\r\n")
            if line_end < 0:
                return
            size = int(self._raw[:line_end].split(b";")[0] or b"0", 16)
            if len(self._raw) < line_end + 2 + size + 2:
                return
            self._body += self._raw[line_end + 2 : line_end + 2 + size]
            self._raw = self._raw[line_end + 2 + size + 2 :]

    def events(self, deadline: float) -> list[dict[str, Any]]:
        """The events decoded by ``deadline`` (waits only while none has come)."""
        while True:
            self._decode()
            found: list[dict[str, Any]] = []
            while b"\n" in self._body:
                line, self._body = self._body.split(b"\n", 1)
                if line.startswith(b"data:"):
                    try:
                        event = json.loads(line[5:])
                    except ValueError:
                        continue
                    if isinstance(event, dict):
                        found.append(event)
            if found or not self._fill(deadline):
                return found

    def close(self) -> None:
        self._sock.close()


class UserMessageWatch:
    """A user message created on the run's server after the watch began: a submitted
    prompt. Opened (and connected) before the paste; raises :class:`OSError` when the
    server's stream cannot be opened.
    """

    def __init__(self, base_url: str) -> None:
        self._since_ms = time.time() * 1000
        self._stream = _EventStream(base_url, _compat.SERVER_TIMEOUT)
        self._arrived = False
        try:
            deadline = time.monotonic() + _compat.SERVER_TIMEOUT
            while not any(e.get("type") == _CONNECTED for e in self._stream.events(deadline)):
                if time.monotonic() >= deadline:
                    raise ConnectionError("the event stream did not connect")
        except (OSError, ValueError):
            self._stream.close()
            raise

    def _counts(self, event: dict[str, Any]) -> bool:
        if event.get("type") != _compat.PROMPT_SUBMITTED:
            return False
        properties = event.get("properties")
        info = properties.get("info") if isinstance(properties, dict) else None
        if not isinstance(info, dict) or info.get("role") != "user":
            return False
        created = (
            info.get("time", {}).get("created") if isinstance(info.get("time"), dict) else None
        )
        # A later update of an earlier prompt's message (its summary) is not this one.
        return isinstance(created, int | float) and created >= self._since_ms

    def wait(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while not self._arrived:
            try:
                events = self._stream.events(deadline)
            except (OSError, ValueError):
                return False
            self._arrived = any(self._counts(e) for e in events)
            if not events and time.monotonic() >= deadline:
                return False
        return True

    def close(self) -> None:
        self._stream.close()
