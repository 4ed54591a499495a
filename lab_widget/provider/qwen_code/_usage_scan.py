"""A Qwen Code session's tokens without its messages: only the lines of model responses
are parsed (each a line holding ``"type":"assistant"``).
"""

from __future__ import annotations

from ...schema import SessionSummary
from .. import TranscriptRef
from ..kit import JsonlTail, Line, UsageLedger
from . import _compat
from ._records import record_usage

__all__ = ["usage_summary"]

_RESPONSE = f'"type":"{_compat.ASSISTANT_TYPE}"'.encode()


def usage_summary(ref: TranscriptRef) -> SessionSummary:
    """The session's usage and models, equal to its reader's summary."""
    ledger = UsageLedger()
    model: str | None = None
    context: int | None = None
    window: int | None = None
    session: str | None = None
    cwd: str | None = None
    version: str | None = None
    tail = JsonlTail(ref.path, skip=lambda raw: _RESPONSE not in raw)
    for item in tail.read_iter():
        record = item.value if isinstance(item, Line) else None
        if not isinstance(record, dict) or record.get("type") != _compat.ASSISTANT_TYPE:
            continue
        session = session or _text(record.get("sessionId"))
        cwd = cwd or _text(record.get("cwd"))
        version = version or _text(record.get("version"))
        name = _text(record.get("model"))
        model = name or model
        usage = record_usage(record)
        if usage is not None:
            ledger.record(str(record.get("uuid")), usage, name)
            context = usage.input_tokens + usage.cache_read_tokens
        if isinstance(record.get("contextWindowSize"), int):
            window = record["contextWindowSize"]
    return SessionSummary(
        transcript_id=session or ref.transcript_id,
        model=model,
        usage=ledger.total,
        models=ledger.models(),
        context_tokens=context,
        context_window=window,
        cwd=cwd,
        cli_version=version,
    )


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None
