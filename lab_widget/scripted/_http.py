"""The scripted model's HTTP side: a request read into a body, an answer written back as JSON or
as a server-sent event stream with the pauses a real model makes between events.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler
from typing import Any, Protocol

from ._wire import WireResponse

__all__ = ["Answers", "handler_for"]


class Answers(Protocol):
    """What the handler asks: the answer to one request."""

    def handle(
        self,
        method: str,
        path: str,
        body: dict[str, Any],
        headers: Mapping[str, str] | None = ...,
    ) -> WireResponse: ...


def handler_for(model: Answers) -> type[BaseHTTPRequestHandler]:
    """A request handler class that hands every request to ``model`` and writes its answer."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            return  # keep notebooks and test output quiet

        def do_GET(self) -> None:
            self._answer(model.handle("GET", self.path, {}, dict(self.headers)))

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                body = {}
            payload = body if isinstance(body, dict) else {}
            self._answer(model.handle("POST", self.path, payload, dict(self.headers)))

        def _answer(self, response: WireResponse) -> None:
            try:
                self._write(response)
            except (BrokenPipeError, ConnectionResetError):
                return  # the agent hung up (an interrupt): nothing to deliver

        def _write(self, response: WireResponse) -> None:
            if response.delay:
                time.sleep(response.delay)
            if response.events is None:
                data = json.dumps(response.json_body or {}).encode()
                self.send_response(response.status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self._extra_headers(response)
                self.end_headers()
                self.wfile.write(data)
                return
            self.send_response(response.status)
            self.send_header("content-type", "text/event-stream")
            self.send_header("cache-control", "no-cache")
            self.send_header("connection", "close")
            self._extra_headers(response)
            self.end_headers()
            self.close_connection = True
            for event in response.events:
                if event.delay:
                    time.sleep(event.delay)
                text = event.data if isinstance(event.data, str) else json.dumps(event.data)
                head = f"event: {event.event}\n" if event.event else ""
                self.wfile.write(f"{head}data: {text}\n\n".encode())
                self.wfile.flush()

        def _extra_headers(self, response: WireResponse) -> None:
            for name, value in response.headers.items():
                self.send_header(name, value)

    return Handler
