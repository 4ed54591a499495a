"""Conversations as pandas DataFrames (pandas is the optional ``pandas`` extra).

Examples
--------
>>> from lab_widget.schema import Message
>>> frame = to_dataframe([Message(seq=0, kind="text", role="user", text="hi")])
>>> frame[["seq", "role", "text"]].to_dict("records")
[{'seq': 0, 'role': 'user', 'text': 'hi'}]
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from typing import Any

from ._pricing import estimate_cost
from .errors import MissingDependencyError
from .schema import Chat, Message

__all__ = ["COLUMNS", "MissingDependencyError", "to_dataframe"]

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
    "attachments",
    "model",
    "input_tokens",
    "output_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
    "cost_usd_estimate",
    "timestamp",
)
"""The frame's columns, in order."""

_TOKENS = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens")


def _pandas() -> Any:
    try:
        return importlib.import_module("pandas")
    except ImportError as exc:
        raise MissingDependencyError("pandas", "pandas") from exc


def _row(message: Message) -> dict[str, Any]:
    tool = message.tool
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
        "attachments": len(message.attachments),
        "model": message.model,
        "cost_usd_estimate": estimate_cost(message.model, usage),
        "timestamp": message.timestamp,
    }
    for name in _TOKENS:
        row[name] = getattr(usage, name) if usage is not None else None
    return row


def to_dataframe(messages: Chat | Iterable[Message]) -> Any:
    """One row per message, with token counts and an estimated cost per model response.

    Parameters
    ----------
    messages
        Messages (``run.messages``) or a whole :class:`~lab_widget.schema.Chat`
        (``read_transcript(path)``).

    Returns
    -------
    pandas.DataFrame
        The columns of :data:`COLUMNS`: one row per message, sub-agents' messages included
        (``parent_tool_id`` names the call that started the sub-agent; filter on it, or on
        ``thinking`` to leave the model's reasoning out). Token columns are nullable
        integers, empty where a message carries no usage (usage belongs to one message per
        model response, with its final figures);
        ``cost_usd_estimate`` is empty for those and for models the price table does not
        know; ``timestamp`` is timezone-aware UTC.

    Raises
    ------
    MissingDependencyError
        pandas is not installed (``pip install 'lab_widget[pandas]'``).
    """
    pd = _pandas()
    items = messages.messages if isinstance(messages, Chat) else list(messages)
    frame = pd.DataFrame([_row(m) for m in items], columns=list(COLUMNS))
    for name in (*_TOKENS, "tool_output_len"):
        frame[name] = frame[name].astype("Int64")
    frame["seq"] = frame["seq"].astype("int64")
    frame["attachments"] = frame["attachments"].astype("int64")
    frame["thinking"] = frame["thinking"].astype("bool")
    frame["cost_usd_estimate"] = frame["cost_usd_estimate"].astype("float64")
    frame["timestamp"] = pd.to_datetime(frame["timestamp"], utc=True)
    return frame
