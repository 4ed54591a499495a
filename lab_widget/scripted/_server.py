"""The scripted model's HTTP server: 127.0.0.1, an ephemeral port, one thread per request."""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any
from urllib.parse import urlsplit

from . import _anthropic, _chat, _gemini, _responses
from ._script import DEFAULT_FALLBACK, Reply, Rule, Script, TurnSpec
from ._wire import WireResponse

__all__ = ["RecordedRequest", "ScriptedModel"]

# Requests that carry no tool list are the agent's side queries (titles, probes,
# summaries): answered with this, never consuming the script.
_SIDE_REPLY = Reply("Scripted session")


@dataclass(frozen=True)
class RecordedRequest:
    """A request the scripted model received."""

    method: str
    path: str
    body: dict[str, Any]
    scripted: bool
    """Whether it was answered from the script (not a side query)."""
    user_text: str
    step: int
    time: float


class ScriptedModel:
    """A local model server that plays a deterministic script over real wire APIs.

    Parameters
    ----------
    sequence
        Turns played in order, one per new user message that no rule matches. A mapping
        is taken as rules (substring → turn).
    rules
        :class:`Rule` objects tried first, in order, on the latest user text.
    fallback
        The turn played when neither a rule nor the sequence has one.
    model_name
        The model name reported when a request does not name one.
    headers
        Response headers sent with every scripted answer (a :class:`Reply`'s own
        ``headers`` add to them): the rate-limit headers an agent CLI reads its quotas
        from, as the vendor's API sends them.

    Examples
    --------
    >>> import json, urllib.request
    >>> with ScriptedModel(["Hello from the script."]) as model:
    ...     req = urllib.request.Request(
    ...         model.base_url + "/v1/messages",
    ...         data=json.dumps({"model": "m", "max_tokens": 10, "tools": [{"name": "t"}],
    ...                          "messages": [{"role": "user", "content": "hi"}]}).encode(),
    ...         headers={"content-type": "application/json"})
    ...     reply = json.load(urllib.request.urlopen(req))
    >>> reply["content"][0]["text"]
    'Hello from the script.'
    """

    def __init__(
        self,
        sequence: Sequence[TurnSpec] | Mapping[str, TurnSpec] = (),
        *,
        rules: Sequence[Rule] = (),
        fallback: TurnSpec = DEFAULT_FALLBACK,
        model_name: str = "scripted-model",
        api_key: str = "sk-scripted-0000000000000000000000",
        headers: Mapping[str, str] | None = None,
    ) -> None:
        if isinstance(sequence, Mapping):
            rules = [*rules, *(Rule(k, v) for k, v in sequence.items())]
            sequence = ()
        self.script = Script(rules=list(rules), sequence=list(sequence), fallback=fallback)
        self.model_name = model_name
        self.api_key = api_key
        self.headers = dict(headers or {})
        self._lock = threading.Lock()
        self._turns: dict[str, tuple[Reply, ...]] = {}
        self._requests: list[RecordedRequest] = []
        self._ids = itertools.count(1)
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle ---------------------------------------------------------------------

    def start(self) -> ScriptedModel:
        """Start serving (idempotent); returns ``self``."""
        with self._lock:
            if self._server is not None:
                return self
            server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
            server.daemon_threads = True
            self._server = server
            self._thread = threading.Thread(
                target=server.serve_forever, name="lab-widget-scripted-model", daemon=True
            )
            self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and release the port."""
        with self._lock:
            server, self._server = self._server, None
        if server is not None:
            server.shutdown()
            server.server_close()

    def __enter__(self) -> ScriptedModel:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def __repr__(self) -> str:
        where = self.base_url if self._server is not None else "stopped"
        return f"<ScriptedModel {where}>"

    @property
    def running(self) -> bool:
        """Whether the server is serving."""
        return self._server is not None

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:<port>`` (starts the server if needed)."""
        server = self.start()._server
        assert server is not None
        host, port = server.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def requests(self) -> list[RecordedRequest]:
        """Every request received so far, oldest first."""
        with self._lock:
            return list(self._requests)

    @property
    def scripted_requests(self) -> list[RecordedRequest]:
        """The requests answered from the script (side queries left out)."""
        return [r for r in self.requests if r.scripted]

    # -- answering ---------------------------------------------------------------------

    def _next_id(self, prefix: str) -> str:
        return f"{prefix}_scripted_{next(self._ids):06d}"

    def _reply_for(self, user_text: str, step: int, key: str) -> Reply:
        with self._lock:
            turn = self._turns.get(key)
            if turn is None:
                turn = self.script.choose(user_text)
                self._turns[key] = turn
        if step < len(turn):
            return turn[step]
        # The turn's steps are used up but the agent asks again: end the turn quietly.
        return Reply("(end of scripted turn)")

    def handle(self, method: str, path: str, body: dict[str, Any]) -> WireResponse:
        """Answer one request (the HTTP layer calls this; tests may too)."""
        route = urlsplit(path).path.rstrip("/")
        if route.endswith("/v1/messages"):
            conv = _anthropic.conversation(body)
            scripted = bool(body.get("tools")) and bool(conv.key)
            reply = (
                self._reply_for(conv.user_text, conv.step, conv.key) if scripted else _SIDE_REPLY
            )
            self._record(method, path, body, scripted, conv.user_text, conv.step)
            tool_ids = [self._next_id("toolu") for _ in reply.tools]
            answer = _anthropic.respond(
                reply, _as_model(reply, body), self._next_id("msg"), tool_ids
            )
            return self._with_headers(answer, reply, scripted)
        if route.endswith("/v1/responses"):
            conv = _responses.conversation(body)
            scripted = not _responses.is_side_query(body) and bool(conv.key)
            reply = (
                self._reply_for(conv.user_text, conv.step, conv.key)
                if scripted
                else _responses.side_reply(body, _SIDE_REPLY.text)
            )
            self._record(method, path, body, scripted, conv.user_text, conv.step)
            call_ids = [self._next_id("call") for _ in reply.tools]
            item_ids = iter(self._next_id("item") for _ in itertools.count())
            answer = _responses.respond(
                reply, _as_model(reply, body), self._next_id("resp"), item_ids, call_ids
            )
            return self._with_headers(answer, reply, scripted)
        if route.endswith("/v1/chat/completions"):
            conv = _chat.conversation(body)
            scripted = not _chat.is_side_query(body) and bool(conv.key)
            reply = (
                self._reply_for(conv.user_text, conv.step, conv.key) if scripted else _SIDE_REPLY
            )
            self._record(method, path, body, scripted, conv.user_text, conv.step)
            call_ids = [self._next_id("call") for _ in reply.tools]
            answer = _chat.respond(
                reply,
                _as_model(reply, body),
                self._next_id("chatcmpl"),
                call_ids,
                created=int(time.time()),
            )
            return self._with_headers(answer, reply, scripted)
        if route.endswith((":generateContent", ":streamGenerateContent")):
            return self._gemini(method, path, route, body)
        if route.endswith("/v1/messages/count_tokens"):
            self._record(method, path, body, False, "", 0)
            return WireResponse(json_body={"input_tokens": 1})
        self._record(method, path, body, False, "", 0)
        return WireResponse(
            json_body={"type": "error", "error": {"type": "not_found_error", "message": route}},
            status=404,
        )

    def _gemini(self, method: str, path: str, route: str, body: dict[str, Any]) -> WireResponse:
        conv = _gemini.conversation(body)
        scripted = not _gemini.is_side_query(body) and bool(conv.key)
        reply = (
            self._reply_for(conv.user_text, conv.step, conv.key)
            if scripted
            else Reply(_gemini.side_json(body, _SIDE_REPLY.text))
        )
        self._record(method, path, body, scripted, conv.user_text, conv.step)
        model, _, verb = route.rpartition("/")[2].partition(":")
        call_ids = [self._next_id("call") for _ in reply.tools]
        answer = _gemini.respond(
            reply, body, model, call_ids, stream=verb == "streamGenerateContent"
        )
        return self._with_headers(answer, reply, scripted)

    def _with_headers(self, answer: WireResponse, reply: Reply, scripted: bool) -> WireResponse:
        # Side queries carry the model's headers too: a CLI may read quotas from any answer.
        answer.headers.update(self.headers)
        if scripted:
            answer.headers.update(reply.headers)
        return answer

    def _record(
        self, method: str, path: str, body: dict[str, Any], scripted: bool, text: str, step: int
    ) -> None:
        with self._lock:
            self._requests.append(
                RecordedRequest(method, path, body, scripted, text, step, time.time())
            )


def _as_model(reply: Reply, body: dict[str, Any]) -> dict[str, Any]:
    """The request as the dialects read it, naming the model ``reply`` answers as."""
    return body if reply.model is None else {**body, "model": reply.model}


def _handler_for(model: ScriptedModel) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            return  # keep notebooks and test output quiet

        def do_GET(self) -> None:
            self._answer(model.handle("GET", self.path, {}))

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                body = {}
            self._answer(model.handle("POST", self.path, body if isinstance(body, dict) else {}))

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
