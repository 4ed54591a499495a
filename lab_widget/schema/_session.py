"""The schema's session facts: usage per model, rate limits, turns, the session summary, and
a whole conversation as read (:class:`Chat`). Exported by :mod:`lab_widget.schema`,
whose ``__all__`` lists them.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from datetime import datetime
from decimal import Decimal
from pathlib import Path
from typing import Literal

from pydantic import Field

from ._messages import Message, State, Usage, _Model

AgentScope = Literal["main", "subagent", "compaction"]

CostUnit = Literal["USD"]


class ModelUsage(_Model):
    """Token totals of one model, for the main agent, its sub-agents or its compactions.

    A compaction (the agent summarising its conversation to free context) is a billed
    request of its own, counted in the session's totals under scope ``compaction``.

    Costs are exact decimals (:class:`decimal.Decimal`, a string in JSON), in USD.

    Examples
    --------
    >>> ModelUsage(model="m", usage=Usage(output_tokens=3), requests=1).scope
    'main'
    """

    model: str
    scope: AgentScope = "main"
    usage: Usage = Field(default_factory=Usage)
    requests: int = 0
    """API responses counted."""
    cost_usd_estimate: Decimal | None = None
    """``usage`` priced with the pinned table; ``None`` for a model it does not know."""
    vendor_cost_usd: Decimal | None = None
    """The cost the CLI itself recorded for this model, where it records one."""


RateLimitKind = Literal["usage", "requests", "tokens", "credits", "spend"]


class RateLimit(_Model):
    """One snapshot of a rate limit or quota, as the vendor reported it.

    The vendor gives either a share used (``used_percent``) or absolute figures (``used``,
    ``limit``, ``remaining`` in ``unit``), sometimes both; each is kept as given and never
    derived from the other. Absolute figures are exact decimals.

    Examples
    --------
    >>> r = RateLimit(limit_id="codex", window="primary", window_minutes=300, used_percent=42.5)
    >>> r.key, r.kind
    (('codex', 'primary'), 'usage')
    >>> RateLimit(limit_id="credits", kind="credits", remaining=Decimal("12.34")).model_dump(
    ...     mode="json", exclude_defaults=True)
    {'limit_id': 'credits', 'kind': 'credits', 'remaining': '12.34'}
    """

    limit_id: str
    """The vendor's id of the limit, in the vendor's words."""
    name: str | None = None
    """The vendor's label for it, where it gives one."""
    window: str | None = None
    """Which window of the limit (``"primary"``, ``"secondary"``, ``"five_hour"``...)."""
    window_minutes: int | None = None
    """How long the window is, where the vendor says."""
    kind: RateLimitKind = "usage"
    used_percent: float | None = None
    """Share of the window used, 0-100 (above 100 once exceeded), as reported."""
    used: Decimal | None = None
    limit: Decimal | None = None
    remaining: Decimal | None = None
    unit: str | None = None
    """The unit of ``used`` / ``limit`` / ``remaining`` (``"USD"``, ``"credits"``...)."""
    unlimited: bool | None = None
    resets_at: datetime | None = None
    status: str | None = None
    """The vendor's word for the limit's state (``"allowed"``, ``"rejected"``...)."""
    plan_type: str | None = None
    observed_at: datetime | None = None
    """When the vendor reported it (the record's time)."""
    source: str = ""
    """Where it was read (a transcript record, the CLI's status line, an error)."""

    @property
    def key(self) -> tuple[str, str | None]:
        """What identifies the limit across snapshots: its id and window."""
        return (self.limit_id, self.window)


TurnOutcome = Literal["ok", "error", "interrupted", "running"]


