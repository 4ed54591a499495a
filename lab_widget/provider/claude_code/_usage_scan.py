"""A session's tokens without its messages: the usage-only fast path for history and
session summaries over many transcripts.

Only lines that can carry an API response's usage are parsed (an ``assistant`` entry with
``usage``: a byte test before any JSON), and they count exactly as the full reader counts
them (:class:`~lab_widget.provider.UsageLedger`, keyed by the response's id, final figures
once; sub-agents' transcripts with scope ``subagent``, compactions' with scope
``compaction``), so the totals are the reader's.
"""

from __future__ import annotations

import mmap
from pathlib import Path
from typing import Any

from ...schema import AgentScope, SessionSummary, Usage
from .. import UsageLedger, loads_or_none
from ._files import subagent_dir

__all__ = ["COMPACTION_PREFIX", "cache_writes", "scope_of", "usage_summary"]

_USAGE = b'"usage"'
_ASSISTANT = b'"assistant"'


def _count(raw: dict[str, Any], name: str) -> int:
    value = raw.get(name)
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def cache_writes(raw: dict[str, Any]) -> tuple[int, int]:
    """All cache writes of a response's ``usage``, and the part of them with a one-hour life.

    The API reports the writes whole (``cache_creation_input_tokens``) and split by cache
    lifetime (``cache_creation.ephemeral_5m_input_tokens`` / ``ephemeral_1h_input_tokens``):
    the one-hour writes are billed higher, so they are kept apart.

    Examples
    --------
    >>> cache_writes({"cache_creation_input_tokens": 30,
    ...     "cache_creation": {"ephemeral_5m_input_tokens": 10, "ephemeral_1h_input_tokens": 20}})
    (30, 20)
    >>> cache_writes({"cache_creation_input_tokens": 30})
    (30, 0)
    """
    split = raw.get("cache_creation")
    split = split if isinstance(split, dict) else {}
    five, hour = (
        _count(split, "ephemeral_5m_input_tokens"),
        _count(split, "ephemeral_1h_input_tokens"),
    )
    whole = (
        _count(raw, "cache_creation_input_tokens")
        if "cache_creation_input_tokens" in raw
        else five + hour
    )
    return whole, min(hour, whole)


def scope_of(path: Path) -> AgentScope:
    """A file of the session's ``subagents/`` folder: a sub-agent's, or a compaction's.

    Claude Code writes a compaction, a billed request of its own, as
    ``agent-acompact-<id>.jsonl`` beside the sub-agents.

    Examples
    --------
    >>> scope_of(Path("agent-acompact-1f2e.jsonl")), scope_of(Path("agent-a1bbc5.jsonl"))
    ('compaction', 'subagent')
    """
    return "compaction" if path.name.startswith(COMPACTION_PREFIX) else "subagent"


COMPACTION_PREFIX = "agent-acompact-"
"""The file name a compaction's transcript starts with, in the session's ``subagents/``."""

_Counts = tuple[int, int, int, int, int]
"""Input, output, cache-read, cache-write and one-hour cache-write tokens of one response."""
_Best = dict[str, tuple[_Counts, str | None, AgentScope]]


def _scan(path: Path, best: _Best, scope: AgentScope) -> str | None:
    """Keep each response's final figures of one transcript in ``best`` (the ledger's rule:
    a copy with fewer output tokens, or the same figures, is a stale one); the last model
    it names.
    """
    try:
        with path.open("rb") as f:
            # Mapped, not read: the search runs over the page cache without a copy.
            data = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):  # ValueError: an empty file cannot be mapped
        return None
    with data:
        return _scan_bytes(data, best, scope)


def _scan_bytes(data: mmap.mmap, best: _Best, scope: AgentScope) -> str | None:
    model_seen: str | None = None
    position = 0
    # From one "usage" to the next, never line by line: the byte search runs in C over the
    # file once, and only the lines it lands in are looked at.
    while (hit := data.find(_USAGE, position)) >= 0:
        start = data.rfind(b"\n", 0, hit) + 1
        end = data.find(b"\n", hit)
        end = len(data) if end < 0 else end
        position = end + 1
        line = data[start:end]
        if _ASSISTANT not in line:
            continue
        entry = loads_or_none(line)
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
        counts = (
            _count(raw, "input_tokens"),
            _count(raw, "output_tokens"),
            _count(raw, "cache_read_input_tokens"),
            *cache_writes(raw),
        )
        old = best.get(key)
        if old is None or not (counts[1] < old[0][1] or counts == old[0]):
            best[key] = (counts, model or (old[1] if old else None), scope)
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
    best: _Best = {}
    model = _scan(path, best, "main")
    folder = subagent_dir(path)
    if folder.is_dir():
        for child in sorted(folder.glob("agent-*.jsonl")):
            _scan(child, best, scope_of(child))
    # Into the reader's own ledger once per response, with its final figures: the same
    # totals and per-model rows as a full read.
    ledger = UsageLedger()
    for key, ((inputs, outputs, reads, writes, hour), named, scope) in best.items():
        usage = Usage(
            input_tokens=inputs,
            output_tokens=outputs,
            cache_read_tokens=reads,
            cache_write_tokens=writes,
            cache_write_1h_tokens=hour,
        )
        ledger.record(key, usage, named, scope)
    return SessionSummary(
        transcript_id=transcript_id or path.stem,
        model=model,
        usage=ledger.total,
        models=ledger.models(),
    )
