"""The wire APIs the scripted model speaks: a :class:`Dialect` each, and the table of the
paths that reach them.

A dialect reads a request (where its conversation stands, whether it is a side query) and
writes the answer (a scripted reply, a side reply, an API error) as its API does; the
server keeps the script, the ids and the record, the same for every API. A CLI that speaks
a known API on another path, or with other context prefixes, is one more row of
:data:`ROUTES`; a new API is a module of its wire format, its dialect here, and its rows.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..compat import CODEX_CONTEXT_PREFIXES, GEMINI_CONTEXT_PREFIXES
from . import _anthropic, _gemini, _openai_chat, _openai_responses
from ._script import ApiError, Reply
from ._wire import Conversation, Pace, WireResponse
from ._wire_errors import generate_content_error, messages_error, openai_error

__all__ = ["ROUTES", "Dialect", "NewId", "Request", "dialect_for"]


@dataclass(frozen=True)
class Request:
    """One request to a wire API, as its dialect reads it."""

    route: str
    """The path without its query and trailing slash (a ``generateContent`` path names the
    model and the method: ``/v1beta/models/<model>:streamGenerateContent``)."""
    body: dict[str, Any]
    headers: Mapping[str, str] = field(default_factory=dict)


NewId = Callable[[str], str]
"""A fresh id, unique for the server's life, with the given prefix (``"msg"`` gives
``msg_scripted_000001``)."""


class Dialect(Protocol):
    """One wire API as the scripted model speaks it."""

    def conversation(self, request: Request) -> Conversation:
        """Where the request stands in its conversation.

        Its latest user text (the agent's own context left out), the model's steps since,
        and the key of its turn (``""`` for a request in no turn).
        """

    def is_side_query(self, request: Request) -> bool:
        """Whether the agent asks on the side (a title, a probe, a routing classifier).

        A side query never consumes the script.
        """

    def side_reply(self, request: Request, text: str) -> Reply:
        """The answer to a side query or a request in no turn.

        It says ``text``, shaped as the request asks (JSON where it asks for JSON).
        """

    def error(self, error: ApiError) -> WireResponse:
        """The API's answer when the script fails a step."""

    def respond(self, reply: Reply, request: Request, new_id: NewId, pace: Pace) -> WireResponse:
        """The API's answer playing ``reply``, streamed when the request asks.

        Its ids (messages, items, tool calls) come from ``new_id``.
        """


class Messages:
    """The Messages API: a request without tools is a side query (titles, probes)."""

    def conversation(self, request: Request) -> Conversation:
        return _anthropic.conversation(request.body)

    def is_side_query(self, request: Request) -> bool:
        return not request.body.get("tools")

    def side_reply(self, request: Request, text: str) -> Reply:
        return Reply(text)

    def error(self, error: ApiError) -> WireResponse:
        return messages_error(error)

    def respond(self, reply: Reply, request: Request, new_id: NewId, pace: Pace) -> WireResponse:
        reply = _anthropic.delivered(reply, request.body)
        tool_ids = [new_id("toolu") for _ in reply.calls]
        beta = _anthropic.betas(request.headers)
        return _anthropic.respond(reply, request.body, new_id("msg"), tool_ids, pace, beta)


class TokenCount(Messages):
    """The Messages API's ``count_tokens``: a constant count, never a turn."""

    def conversation(self, request: Request) -> Conversation:
        return Conversation("", 0, "")

    def is_side_query(self, request: Request) -> bool:
        return True

    def respond(self, reply: Reply, request: Request, new_id: NewId, pace: Pace) -> WireResponse:
        return WireResponse(json_body={"input_tokens": 1})


@dataclass(frozen=True)
class Responses:
    """The Responses API; ``context`` holds how the agent's own user messages begin."""

    context: tuple[str, ...]

    def conversation(self, request: Request) -> Conversation:
        return _openai_responses.conversation(request.body, self.context)

    def is_side_query(self, request: Request) -> bool:
        return _openai_responses.is_side_query(request.body)

    def side_reply(self, request: Request, text: str) -> Reply:
        return _openai_responses.side_reply(request.body, text)

    def error(self, error: ApiError) -> WireResponse:
        return openai_error(error)

    def respond(self, reply: Reply, request: Request, new_id: NewId, pace: Pace) -> WireResponse:
        call_ids = [new_id("call") for _ in reply.calls]
        item_ids = (new_id("item") for _ in itertools.count())
        response_id = new_id("resp")
        return _openai_responses.respond(reply, request.body, response_id, item_ids, call_ids, pace)


class ChatCompletions:
    """The Chat Completions API: a request without tools is a side query (a title)."""

    def conversation(self, request: Request) -> Conversation:
        return _openai_chat.conversation(request.body)

    def is_side_query(self, request: Request) -> bool:
        return _openai_chat.is_side_query(request.body)

    def side_reply(self, request: Request, text: str) -> Reply:
        return Reply(text)

    def error(self, error: ApiError) -> WireResponse:
        return openai_error(error)

    def respond(self, reply: Reply, request: Request, new_id: NewId, pace: Pace) -> WireResponse:
        call_ids = [new_id("call") for _ in reply.calls]
        completion_id = new_id("chatcmpl")
        created = int(time.time())
        return _openai_chat.respond(reply, request.body, completion_id, call_ids, created, pace)


@dataclass(frozen=True)
class GenerateContent:
    """``generateContent`` and ``streamGenerateContent`` (the path names the model).

    ``context`` holds how the agent's own user text parts begin.
    """

    context: tuple[str, ...]

    def conversation(self, request: Request) -> Conversation:
        return _gemini.conversation(request.body, self.context)

    def is_side_query(self, request: Request) -> bool:
        return _gemini.is_side_query(request.body)

    def side_reply(self, request: Request, text: str) -> Reply:
        return Reply(_gemini.side_json(request.body, text))

    def error(self, error: ApiError) -> WireResponse:
        return generate_content_error(error)

    def respond(self, reply: Reply, request: Request, new_id: NewId, pace: Pace) -> WireResponse:
        model, _, method = request.route.rpartition("/")[2].partition(":")
        call_ids = [new_id("call") for _ in reply.calls]
        stream = method == "streamGenerateContent"
        return _gemini.respond(reply, request.body, model, call_ids, stream, pace)


_GENERATE_CONTENT = GenerateContent(context=GEMINI_CONTEXT_PREFIXES)

ROUTES: tuple[tuple[str, Dialect], ...] = (
    ("/v1/messages", Messages()),
    ("/v1/messages/count_tokens", TokenCount()),
    ("/v1/responses", Responses(context=CODEX_CONTEXT_PREFIXES)),
    ("/v1/chat/completions", ChatCompletions()),
    (":generateContent", _GENERATE_CONTENT),
    (":streamGenerateContent", _GENERATE_CONTENT),
)
"""How a request's path ends, and the dialect that answers it (the first row that fits).
The context prefixes are those of the pinned CLIs that speak each API."""


def dialect_for(route: str) -> Dialect | None:
    """The dialect that answers a request to ``route`` (a path without its query), if any.

    Examples
    --------
    >>> dialect_for("/v1beta/models/m:streamGenerateContent") is dialect_for("/x:generateContent")
    True
    >>> type(dialect_for("/v1/messages/count_tokens")).__name__, dialect_for("/v1/models")
    ('TokenCount', None)
    """
    return next((dialect for end, dialect in ROUTES if route.endswith(end)), None)
