"""The script a :class:`~lab_widget.ScriptedModel` plays, independent of any wire API.

A script answers *turns*. A turn starts with a user message that carries text and
continues while the agent sends tool results back; each model request inside a turn is
one *step*. A :class:`Reply` is one step's answer (text and/or tool calls); a turn is a
list of replies played in order, one per step.

Which turn is played is decided by :class:`Rule` objects on the latest user text (first
match wins), else by the next unused entry of the sequence, else by the fallback.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Reply", "Rule", "Script", "ToolUse", "TurnSpec"]


@dataclass(frozen=True)
class ToolUse:
    """A tool call the scripted model makes.

    Parameters
    ----------
    name
        The tool's name as the agent CLI knows it (``"Bash"``, ``"AskUserQuestion"``...).
    input
        The tool's arguments.

    Examples
    --------
    >>> ToolUse("Bash", {"command": "echo hi"}).name
    'Bash'
    """

    name: str
    input: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Reply:
    """One model response: text, tool calls, or both.

    Parameters
    ----------
    text
        Assistant text, streamed in small deltas.
    tools
        Tool calls made after the text.
    input_tokens, output_tokens, cache_read_tokens, cache_write_tokens
        Usage figures reported on the wire; ``None`` derives a deterministic estimate.
    delay
        Seconds to wait before the response starts (to hold the agent in ``working``).
    chunk_delay
        Seconds between streamed text chunks.
    reasoning
        A reasoning summary sent before the text, on wire APIs that carry one (the
        Responses API); others leave it out.
    headers
        Response headers sent with this step, over the model's own ``headers`` (the
        rate-limit headers an agent CLI reads its quotas from).
    model
        The model name the response reports, instead of the one requested (a silent
        substitution, as a gateway's fallback does).

    Examples
    --------
    >>> Reply("Hello!").text
    'Hello!'
    >>> Reply(tools=[ToolUse("Bash", {"command": "ls"})]).stop_reason
    'tool_use'
    """

    text: str = ""
    tools: Sequence[ToolUse] = ()
    input_tokens: int | None = None
    output_tokens: int | None = None
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    delay: float = 0.0
    chunk_delay: float = 0.0
    reasoning: str = ""
    headers: Mapping[str, str] = field(default_factory=dict)
    model: str | None = None

    @property
    def stop_reason(self) -> str:
        """Why the response ends: ``"tool_use"`` when it calls tools, else ``"end_turn"``."""
        return "tool_use" if self.tools else "end_turn"


TurnSpec = str | Reply | Sequence[Reply | str]
"""A turn as users write it: a string, one reply, or a list of steps."""

Matcher = str | re.Pattern[str] | Callable[[str], bool]


def _as_turn(spec: TurnSpec) -> tuple[Reply, ...]:
    if isinstance(spec, str):
        return (Reply(spec),)
    if isinstance(spec, Reply):
        return (spec,)
    return tuple(Reply(s) if isinstance(s, str) else s for s in spec)


@dataclass(frozen=True)
class Rule:
    r"""Play ``then`` when the latest user text matches ``when``.

    ``when`` is a substring (case-insensitive), a compiled regular expression, or a
    predicate on the text.

    Examples
    --------
    >>> Rule("hello", "Hi!").matches("well, HELLO there")
    True
    >>> Rule(re.compile(r"^\d+$"), "a number").matches("42")
    True
    """

    when: Matcher
    then: TurnSpec

    def matches(self, text: str) -> bool:
        """Whether this rule applies to the user text."""
        if isinstance(self.when, str):
            return self.when.lower() in text.lower()
        if isinstance(self.when, re.Pattern):
            return self.when.search(text) is not None
        return bool(self.when(text))

    @property
    def turn(self) -> tuple[Reply, ...]:
        """The steps this rule plays."""
        return _as_turn(self.then)


DEFAULT_FALLBACK = "I am the scripted model and have no scripted reply for that."


@dataclass
class Script:
    """Rules, then a sequence, then a fallback.

    Examples
    --------
    >>> s = Script(rules=[Rule("ping", "pong")], sequence=["first", "second"])
    >>> [r.text for r in s.choose("ping")]
    ['pong']
    >>> [r.text for r in s.choose("anything")], [r.text for r in s.choose("more")]
    (['first'], ['second'])
    >>> s.choose("again")[0].text == DEFAULT_FALLBACK
    True
    """

    rules: Sequence[Rule] = ()
    sequence: Sequence[TurnSpec] = ()
    fallback: TurnSpec = DEFAULT_FALLBACK
    _cursor: int = 0

    def choose(self, user_text: str) -> tuple[Reply, ...]:
        """Pick the turn that answers ``user_text`` (advances the sequence)."""
        for rule in self.rules:
            if rule.matches(user_text):
                return rule.turn
        if self._cursor < len(self.sequence):
            turn = _as_turn(self.sequence[self._cursor])
            self._cursor += 1
            return turn
        return _as_turn(self.fallback)
