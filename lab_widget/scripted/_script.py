"""The script a :class:`~lab_widget.ScriptedModel` plays, independent of any wire API.

A script answers *turns*. A turn starts with a user message that carries text and
continues while the agent sends tool results back; each model request inside a turn is
one *step*. A :class:`Reply` is one step's answer: an ordered list of content blocks
(reasoning, text, tool calls), streamed block by block; a turn is a list of replies played
in order, one per step.

Which turn is played is decided by :class:`Rule` objects on the latest user text (first
match wins), else by the next unused entry of the sequence, else by the fallback. A
*sub-agent* the scripted model started (a portable ``ToolUse("Task", {"prompt": ...})``)
sends its own requests; they are answered by the rules alone and never take an entry of
the sequence.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = ["ApiError", "Block", "Reply", "Rule", "Script", "Thinking", "ToolUse", "TurnSpec"]

ApiErrorKind = Literal["rate_limit", "quota", "overloaded"]


@dataclass(frozen=True)
class ApiError:
    """An error the model's API answers with instead of the step's reply.

    Each wire API sends it as its vendor does: the HTTP status, the error body (Anthropic's
    ``rate_limit_error`` / ``overloaded_error``, OpenAI's ``rate_limit_exceeded`` /
    ``insufficient_quota``, Gemini's ``RESOURCE_EXHAUSTED`` with a ``QuotaFailure`` and a
    ``RetryInfo``) and a ``retry-after`` header when ``retry_after`` is given.

    Parameters
    ----------
    kind
        ``"rate_limit"`` (too many requests for now), ``"quota"`` (the plan's quota is
        spent) or ``"overloaded"`` (the service is busy).
    message
        The error's message; empty takes a vendor-like default.
    retry_after
        Seconds the API asks the client to wait, where it says.
    times
        How many requests of this step fail before the step's reply is sent (a client's
        retry then succeeds); ``None`` fails every request of it.

    Examples
    --------
    >>> ApiError().status, ApiError("overloaded").status
    (429, 529)
    >>> Reply("Back again.", error=ApiError(times=1)).error.times
    1
    """

    kind: ApiErrorKind = "rate_limit"
    message: str = ""
    retry_after: int | None = None
    times: int | None = None

    def __post_init__(self) -> None:
        if self.kind not in ("rate_limit", "quota", "overloaded"):
            raise ValueError(
                f"an ApiError's kind is rate_limit, quota or overloaded: {self.kind!r}"
            )
        if self.times is not None and self.times < 1:
            raise ValueError("ApiError(times=...) counts failed requests: at least 1")

    @property
    def status(self) -> int:
        """The HTTP status Anthropic's API uses (the other wires map it to theirs)."""
        return 529 if self.kind == "overloaded" else 429

    @property
    def text(self) -> str:
        """The message sent."""
        if self.message:
            return self.message
        return {
            "rate_limit": "Rate limit reached for requests",
            "quota": "You exceeded your current quota",
            "overloaded": "Overloaded",
        }[self.kind]


