"""A session's tokens without its messages: the usage-only fast path for history and
session summaries over many sessions.

Copilot CLI writes one ``session.usage_record`` per model call, just before the answer it
belongs to (older versions, 1.0.70, only the answer's ``outputTokens``), and the session's
facts in ``session.start``; only those lines are parsed (a line is looked at as text
first), so a long session costs a scan, not a mapping.
"""

from __future__ import annotations

from typing import Any

import orjson

from ...schema import SessionSummary
from .. import TranscriptRef
from ..kit import UsageLedger, iso_time
from ._transcript import message_usage, session_facts, usage_of

__all__ = ["usage_summary"]

_WANTED = (b'"session.usage_record"', b'"session.start"', b'"assistant.message"')


def usage_summary(ref: TranscriptRef) -> SessionSummary:
    """The session's usage and models, equal to its reader's summary."""
    ledger = UsageLedger()
    facts: dict[str, Any] = {}
    model: str | None = None
    answered_by: dict[str, str | None] = {}  # model call -> the model its usage names
    try:
        handle = ref.path.open("rb")
    except OSError:
        return SessionSummary(transcript_id=ref.transcript_id)
    with handle:
        for line in handle:
            if not any(marker in line for marker in _WANTED):
                continue
            try:
                event = orjson.loads(line)
            except orjson.JSONDecodeError:
                continue  # the reader shows it as a warning; it carries no usage
            data = event.get("data") if isinstance(event, dict) else None
            if not isinstance(data, dict):
                continue
            if event.get("type") == "session.start":
                facts, start_model = session_facts(data)
                model = model or start_model
            elif event.get("type") == "session.usage_record":
                usage = data.get("usage")
                if isinstance(usage, dict) and isinstance(usage.get("apiCallId"), str):
                    answered = usage.get("model")
                    answered = answered if isinstance(answered, str) else None
                    ledger.record(usage["apiCallId"], usage_of(usage), answered)
                    answered_by[usage["apiCallId"]] = answered
            elif event.get("type") == "assistant.message":
                named = data.get("model") if isinstance(data.get("model"), str) else None
                api = data.get("apiCallId")
                model = answered_by.pop(str(api), None) or named or model
                usage = message_usage(data)
                if isinstance(api, str) and usage is not None and ledger.usage(api) is None:
                    ledger.record(api, usage, named)
    return SessionSummary(
        transcript_id=ref.transcript_id,
        model=model,
        usage=ledger.total,
        models=ledger.models(),
        cli_version=facts.get("cli_version"),
        cwd=facts.get("cwd"),
        branch=facts.get("branch"),
        started_at=facts.get("started_at") or iso_time(None),
    )
