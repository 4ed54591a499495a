"""Pieces every wire dialect of the scripted model shares."""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from ._script import Reply, Thinking, ToolUse

__all__ = [
    "BURST",
    "Conversation",
    "Pace",
    "SseEvent",
    "Tokens",
    "UserTurn",
    "WireResponse",
    "conversation_in",
    "count_role",
    "delegated_prompt",
    "estimate_tokens",
    "opaque",
    "partial_output",
    "text_chunks",
    "tokens",
]


@dataclass(frozen=True)
class Conversation:
    """Where a request stands: the latest user text and the step inside its turn.

    ``key`` identifies the conversation up to that user text, so that retries and later
    steps of one turn replay the same scripted turn. ``subagent`` says the agent marked
    the request as a sub-agent's own (a marker its wire carries); the server also knows
    the prompts of the sub-agents it started.
    """

    user_text: str
    step: int
    key: str
    subagent: bool = False


@dataclass(frozen=True)
class UserTurn:
    """The latest entry of a request in which the user wrote, and what led to it."""

    text: str
    history: list[str]
    """Every user text up to it, in order: with the agent's own context left out, what
    identifies one turn of one conversation."""
    asked: Sequence[Any]
    """The request's entries up to it and with it."""


def conversation_in(
    entries: object,
    user_text: Callable[[Any], str | None],
    steps: Callable[[Sequence[Any]], int],
    *,
    key: Callable[[UserTurn], str] = lambda turn: json.dumps(turn.history),
    subagent: bool = False,
) -> Conversation:
    """Where a request stands, read from its list of entries (messages, contents, items):
    the latest entry ``user_text`` finds the user's words in, and the model's ``steps``
    after it (all of them when no entry has any).

    Examples
    --------
    >>> said = lambda e: e.get("say")
    >>> answers = lambda es: sum(1 for e in es if "do" in e)
    >>> conversation_in([{"say": "hi"}, {"do": 1}, {"say": "go"}, {"do": 2}], said, answers)
    Conversation(user_text='go', step=1, key='["hi", "go"]', subagent=False)
    >>> conversation_in("not a list", said, answers).key
    ''
    """
    listed: list[Any] = entries if isinstance(entries, list) else []
    for index in range(len(listed) - 1, -1, -1):
        text = user_text(listed[index])
        if text is not None:
            asked = listed[: index + 1]
            history = [t for t in map(user_text, asked) if t is not None]
            turn = UserTurn(text, history, asked)
            return Conversation(text, steps(listed[index + 1 :]), key(turn), subagent)
    return Conversation("", steps(listed), "", subagent)


def count_role(role: str) -> Callable[[Sequence[Any]], int]:
    """The model's steps where each is one entry of ``role`` (for :func:`conversation_in`).

    Examples
    --------
    >>> count_role("model")([{"role": "user"}, {"role": "model"}, "?", {"role": "model"}])
    2
    """

    def count(entries: Sequence[Any]) -> int:
        return sum(1 for e in entries if isinstance(e, dict) and e.get("role") == role)

    return count


@dataclass(frozen=True)
class Pace:
    """How fast a response streams.

    ``block`` is the pause after each content block (before the next block, or before the
    closing event that carries the final usage); ``chunk`` the pause between the chunks of
    one block.
    """

    block: float = 0.0
    chunk: float = 0.0


BURST = Pace()
"""Everything at once: side queries, and models asked for ``burst=True``."""


@dataclass(frozen=True)
class SseEvent:
    """One server-sent event; ``delay`` is slept before it is written."""

    event: str | None
    data: dict[str, Any] | str
    delay: float = 0.0


@dataclass
class WireResponse:
    """Either a JSON body or a stream of SSE events."""

    json_body: dict[str, Any] | None = None
    events: Iterator[SseEvent] | None = None
    delay: float = 0.0
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    """Extra response headers (rate-limit headers a CLI reads its quotas from)."""


