"""The scripted model's HTTP server: 127.0.0.1, an ephemeral port, one thread per request."""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import socket
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from http.server import ThreadingHTTPServer
from types import TracebackType
from typing import Any
from urllib.parse import urlsplit

from ._dialects import Dialect, Request, dialect_for
from ._http import handler_for
from ._script import (
    DEFAULT_FALLBACK,
    DEFAULT_SUBAGENT_FALLBACK,
    ApiError,
    Reply,
    Rule,
    Script,
    TurnSpec,
)
from ._wire import BURST, Conversation, Pace, WireResponse, delegated_prompt

__all__ = ["RecordedRequest", "ScriptedModel"]

# The agent's side queries (titles, probes, summaries), and requests in no turn, are
# answered with this (shaped as each asks), never consuming the script.
_SIDE_TEXT = "Scripted session"


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
    subagent: bool = False
    """Whether a sub-agent sent it (answered by the rules, never by the sequence)."""


class ScriptedModel:
    """A local model server that plays a deterministic script over real wire APIs.

    It speaks the Anthropic Messages API, the OpenAI Responses and Chat Completions APIs
    and the Gemini API, and streams like a real model: reasoning first, then each text
    block and tool call, with a pause after each block, and usage late (a small partial
    figure first where the API sends one, the final figures at the end).

    Parameters
    ----------
    sequence
        Turns played in order, one per new user message that no rule matches. A mapping
        is taken as rules (substring → turn).
    rules
        :class:`Rule` objects tried first, in order, on the latest user text.
    fallback
        The turn played when neither a rule nor the sequence has one.
    subagent_fallback
        The turn a sub-agent plays when no rule matches its prompt.
    model_name
        The model name reported when a request does not name one.
    block_delay
        Seconds of pause after each streamed block (reasoning, text, tool call), before the
        next one or the closing usage: 0.2 by default, enough for an agent to see a
        response arrive in parts and cheap enough for a test suite. A :class:`Reply` may
        set its own.
    chunk_delay
        Seconds between the streamed chunks of one block (0 by default).
    burst
        Answer at once, as one burst per response (``block_delay`` and ``chunk_delay`` 0),
        for tests that do not care how a response streams.
    headers
        Response headers sent with every scripted answer (a :class:`Reply`'s own
        ``headers`` add to them): the rate-limit headers an agent CLI reads its quotas
        from, as the vendor's API sends them.

    Examples
    --------
    >>> import json, urllib.request
    >>> with ScriptedModel(["Hello from the script."], burst=True) as model:
    ...     req = urllib.request.Request(
    ...         model.base_url + "/v1/messages",
    ...         data=json.dumps({"model": "m", "max_tokens": 10, "tools": [{"name": "t"}],
    ...                          "messages": [{"role": "user", "content": "hi"}]}).encode(),
    ...         headers={"content-type": "application/json"})
    ...     reply = json.load(urllib.request.urlopen(req))
    >>> reply["content"][0]["text"]
    'Hello from the script.'

    A turn that thinks, talks, and hands a task to a sub-agent, whose own requests are
    answered by the rule on its prompt:

    >>> from lab_widget.scripted import Reply, Rule, ToolUse
    >>> model = ScriptedModel(
    ...     rules=[
    ...         Rule("count the files", [
    ...             Reply(tools=[ToolUse("Bash", {"command": "ls | wc -l"})]),
    ...             Reply("3 files"),
    ...         ], subagent=True),
    ...     ],
    ...     sequence=[[
    ...         Reply(thinking="A sub-agent can count.", blocks=[
    ...             "Let me delegate that.",
    ...             ToolUse("Task", {"description": "Count files", "prompt": "count the files"}),
    ...         ]),
    ...         Reply("The sub-agent is counting."),
    ...         Reply("It found 3 files."),
    ...     ]],
    ... )
    """

    def __init__(
        self,
        sequence: Sequence[TurnSpec] | Mapping[str, TurnSpec] = (),
        *,
        rules: Sequence[Rule] = (),
        fallback: TurnSpec = DEFAULT_FALLBACK,
        subagent_fallback: TurnSpec = DEFAULT_SUBAGENT_FALLBACK,
        model_name: str = "scripted-model",
        api_key: str = "sk-scripted-0000000000000000000000",
        block_delay: float = 0.2,
        chunk_delay: float = 0.0,
        burst: bool = False,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        if isinstance(sequence, Mapping):
            rules = [*rules, *(Rule(k, v) for k, v in sequence.items())]
            sequence = ()
        if block_delay < 0 or chunk_delay < 0:
            raise ValueError("block_delay and chunk_delay are seconds, not negative")
        self.script = Script(
            rules=list(rules),
            sequence=list(sequence),
            fallback=fallback,
            subagent_fallback=subagent_fallback,
        )
        self.model_name = model_name
        self.api_key = api_key
        self.pace = BURST if burst else Pace(block=block_delay, chunk=chunk_delay)
        self.headers = dict(headers or {})
        self._lock = threading.Lock()
        self._turns: dict[str, tuple[tuple[Reply, ...], bool]] = {}
        self._failures: dict[tuple[str, int], int] = {}
        self._delegated: set[str] = set()
        self._requests: list[RecordedRequest] = []
        self._ids = itertools.count(1)
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._held = 0
        """Runs using the server now (see :meth:`acquire`)."""
        self._pinned = False
        """Started by its user (``start()``, ``with``): it serves until they stop it."""

    # -- lifecycle ---------------------------------------------------------------------

    def start(self) -> ScriptedModel:
        """Start serving (idempotent); returns ``self``. It serves until :meth:`stop`."""
        with self._lock:
            self._pinned = True
        return self._serve()

    def acquire(self) -> ScriptedModel:
        """Start serving for one run (a ``Run`` given this model calls it); returns ``self``.

        Each ``acquire`` is matched by one :meth:`release`; the server stops, and its port
        is freed, when the last run lets go, unless its user started it. What it received
        stays readable, and a later run starts it again.

        Examples
        --------
        >>> model = ScriptedModel()
        >>> model.acquire().running, model.acquire().running
        (True, True)
        >>> model.release(); model.running
        True
        >>> model.release(); model.running
        False
        """
        with self._lock:
            self._held += 1
        return self._serve()

    def release(self) -> None:
        """One run is done with the server (see :meth:`acquire`)."""
        with self._lock:
            self._held = max(0, self._held - 1)
            done = self._held == 0 and not self._pinned
        if done:
            self._shut()

    def _serve(self) -> ScriptedModel:
        with self._lock:
            if self._server is not None:
                return self
            server = ThreadingHTTPServer(("127.0.0.1", 0), handler_for(self))
            server.daemon_threads = True
            self._server = server
            self._thread = threading.Thread(
                target=server.serve_forever, name="lab-widget-scripted-model", daemon=True
            )
            self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and release the port (runs still using it get no answer)."""
        with self._lock:
            self._pinned = False
            self._held = 0
        self._shut()

    def _shut(self) -> None:
        with self._lock:
            server, self._server = self._server, None
        if server is not None:
            stopping = threading.Thread(target=server.shutdown, daemon=True)
            stopping.start()
            # The serving loop sees the request to stop only when it wakes: a connection
            # wakes it now rather than at its next half-second check.
            host, port = server.server_address[:2]
            with contextlib.suppress(OSError):
                socket.create_connection((f"{host!s}", port), timeout=1).close()
            stopping.join()
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
        server = self._server or self.start()._server
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

    @property
    def subagent_requests(self) -> list[RecordedRequest]:
        """The scripted requests sub-agents sent."""
        return [r for r in self.requests if r.scripted and r.subagent]

    # -- answering ---------------------------------------------------------------------

    def _next_id(self, prefix: str) -> str:
        return f"{prefix}_scripted_{next(self._ids):06d}"

    def _is_delegated(self, text: str) -> bool:
        # Agents may wrap the prompt they hand over; it stays a part of the user text.
        return any(p in text for p in self._delegated)

    def _play(self, conv: Conversation) -> tuple[Reply, Pace, bool]:
        """The reply to one scripted request, its pace, and whether a sub-agent asked."""
        with self._lock:
            known = self._turns.get(conv.key)
            if known is None:
                subagent = conv.subagent or self._is_delegated(conv.user_text)
                known = (self.script.choose(conv.user_text, subagent=subagent), subagent)
                self._turns[conv.key] = known
            turn, subagent = known
            # The turn's steps are used up but the agent asks again: end the turn quietly.
            reply = turn[conv.step] if conv.step < len(turn) else Reply("(end of scripted turn)")
            # A sub-agent this reply starts sends its first request once the call runs.
            self._delegated.update(p for p in map(delegated_prompt, reply.calls) if p)
        pace = Pace(
            block=self.pace.block if reply.block_delay is None else reply.block_delay,
            chunk=self.pace.chunk if reply.chunk_delay is None else reply.chunk_delay,
        )
        return reply, pace, subagent

    def _failure(self, conv: Conversation, reply: Reply, dialect: Dialect) -> WireResponse | None:
        """The error this request gets instead of ``reply``, if its step still fails."""
        error: ApiError | None = reply.error
        if error is None:
            return None
        with self._lock:
            key = (conv.key, conv.step)
            failed = self._failures.get(key, 0)
            if error.times is not None and failed >= error.times:
                return None
            self._failures[key] = failed + 1
        return self._with_headers(dialect.error(error), reply, True)

    def handle(
        self,
        method: str,
        path: str,
        body: dict[str, Any],
        headers: Mapping[str, str] | None = None,
    ) -> WireResponse:
        """Answer one request (the HTTP layer calls this; tests may too).

        The path picks the wire API's dialect. A request in a turn gets its scripted step
        (or the API's error where the script still fails the step); a side query, or a
        request in no turn, gets the side reply and leaves the script as it is. Either is
        recorded.
        """
        route = urlsplit(path).path.rstrip("/")
        dialect = dialect_for(route)
        if dialect is None:
            self._record(method, path, body, False, None, False)
            return WireResponse(
                json_body={"type": "error", "error": {"type": "not_found_error", "message": route}},
                status=404,
            )
        request = Request(route, body, dict(headers or {}))
        conv = dialect.conversation(request)
        scripted = not dialect.is_side_query(request) and bool(conv.key)
        if scripted:
            reply, pace, subagent = self._play(conv)
        else:
            reply, pace, subagent = dialect.side_reply(request, _SIDE_TEXT), BURST, False
        self._record(method, path, body, scripted, conv, subagent)
        if scripted and (failed := self._failure(conv, reply, dialect)):
            return failed
        if reply.model is not None:  # the model the response reports, not the one asked
            request = dataclasses.replace(request, body={**body, "model": reply.model})
        return self._with_headers(
            dialect.respond(reply, request, self._next_id, pace), reply, scripted
        )

    def _with_headers(self, answer: WireResponse, reply: Reply, scripted: bool) -> WireResponse:
        # Side queries carry the model's headers too: a CLI may read quotas from any answer.
        answer.headers.update(self.headers)
        if scripted:
            answer.headers.update(reply.headers)
        return answer

    def _record(
        self,
        method: str,
        path: str,
        body: dict[str, Any],
        scripted: bool,
        conv: Conversation | None,
        subagent: bool,
    ) -> None:
        text, step = (conv.user_text, conv.step) if conv is not None else ("", 0)
        with self._lock:
            self._requests.append(
                RecordedRequest(method, path, body, scripted, text, step, time.time(), subagent)
            )
