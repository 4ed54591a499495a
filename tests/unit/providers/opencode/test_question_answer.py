"""An answer to OpenCode's question tool goes to the request its server lists, waiting for
the listing a store shows first; a question the server never lists is gone."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from lab_widget.errors import DialogChangedError
from lab_widget.provider import RunContext
from lab_widget.provider.opencode import _compat, _dialogs
from lab_widget.provider.opencode._server import STATE
from lab_widget.schema import Answer, Dialog, DialogAnswer, Question


class _Server(ThreadingHTTPServer):
    listed_after: float = 0.0
    started: float = 0.0
    replies: list[tuple[str, Any]]


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def do_GET(self) -> None:
        shown = time.monotonic() - self.server.started >= self.server.listed_after
        listed = [{"id": "q1", "tool": {"callID": "call-1"}}] if shown else []
        self._send(listed)

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.replies.append((self.path, body))
        self._send(True)

    def _send(self, value: object) -> None:
        data = json.dumps(value).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def server() -> Iterator[_Server]:
    httpd = _Server(("127.0.0.1", 0), _Handler)
    httpd.replies = []
    httpd.started = time.monotonic()
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()


def _context(tmp_path: Path, port: int) -> RunContext:
    context = RunContext(run_id="r", cwd=tmp_path, runtime_dir=tmp_path)
    STATE.write(context, {"port": port})
    return context


DIALOG = Dialog(
    kind="question",
    questions=[Question(header="Database", text="Which?", options=[])],
    tool_id="call-1",
)
ANSWER = DialogAnswer(answers=[Answer(selected=[], text="DuckDB")])


def test_an_answer_waits_for_the_server_to_list_the_question(
    tmp_path: Path, server: _Server
) -> None:
    server.listed_after = 1.0  # the store showed the call before the server listed it
    _dialogs.answer_question(_context(tmp_path, server.server_address[1]), DIALOG, ANSWER)
    assert server.replies == [("/question/q1/reply", {"answers": [["DuckDB"]]})]


def test_a_question_the_server_never_lists_is_gone(
    tmp_path: Path, server: _Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    server.listed_after = 3600.0
    monkeypatch.setattr(_compat, "QUESTION_LISTED_TIMEOUT", 0.5)
    with pytest.raises(DialogChangedError):
        _dialogs.answer_question(_context(tmp_path, server.server_address[1]), DIALOG, ANSWER)
    assert server.replies == []