@dataclass(frozen=True)
class Tokens:
    """A response's usage before a wire API arranges it.

    ``output`` counts text and tool calls, ``reasoning`` the reasoning; APIs that report
    one output figure add them.
    """

    input: int
    output: int
    reasoning: int
    cache_read: int
    cache_write: int
    cache_write_1h: int = 0
    """The part of ``cache_write`` written to the one-hour cache."""


def estimate_tokens(text: str) -> int:
    """A deterministic token estimate (about four characters a token).

    Examples
    --------
    >>> estimate_tokens(""), estimate_tokens("hello world")
    (1, 3)
    """
    return max(1, (len(text) + 3) // 4)


_REDACTED_TOKENS = 16
"""The reasoning tokens of a redacted block the script gave no text for."""


def tokens(reply: Reply, prompt: str) -> Tokens:
    """The usage of ``reply`` to a request whose conversation serialises to ``prompt``.

    Examples
    --------
    >>> t = tokens(Reply("abcdefgh", thinking="abcd"), "x" * 40)
    >>> t.input, t.output, t.reasoning
    (10, 2, 1)
    >>> tokens(Reply(thinking_redacted=True), "").reasoning
    16
    """
    visible = sum(estimate_tokens(b) for b in reply.content if isinstance(b, str))
    visible += 10 * len(reply.calls)
    thought = sum(
        estimate_tokens(b.text) if b.text else _REDACTED_TOKENS
        for b in reply.content
        if isinstance(b, Thinking)
    )
    return Tokens(
        input=reply.input_tokens if reply.input_tokens is not None else estimate_tokens(prompt),
        output=reply.output_tokens if reply.output_tokens is not None else max(1, visible),
        reasoning=reply.reasoning_tokens if reply.reasoning_tokens is not None else thought,
        cache_read=reply.cache_read_tokens,
        cache_write=reply.cache_write_tokens,
        cache_write_1h=reply.cache_write_1h_tokens,
    )


def partial_output(total: int) -> int:
    """The small output count a stream reports before its final one (1 to 8).

    Examples
    --------
    >>> partial_output(1), partial_output(13), partial_output(500)
    (1, 6, 8)
    """
    return max(1, min(8, total // 2))


def opaque(kind: str, text: str) -> str:
    """A deterministic stand-in for a signature or encrypted payload (base64).

    Examples
    --------
    >>> opaque("sig", "a") == opaque("sig", "a") != opaque("sig", "b")
    True
    """
    digest = hashlib.sha256(f"{kind}\0{text}".encode()).digest()
    return base64.b64encode(b"scripted:" + kind.encode() + b":" + digest).decode()


def text_chunks(text: str, size: int = 24) -> Iterator[str]:
    """Split text into streaming deltas.

    Examples
    --------
    >>> list(text_chunks("abcdef", size=4))
    ['abcd', 'ef']
    """
    for start in range(0, len(text), size):
        yield text[start : start + size]


_SUBAGENT_PROMPTS: dict[str, str] = {
    "Task": "prompt",
    "Agent": "prompt",
    "spawn_agent": "message",
    "invoke_agent": "prompt",
    "task": "prompt",
}
"""Sub-agent tools (the portable ``Task`` and each agent's own) and the argument that
carries the sub-agent's prompt."""


def delegated_prompt(tool: ToolUse) -> str:
    """The prompt a sub-agent call gives the sub-agent (``""`` for any other call).

    Examples
    --------
    >>> delegated_prompt(ToolUse("Task", {"prompt": " count the files "}))
    'count the files'
    >>> delegated_prompt(ToolUse("spawn_agent", {"message": "look"}))
    'look'
    >>> delegated_prompt(ToolUse("Bash", {"prompt": "x"}))
    ''
    """
    argument = _SUBAGENT_PROMPTS.get(tool.name)
    prompt = tool.input.get(argument) if argument else None
    return prompt.strip() if isinstance(prompt, str) else ""