class TurnFacts(_Model):
    """What a transcript records about one turn beyond its messages.

    A reader keys each by ``seq``: the seq of the user message that started the turn.
    """

    seq: int
    prompt_id: str | None = None
    """The CLI's own id of the prompt, where it has one."""
    model_requested: str | None = None
    service_tier: str | None = None
    reasoning_effort: str | None = None
    duration_ms: int | None = None
    """How long the turn took, as the CLI recorded it."""
    vendor_cost_usd: Decimal | None = None
    """The turn's cost as the CLI reported it, where it does."""
    ended_at: datetime | None = None


class Turn(_Model):
    """One turn: a user prompt and everything the agent did until it answered.

    Derived from the conversation (a user prompt starts a turn) and the facts the reader
    records (:attr:`lab_widget.Run.turns`, :attr:`Chat.turns`). Costs are exact decimals,
    in USD.
    """

    index: int
    """0 for the conversation's first turn."""
    seq: int
    """The seq of the user message that started it."""
    last_seq: int
    """The seq of its last message."""
    prompt: str
    model_requested: str | None = None
    model: str | None = None
    """The model that answered (its last response's)."""
    models: list[str] = Field(default_factory=list)
    """Every model that answered in the turn, sub-agents' included, in order of use."""
    started_at: datetime | None = None
    ended_at: datetime | None = None
    duration_ms: int | None = None
    """As the CLI recorded it; else from the first and last message's times."""
    usage: Usage = Field(default_factory=Usage)
    """Every API response of the turn once, with its final figures, sub-agents included."""
    requests: int = 0
    cost_usd_estimate: Decimal | None = None
    vendor_cost_usd: Decimal | None = None
    currency: CostUnit = "USD"
    tool_calls: dict[str, int] = Field(default_factory=dict)
    """Tool calls by tool name."""
    tool_errors: int = 0
    errors: list[str] = Field(default_factory=list)
    """The error notes of the turn (API errors, failures the transcript records)."""
    service_tier: str | None = None
    reasoning_effort: str | None = None
    finished: bool = True
    """False for a turn still under way (the conversation's last)."""
    outcome: TurnOutcome = "ok"
    """How it ended: answered (``ok``), with an error note, interrupted, or still running."""


class SessionSummary(_Model):
    """What a transcript tells about its session as a whole.

    Costs are exact decimals (:class:`decimal.Decimal`, a string in JSON), in USD; a
    cost the CLI recorded (``vendor_cost_usd``) is shown beside the estimate, never
    replaced by it, and neither is a bill.
    """

    transcript_id: str | None = None
    model: str | None = None
    """The model that answered (the latest assistant message's)."""
    model_requested: str | None = None
    """The model the run asked for, where the transcript or the run records it."""
    usage: Usage = Field(default_factory=Usage)
    """Token totals as the vendor billed them: each API response counted once, with its
    final figures, sub-agents included."""
    models: list[ModelUsage] = Field(default_factory=list)
    """``usage`` broken down by model and scope (main agent, sub-agents), each priced
    on its own."""
    cost_usd_estimate: Decimal | None = None
    """``usage`` priced with lab_widget's pinned price table, model by model (an estimate,
    never a bill); ``None`` when the table knows none of the models."""
    vendor_cost_usd: Decimal | None = None
    """The cost the CLI itself recorded for the session, where it records one: exact, as
    the CLI wrote it, and still not an invoice."""
    currency: CostUnit = "USD"
    """The unit of both costs."""
    price_table: str | None = None
    """The version of the price table the estimate comes from."""
    rate_limits: list[RateLimit] = Field(default_factory=list)
    """The latest snapshot of each rate limit or quota the vendor reported."""
    turn_facts: list[TurnFacts] = Field(default_factory=list)
    """What the transcript records per turn (requested model, tier, effort, duration)."""
    context_tokens: int | None = None
    """Context used: the latest model response's input and cache tokens."""
    context_window: int | None = None
    """The model's context window, from the pinned table; ``None`` when unknown."""
    turn_durations_ms: list[int] = Field(default_factory=list)
    """How long each finished turn took, where the CLI records it."""
    cwd: str | None = None
    branch: str | None = None
    cli_version: str | None = None
    started_at: datetime | None = None
    updated_at: datetime | None = None


