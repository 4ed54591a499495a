"""A session's tokens without its messages: the usage-only fast path for history and
session summaries over many transcripts.

Only lines that can carry an API response's usage are parsed (an ``assistant`` entry with
``usage``: a byte test before any JSON), and they count exactly as the full reader counts
them (:class:`~lab_widget.provider.UsageLedger`, keyed by the response's id, final figures
once; sub-agents' transcripts with scope ``subagent``), so the totals are the reader's.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson

from ...schema import AgentScope, SessionSummary, Usage
from .. import UsageLedger
from ._files import subagent_dir

__all__ = ["usage_summary"]

_USAGE = b'"usage"'
_ASSISTANT = b'"assistant"'


def _loads(raw: bytes) -> Any:
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        try:
            return json.loads(raw)  # what orjson refuses: a lone surrogate, a huge number
        except ValueError:
            return None


def _count(raw: dict[str, Any], name: str) -> int:
    value = raw.get(name)
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _scan(path: Path, ledger: UsageLedger, scope: AgentScope) -> str | None:
    """Count one transcript's responses into ``ledger``; the last model it names."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    model_seen: str | None = None
    for line in data.split(b"\n"):
        if _USAGE not in line or _ASSISTANT not in line:
            continue
        entry = _loads(line)
        if not isinstance(entry, dict) or entry.get("type") != "assistant":
            continue
        message = entry.get("message")
        if not isinstance(message, dict) or entry.get("isApiErrorMessage"):
            continue
        raw = message.get("usage")
        if not isinstance(raw, dict):
            continue
        key = str(message.get("id") or entry.get("requestId") or entry.get("uuid"))
        model = message.get("model")
        model = model if isinstance(model, str) and model != "<synthetic>" else None
        usage = Usage(
            input_tokens=_count(raw, "input_tokens"),
            output_tokens=_count(raw, "output_tokens"),
            cache_read_tokens=_count(raw, "cache_read_input_tokens"),
            cache_write_tokens=_count(raw, "cache_creation_input_tokens"),
        )
        ledger.record(key, usage, model, scope)
        if model is not None:
            model_seen = model
    return model_seen


def usage_summary(path: Path, transcript_id: str | None = None) -> SessionSummary:
    r"""The usage of the session in ``path`` and its sub-agents, as the reader totals it.

    Examples
    --------
    >>> import tempfile
    >>> line = (
    ...     '{"type": "assistant", "message": {"id": "m1", "model": "claude-x", '
    ...     '"usage": {"input_tokens": 3, "output_tokens": 5}}}'
    ... )
    >>> file = Path(tempfile.mkdtemp()) / "s.jsonl"
    >>> _ = file.write_text(line + "\n" + line.replace("5}", "9}") + "\n")
    >>> summary = usage_summary(file)
    >>> summary.usage.output_tokens, summary.model, [m.requests for m in summary.models]
    (9, 'claude-x', [1])
    """
    ledger = UsageLedger()
    model = _scan(path, ledger, "main")
    folder = subagent_dir(path)
    if folder.is_dir():
        for child in sorted(folder.glob("agent-*.jsonl")):
            _scan(child, ledger, "subagent")
    return SessionSummary(
        transcript_id=transcript_id or path.stem,
        model=model,
        usage=ledger.total,
        models=ledger.models(),
    )
