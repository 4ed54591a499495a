"""A session's tokens without its messages: the usage-only fast path for history and
session summaries over many sessions.

The store keeps the session's billed totals in its state (``session.tokenUsage``, every
completion once), so the scan reads the snapshot and the journal after it and maps no
entry; the reader's summary is the same function of the same files.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ...schema import ModelUsage, SessionSummary, Usage
from .. import TranscriptRef
from ..kit import as_dict, iso_time, load_json
from ._store import Store, read_store, usage_totals

__all__ = ["model_of", "summarise", "usage_of", "usage_summary"]


def usage_of(counts: dict[str, Any]) -> Usage:
    """A usage record (snake case in a completion, camel case in the session's totals)
    as a :class:`Usage`: the cached input counted apart from the input.

    Examples
    --------
    >>> u = usage_of({"input_tokens": 10, "cached_input_tokens": 4, "output_tokens": 2})
    >>> u.input_tokens, u.output_tokens, u.cache_read_tokens
    (6, 2, 4)
    """

    def count(*keys: str) -> int:
        for key in keys:
            if isinstance(value := counts.get(key), int):
                return value
        return 0

    cached = count("cached_input_tokens", "cachedInputTokens")
    return Usage(
        input_tokens=max(count("input_tokens", "inputTokens") - cached, 0),
        output_tokens=count("output_tokens", "outputTokens"),
        cache_read_tokens=cached,
    )


def model_of(meta: dict[str, Any]) -> str | None:
    """The model a session's ``meta.json`` names (``config.model_name``)."""
    model = as_dict(meta.get("config")).get("model_name")
    return model if isinstance(model, str) else None


def _text(meta: dict[str, Any], value: Any) -> str | None:
    return value if isinstance(value, str) else None


def summarise(transcript_id: str, store: Store, meta: dict[str, Any]) -> SessionSummary:
    """The summary of a session: the billed totals of its state, else the completions its
    journal still holds, its model, folder, branch and start.
    """
    totals = usage_totals(store.envelope)
    usage = usage_of(totals)
    if not totals:
        for counts in store.usage.values():
            usage = usage + usage_of(counts)
    model = model_of(meta)
    models = []
    if model and usage.total:
        models = [ModelUsage(model=model, usage=usage, requests=len(store.usage) or 1)]
    env = as_dict(meta.get("environment"))
    return SessionSummary(
        transcript_id=transcript_id,
        model=model,
        usage=usage,
        models=models,
        cwd=_text(meta, env.get("working_directory")),
        branch=_text(meta, meta.get("git_branch")),
        started_at=iso_time(meta.get("start_time")),
    )


def usage_summary(ref: TranscriptRef) -> SessionSummary:
    """The session's usage and model, equal to its reader's summary."""
    folder = Path(ref.path)
    return summarise(ref.transcript_id, read_store(folder), load_json(folder / "meta.json"))