def subagent_threads(messages: list[Message]) -> dict[str, list[Message]]:
    """Each sub-agent's messages, keyed by the id of the call that started it.

    Examples
    --------
    >>> ms = [Message(seq=0, kind="text", role="user", text="go"),
    ...       Message(seq=1, kind="text", role="user", text="count", parent_tool_id="t1")]
    >>> {k: [m.text for m in v] for k, v in subagent_threads(ms).items()}
    {'t1': ['count']}
    """
    threads: dict[str, list[Message]] = {}
    for message in messages:
        if message.parent_tool_id is not None:
            threads.setdefault(message.parent_tool_id, []).append(message)
    return threads


Exporter = Callable[[Sequence["Chat"], "str | os.PathLike[str]", "str | None", "str | None"], Path]
"""Writes conversations, in order, to one file: ``(chats, path, title, format)``."""

_exporter: Exporter | None = None


def set_exporter(exporter: Exporter) -> None:
    """Install what :meth:`Exportable.export` (``Chat.export``, ``Run.export``...) calls.

    The schema is the base every layer builds on, so it cannot import the exporter, which
    builds on it: the exporter installs itself here when the package is imported.
    """
    global _exporter  # noqa: PLW0603 (one process-wide hook, set once at import)
    _exporter = exporter


class Exportable:
    """Written to one file as a notebook, Markdown or a self-contained page (:meth:`export`).

    A conversation (:class:`Chat`), a past session of a folder, and a run (its
    conversations, the earlier ones first) all export alike; each says what it writes.
    """

    def _exported(self) -> tuple[Sequence[Chat], str | None]:
        """The conversations to write, in order, and the title to write them under."""
        raise NotImplementedError

    def export(
        self,
        path: str | os.PathLike[str],
        *,
        title: str | None = None,
        format: str | None = None,
    ) -> Path:
        """Write the conversation (a run's: all of them, the earlier ones first) to ``path``
        as a notebook, Markdown or a self-contained page; returns the path written.

        The format follows the suffix: ``.ipynb`` (Markdown and code cells; an answer's
        Python blocks are code cells), ``.md``, or ``.html`` (sanitised, no script, images
        inline); ``format="ipynb" | "markdown" | "html"`` overrides it. Prompts, answers,
        tool calls with their input and results, dialogs with their answers, the reasoning
        (collapsed), sub-agents' work nested under the call that started each, and the
        tokens and estimated cost of each conversation are all in it. ``title`` heads the
        document (by default the run's or the session's name).
        """
        if _exporter is None:  # pragma: no cover (the package installs it on import)
            raise RuntimeError("lab_widget's exporter is not loaded: import lab_widget")
        chats, default = self._exported()
        return _exporter(chats, path, title or default, format)


class Chat(Exportable, _Model):
    """A whole conversation as read from a transcript.

    ``messages`` holds the sub-agents' messages too, each with the ``parent_tool_id`` of the
    call that started it; :attr:`main` leaves them out and :attr:`subagents` groups them.
    """

    messages: list[Message]
    state: State
    session: SessionSummary
    turns: list[Turn] = Field(default_factory=list)
    """One row per turn (a user prompt and what followed), with its tokens, costs and
    tools; filled by whoever builds the chat (:func:`lab_widget.read_transcript`,
    :meth:`lab_widget.Run.chat`)."""

    @property
    def main(self) -> list[Message]:
        """The conversation with the agent itself, without its sub-agents' messages."""
        return [m for m in self.messages if m.parent_tool_id is None]

    @property
    def subagents(self) -> dict[str, list[Message]]:
        """Each sub-agent's messages, keyed by the id of the call that started it."""
        return subagent_threads(self.messages)

    def _exported(self) -> tuple[Sequence[Chat], str | None]:
        return [self], None
