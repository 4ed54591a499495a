"""Conversations as pandas DataFrames (pandas is the optional ``pandas`` extra).

One row per message, per turn or per rate limit. Costs stay exact: their columns hold
:class:`decimal.Decimal` values (``object`` dtype), in USD, so sums and comparisons are
decimal arithmetic, never floats.

Examples
--------
>>> from lab_widget.schema import Message
>>> frame = to_dataframe([Message(seq=0, kind="text", role="user", text="hi")])
>>> frame[["seq", "role", "text"]].to_dict("records")
[{'seq': 0, 'role': 'user', 'text': 'hi'}]
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Sequence
from typing import Any, Literal

from ..errors import MissingDependencyError
from ..schema import Chat, Message, RateLimit, SessionSummary, Turn
from ._pricing import estimate_cost
from ._turns import derive_turns

__all__ = [
    "COLUMNS",
    "RATE_LIMIT_COLUMNS",
    "TURN_COLUMNS",
    "MissingDependencyError",
    "rate_limits_dataframe",
    "to_dataframe",
    "turns_dataframe",
]

_TOKENS = (
    "input_tokens",
    "output_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
    "cache_write_1h_tokens",
    "reasoning_tokens",
)
"""A message's or a turn's usage, one column a figure (``cache_write_1h_tokens`` is the part
of ``cache_write_tokens`` written to the one-hour cache, billed higher)."""

COLUMNS = (
    "seq",
    "kind",
    "role",
    "text",
    "thinking",
    "parent_tool_id",
    "command",
    "tool_name",
    "tool_status",
    "tool_output_len",
    "dialog_status",
    "dialog_answers",
    "attachments",
    "model",
    *_TOKENS,
    "cost_usd_estimate",
    "timestamp",
)
"""The message frame's columns, in order. ``dialog_answers`` holds a dialog's answers once it
ended, one ``{"selected": [...], "text": ...}`` per question: the words a user typed (a
rejected plan's reason among them) are its ``text``."""

TURN_COLUMNS = (
    "turn",
    "seq",
    "last_seq",
    "prompt",
    "model_requested",
    "model",
    "models",
    "started_at",
    "ended_at",
    "duration_ms",
    "requests",
    *_TOKENS,
    "cost_usd_estimate",
    "vendor_cost_usd",
    "tool_calls",
    "tools",
    "tool_errors",
    "errors",
    "service_tier",
    "reasoning_effort",
    "finished",
)
"""The turn frame's columns, in order: ``tools`` maps each tool to its calls,
``tool_calls`` is their sum, ``errors`` the error notes of the turn."""

RATE_LIMIT_COLUMNS = (
    "limit_id",
    "name",
    "window",
    "window_minutes",
    "kind",
    "used_percent",
    "used",
    "limit",
    "remaining",
    "unit",
    "unlimited",
    "resets_at",
    "status",
    "plan_type",
    "observed_at",
    "source",
)
"""The rate-limit frame's columns (those of :class:`~lab_widget.schema.RateLimit`)."""

By = Literal["message", "turn", "rate_limit"]


def _pandas() -> Any:
    try:
        return importlib.import_module("pandas")
    except ImportError as exc:
        raise MissingDependencyError("pandas", "pandas") from exc


def _row(message: Message) -> dict[str, Any]:
    tool = message.tool
    dialog = message.dialog
    usage = message.usage
    row: dict[str, Any] = {
        "seq": message.seq,
        "kind": message.kind,
        "role": message.role,
        "text": message.text,
        "thinking": message.thinking,
        "parent_tool_id": message.parent_tool_id,
        "command": message.command,
        "tool_name": tool.name if tool else None,
        "tool_status": tool.status if tool else None,
        "tool_output_len": len(tool.output) if tool and tool.output is not None else None,
        "dialog_status": dialog.status if dialog else None,
        "dialog_answers": (
            [a.model_dump() for a in dialog.answers] if dialog and dialog.answers else None
        ),
        "attachments": len(message.attachments),
        "model": message.model,
        "cost_usd_estimate": estimate_cost(message.model, usage),
        "timestamp": message.timestamp,
    }
    for name in _TOKENS:
        row[name] = getattr(usage, name) if usage is not None else None
    return row


def _turn_row(turn: Turn) -> dict[str, Any]:
    row: dict[str, Any] = {
        "turn": turn.index,
        "seq": turn.seq,
        "last_seq": turn.last_seq,
        "prompt": turn.prompt,
        "model_requested": turn.model_requested,
        "model": turn.model,
        "models": ", ".join(turn.models),
        "started_at": turn.started_at,
        "ended_at": turn.ended_at,
        "duration_ms": turn.duration_ms,
        "requests": turn.requests,
        "cost_usd_estimate": turn.cost_usd_estimate,
        "vendor_cost_usd": turn.vendor_cost_usd,
        "tool_calls": sum(turn.tool_calls.values()),
        "tools": dict(turn.tool_calls),
        "tool_errors": turn.tool_errors,
        "errors": list(turn.errors),
        "service_tier": turn.service_tier,
        "reasoning_effort": turn.reasoning_effort,
        "finished": turn.finished,
    }
    for name in _TOKENS:
        row[name] = getattr(turn.usage, name)
    return row


def _times(frame: Any, pd: Any, *names: str) -> None:
    for name in names:
        frame[name] = pd.to_datetime(frame[name], utc=True)


def to_dataframe(messages: Chat | Iterable[Message], by: By = "message") -> Any:
    """One row per message, per turn or per rate limit, with tokens and costs.

    Parameters
    ----------
    messages
        Messages (``run.messages``) or a whole :class:`~lab_widget.schema.Chat`
        (``read_transcript(path)``, ``run.chat()``).
    by
        ``"message"`` (the default), ``"turn"`` (see :func:`turns_dataframe`) or
        ``"rate_limit"`` (see :func:`rate_limits_dataframe`; needs a ``Chat``).

    Returns
    -------
    pandas.DataFrame
        By message, the columns of :data:`COLUMNS`: one row per message, sub-agents'
        messages included (``parent_tool_id`` names the call that started the sub-agent;
        filter on it, or on ``thinking`` to leave the model's reasoning out). Token columns
        are nullable integers, empty where a message carries no usage (usage belongs to
        one message per model response, with its final figures); ``cost_usd_estimate``
        holds exact decimals (USD), empty for those and for models the price table does
        not know; ``timestamp`` is timezone-aware UTC.

    Raises
    ------
    MissingDependencyError
        pandas is not installed (``pip install 'lab_widget[pandas]'``).
    ValueError
        ``by="rate_limit"`` on bare messages, or an unknown ``by``.
    """
    if by == "turn":
        return turns_dataframe(messages if isinstance(messages, Chat) else list(messages))
    if by == "rate_limit":
        if not isinstance(messages, Chat):
            raise ValueError("rate limits are the session's: pass a Chat (run.chat())")
        return rate_limits_dataframe(messages.session.rate_limits)
    if by != "message":
        raise ValueError(f"by must be 'message', 'turn' or 'rate_limit', not {by!r}")
    pd = _pandas()
    items = messages.messages if isinstance(messages, Chat) else list(messages)
    frame = pd.DataFrame([_row(m) for m in items], columns=list(COLUMNS))
    for name in (*_TOKENS, "tool_output_len"):
        frame[name] = frame[name].astype("Int64")
    frame["seq"] = frame["seq"].astype("int64")
    frame["attachments"] = frame["attachments"].astype("int64")
    frame["thinking"] = frame["thinking"].astype("bool")
    frame["cost_usd_estimate"] = frame["cost_usd_estimate"].astype("object")
    _times(frame, pd, "timestamp")
    return frame


def turns_dataframe(turns: Chat | Sequence[Turn] | Sequence[Message]) -> Any:
    """One row per turn: prompt, requested and answering model, times, tokens by kind,
    estimated and vendor cost (exact decimals, USD), tools, errors, tier and effort.

    Parameters
    ----------
    turns
        :attr:`Run.turns <lab_widget.Run.turns>`, a :class:`~lab_widget.schema.Chat` (its
        ``turns``, derived from its messages when it has none) or bare messages.

    Examples
    --------
    >>> from lab_widget.schema import Message
    >>> ms = [Message(seq=0, kind="text", role="user", text="hi"),
    ...       Message(seq=1, kind="text", role="assistant", text="hello")]
    >>> turns_dataframe(ms)[["turn", "prompt", "requests", "tool_calls"]].to_dict("records")
    [{'turn': 0, 'prompt': 'hi', 'requests': 0, 'tool_calls': 0}]
    """
    pd = _pandas()
    if isinstance(turns, Chat):
        rows = turns.turns or derive_turns(turns.messages, turns.session, turns.state)
    elif turns and isinstance(turns[0], Message):
        rows = derive_turns([m for m in turns if isinstance(m, Message)], SessionSummary())
    else:
        rows = [t for t in turns if isinstance(t, Turn)]
    frame = pd.DataFrame([_turn_row(t) for t in rows], columns=list(TURN_COLUMNS))
    for name in (*_TOKENS, "turn", "seq", "last_seq", "requests", "tool_calls", "tool_errors"):
        frame[name] = frame[name].astype("int64")
    frame["duration_ms"] = frame["duration_ms"].astype("Int64")
    frame["finished"] = frame["finished"].astype("bool")
    for name in ("cost_usd_estimate", "vendor_cost_usd"):
        frame[name] = frame[name].astype("object")
    _times(frame, pd, "started_at", "ended_at")
    return frame


def rate_limits_dataframe(limits: Sequence[RateLimit]) -> Any:
    """One row per rate-limit snapshot (``run.session.rate_limits``).

    Shares used stay as reported (``used_percent``); absolute figures (``used``,
    ``limit``, ``remaining``, in ``unit``) are exact decimals.

    Examples
    --------
    >>> from lab_widget.schema import RateLimit
    >>> f = rate_limits_dataframe([RateLimit(limit_id="codex", window="primary",
    ...                                      used_percent=42.5)])
    >>> f[["limit_id", "window", "used_percent"]].to_dict("records")
    [{'limit_id': 'codex', 'window': 'primary', 'used_percent': 42.5}]
    """
    pd = _pandas()
    rows = [limit.model_dump() for limit in limits]
    frame = pd.DataFrame(rows, columns=list(RATE_LIMIT_COLUMNS))
    frame["window_minutes"] = frame["window_minutes"].astype("Int64")
    frame["used_percent"] = frame["used_percent"].astype("float64")
    for name in ("used", "limit", "remaining"):
        frame[name] = frame[name].astype("object")
    _times(frame, pd, "resets_at", "observed_at")
    return frame
