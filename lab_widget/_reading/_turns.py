"""Turns: a user prompt and everything the agent did until it answered, one row each.

Derived the same way for every provider, from the message list (a user message starts a
turn) and the facts a reader records per turn (:class:`~lab_widget.schema.TurnFacts`:
requested model, service tier, reasoning effort, the CLI's own duration and cost). A slash
command that ran no model request is no turn.

Examples
--------
>>> from lab_widget.schema import Message, SessionSummary, ToolCall, Usage
>>> ms = [
...     Message(seq=0, kind="text", role="user", text="list files"),
...     Message(seq=1, kind="tool", role="assistant", model="claude-haiku-4-5",
...             tool=ToolCall(id="t", name="Bash", status="ok"),
...             usage=Usage(input_tokens=1_000_000)),
...     Message(seq=2, kind="text", role="assistant", model="claude-haiku-4-5", text="Two.",
...             usage=Usage(output_tokens=1_000_000)),
... ]
>>> [turn] = derive_turns(ms, SessionSummary())
>>> turn.prompt, turn.tool_calls, turn.requests, turn.usage.total, turn.cost_usd_estimate
('list files', {'Bash': 1}, 2, 2000000, Decimal('6'))
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal

from ..schema import Chat, Message, SessionSummary, State, Turn, TurnFacts, Usage
from ._pricing import estimate_cost, tidy

__all__ = ["INTERRUPTED_NOTE", "chat_of", "derive_turns"]

INTERRUPTED_NOTE = "Interrupted"
"""The lifecycle note every reader writes where the user stopped a turn."""


def _starts_turn(message: Message) -> bool:
    return message.role == "user" and message.kind == "text" and message.parent_tool_id is None


def chat_of(messages: list[Message], state: State, session: SessionSummary) -> Chat:
    """A conversation as one value: its messages, state and summary, and the turns they make."""
    return Chat(
        messages=messages,
        state=state,
        session=session,
        turns=derive_turns(messages, session, state),
    )


def derive_turns(
    messages: Sequence[Message], summary: SessionSummary, state: State = "idle"
) -> list[Turn]:
    """The turns of a conversation, oldest first.

    Parameters
    ----------
    messages
        The conversation (``run.messages``, ``chat.messages``), sub-agents' messages
        included: their tokens and tools count in the turn that started them.
    summary
        The session's facts; its ``turn_facts`` add what the transcript records per turn.
    state
        The conversation's state: while ``working``, the last turn is not finished.
    """
    facts = {f.seq: f for f in summary.turn_facts}
    starts = [i for i, m in enumerate(messages) if _starts_turn(m)]
    turns: list[Turn] = []
    for number, start in enumerate(starts):
        end = starts[number + 1] if number + 1 < len(starts) else len(messages)
        turn = _turn(len(turns), messages[start:end], facts.get(messages[start].seq), summary)
        if turn is not None:
            turns.append(turn)
    if turns and state == "working":
        turns[-1] = turns[-1].model_copy(update={"finished": False, "outcome": "running"})
    return turns


def _turn(
    index: int, messages: Sequence[Message], fact: TurnFacts | None, summary: SessionSummary
) -> Turn | None:
    prompt = messages[0]
    usage, requests = Usage(), 0
    estimate: Decimal | None = None
    models: list[str] = []
    answering: str | None = None
    tools: dict[str, int] = {}
    tool_errors = 0
    errors: list[str] = []
    interrupted = False
    for message in messages[1:]:
        if message.usage is not None:
            usage, requests = usage + message.usage, requests + 1
            cost = estimate_cost(message.model, message.usage)
            if cost is not None:
                estimate = cost if estimate is None else estimate + cost
        if message.model and message.role == "assistant":
            if message.model not in models:
                models.append(message.model)
            if message.parent_tool_id is None:
                answering = message.model
        if message.tool is not None:
            tools[message.tool.name] = tools.get(message.tool.name, 0) + 1
            tool_errors += message.tool.status == "error"
        if message.kind == "lifecycle" and message.level == "error":
            errors.append(message.text)
        interrupted = interrupted or (
            message.kind == "lifecycle" and message.text.strip() == INTERRUPTED_NOTE
        )
    if prompt.command is not None and requests == 0 and not tools:
        return None  # a command that asked the model nothing
    started = prompt.timestamp
    stamps = [m.timestamp for m in messages if m.timestamp is not None]
    ended = (fact.ended_at if fact else None) or (max(stamps) if stamps else None)
    duration = fact.duration_ms if fact else None
    if duration is None and started is not None and ended is not None and len(messages) > 1:
        duration = int((ended - started).total_seconds() * 1000)
    return Turn(
        index=index,
        seq=prompt.seq,
        last_seq=messages[-1].seq,
        prompt=prompt.text,
        model_requested=(fact.model_requested if fact else None) or summary.model_requested,
        model=answering or (models[-1] if models else None),
        models=models,
        started_at=started,
        ended_at=ended,
        duration_ms=duration,
        usage=usage,
        requests=requests,
        cost_usd_estimate=tidy(estimate) if estimate is not None else None,
        vendor_cost_usd=fact.vendor_cost_usd if fact else None,
        tool_calls=tools,
        tool_errors=tool_errors,
        errors=errors,
        service_tier=fact.service_tier if fact else None,
        reasoning_effort=fact.reasoning_effort if fact else None,
        outcome="interrupted" if interrupted else "error" if errors else "ok",
    )
