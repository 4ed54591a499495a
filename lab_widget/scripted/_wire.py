"""Pieces every wire dialect of the scripted model shares."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Conversation", "SseEvent", "WireResponse", "estimate_tokens", "text_chunks"]


@dataclass(frozen=True)
class Conversation:
    """Where a request stands: the latest user text and the step inside its turn.

    ``key`` identifies the conversation up to that user text, so that retries and later
    steps of one turn replay the same scripted turn.
    """

    user_text: str
    step: int
    key: str


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


def estimate_tokens(text: str) -> int:
    """A deterministic token estimate (about four characters a token).

    Examples
    --------
    >>> estimate_tokens(""), estimate_tokens("hello world")
    (1, 3)
    """
    return max(1, (len(text) + 3) // 4)


def text_chunks(text: str, size: int = 24) -> Iterator[str]:
    """Split text into streaming deltas.

    Examples
    --------
    >>> list(text_chunks("abcdef", size=4))
    ['abcd', 'ef']
    """
    for start in range(0, len(text), size):
        yield text[start : start + size]