@dataclass(frozen=True)
class ToolUse:
    """A tool call the scripted model makes.

    Parameters
    ----------
    name
        The tool's name as the agent CLI knows it (``"Bash"``, ``"AskUserQuestion"``...).
        Two portable names are translated to the tool the agent offers: ``"Bash"`` (its
        shell tool) and ``"Task"`` (its sub-agent tool, with ``description``, ``prompt``
        and an optional ``subagent_type``).
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
class Thinking:
    """The model's reasoning, streamed as its own block.

    Parameters
    ----------
    text
        What the model thinks. Wire APIs that carry reasoning send it as they do (a
        ``thinking`` block, a ``reasoning`` summary, thought parts, reasoning deltas).
    redacted
        Send the reasoning only in its encrypted form, as a model does when it keeps its
        reasoning hidden: the text then only sizes the token count.

    Examples
    --------
    >>> Thinking("Which file?").redacted
    False
    """

    text: str = ""
    redacted: bool = False


Block = str | Thinking | ToolUse
"""One content block of a reply: text, reasoning, or a tool call."""


@dataclass(frozen=True)
class Reply:
    """One model response: reasoning, text and tool calls, streamed block by block.

    Parameters
    ----------
    text
        Assistant text, streamed in small deltas.
    tools
        Tool calls made after the text.
    thinking
        Reasoning sent before everything else, on every wire API (see :class:`Thinking`).
    thinking_redacted
        Send ``thinking`` only in encrypted form (an Anthropic ``redacted_thinking`` block,
        a reasoning item without summary, a thought signature without thought text).
    blocks
        The content in any order instead of ``text`` and ``tools``: strings are text blocks,
        :class:`Thinking` and :class:`ToolUse` the others, e.g. ``[Thinking("..."),
        "Let me look.", ToolUse("Bash", {...}), "Started."]``. ``thinking`` still goes
        first.
    input_tokens, output_tokens, reasoning_tokens, cache_read_tokens, cache_write_tokens
        Usage figures reported on the wire; ``None`` derives a deterministic estimate.
        ``output_tokens`` counts text and tool calls, ``reasoning_tokens`` the reasoning:
        each wire adds them up the way its API does.
    cache_write_1h_tokens
        The part of ``cache_write_tokens`` written to the one-hour cache: the Anthropic wire
        reports it apart from the five-minute writes (``usage.cache_creation``), as the API
        does; the other wires have one kind of cache write.
    delay
        Seconds to wait before the response starts (to hold the agent in ``working``).
    block_delay
        Seconds of pause after each streamed block (before the next one or the closing
        usage); ``None`` takes the model's default.
    chunk_delay
        Seconds between streamed chunks inside a block; ``None`` takes the model's default.
    reasoning
        Another name for ``thinking``, kept for older scripts.
    headers
        Response headers sent with this step, over the model's own ``headers`` (the
        rate-limit headers an agent CLI reads its quotas from).
    model
        The model name the response reports, instead of the one requested (a silent
        substitution, as a gateway's fallback does).
    error
        An :class:`ApiError` the API answers with instead (every time, or its first
        ``times`` requests before this reply).

    Examples
    --------
    >>> Reply("Hello!").text
    'Hello!'
    >>> Reply(tools=[ToolUse("Bash", {"command": "ls"})]).stop_reason
    'tool_use'
    >>> [type(b).__name__ for b in Reply("Done.", thinking="Hmm.").content]
    ['Thinking', 'str']
    """

    text: str = ""
    tools: Sequence[ToolUse] = ()
    thinking: str = ""
    thinking_redacted: bool = False
    blocks: Sequence[Block] = ()
    input_tokens: int | None = None
    output_tokens: int | None = None
    reasoning_tokens: int | None = None
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    cache_write_1h_tokens: int = 0
    delay: float = 0.0
    block_delay: float | None = None
    chunk_delay: float | None = None
    reasoning: str = ""
    headers: Mapping[str, str] = field(default_factory=dict)
    model: str | None = None
    error: ApiError | None = None

    def __post_init__(self) -> None:
        if self.blocks and (self.text or self.tools):
            raise ValueError("a Reply takes blocks= or text=/tools=, not both")
        if not 0 <= self.cache_write_1h_tokens <= self.cache_write_tokens:
            raise ValueError(
                "cache_write_1h_tokens is the part of cache_write_tokens written to the "
                f"one-hour cache: 0 to {self.cache_write_tokens}, not {self.cache_write_1h_tokens}"
            )
        if self.thinking and self.reasoning and self.thinking != self.reasoning:
            raise ValueError("thinking= and reasoning= name the same reasoning: give one")
        for block in self.blocks:
            if not isinstance(block, str | Thinking | ToolUse):
                raise TypeError(
                    f"a Reply block is a str, Thinking or ToolUse, not {type(block).__name__}"
                )
        for tool in self.tools:
            if not isinstance(tool, ToolUse):
                raise TypeError(f"Reply tools are ToolUse objects, not {type(tool).__name__}")

    @property
    def content(self) -> tuple[Block, ...]:
        """The blocks in the order they are streamed (empty text blocks left out)."""
        reasoning = self.thinking or self.reasoning
        head: tuple[Block, ...] = ()
        if reasoning or self.thinking_redacted:
            head = (Thinking(reasoning, self.thinking_redacted),)
        body: tuple[Block, ...] = (
            tuple(self.blocks)
            if self.blocks
            else ((self.text,) if self.text else ()) + tuple(self.tools)
        )
        return head + tuple(b for b in body if b != "")

    @property
    def calls(self) -> tuple[ToolUse, ...]:
        """The tool calls, in order."""
        return tuple(b for b in self.content if isinstance(b, ToolUse))

    @property
    def stop_reason(self) -> str:
        """Why the response ends: ``"tool_use"`` when it calls tools, else ``"end_turn"``."""
        return "tool_use" if self.calls else "end_turn"


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
    predicate on the text. A rule answers the main conversation and sub-agents alike
    unless ``subagent`` says which one it is for (``True``: only a sub-agent's requests,
    whose user text is the prompt it was given; ``False``: only the main conversation).

    Examples
    --------
    >>> Rule("hello", "Hi!").matches("well, HELLO there")
    True
    >>> Rule(re.compile(r"^\d+$"), "a number").matches("42")
    True
    >>> Rule("count", "3", subagent=True).matches("count the files")
    False
    >>> Rule("count", "3", subagent=True).matches("count the files", subagent=True)
    True
    """

    when: Matcher
    then: TurnSpec
    subagent: bool | None = None

    def matches(self, text: str, *, subagent: bool = False) -> bool:
        """Whether this rule applies to the user text of the main conversation or of a
        sub-agent.
        """
        if self.subagent is not None and self.subagent != subagent:
            return False
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
DEFAULT_SUBAGENT_FALLBACK = "The scripted sub-agent has no scripted reply for that task."


@dataclass
class Script:
    """Rules, then a sequence, then a fallback; sub-agents get rules, then their fallback.

    Examples
    --------
    >>> s = Script(rules=[Rule("ping", "pong")], sequence=["first", "second"])
    >>> [r.text for r in s.choose("ping")]
    ['pong']
    >>> [r.text for r in s.choose("anything")], [r.text for r in s.choose("more")]
    (['first'], ['second'])
    >>> s.choose("again")[0].text == DEFAULT_FALLBACK
    True
    >>> s.choose("a task", subagent=True)[0].text == DEFAULT_SUBAGENT_FALLBACK
    True
    """

    rules: Sequence[Rule] = ()
    sequence: Sequence[TurnSpec] = ()
    fallback: TurnSpec = DEFAULT_FALLBACK
    subagent_fallback: TurnSpec = DEFAULT_SUBAGENT_FALLBACK
    _cursor: int = 0

    def choose(self, user_text: str, *, subagent: bool = False) -> tuple[Reply, ...]:
        """Pick the turn that answers ``user_text`` (a main turn advances the sequence)."""
        for rule in self.rules:
            if rule.matches(user_text, subagent=subagent):
                return rule.turn
        if subagent:
            return _as_turn(self.subagent_fallback)
        if self._cursor < len(self.sequence):
            turn = _as_turn(self.sequence[self._cursor])
            self._cursor += 1
            return turn
        return _as_turn(self.fallback)
