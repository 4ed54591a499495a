"""A Gemini CLI session's tokens without its messages: the usage-only fast path for history
and session summaries over many session files.

The session's record log is kept exactly as the reader keeps it (a re-appended record
replaces the earlier one, ``$rewindTo`` cuts, ``$set.messages`` rewrites and roll-backs,
older versions' one-JSON documents), sub-agents' sessions included, because which records
count depends on all of them. What is skipped: the mapping of records to messages (the
reader's real cost), the ``$set`` lines that only stamp the session's last update (half the
lines of a log, passed over unparsed), and a pydantic model per record while summing.
"""

from __future__ import annotations

from typing import Any

from ...schema import AgentScope, ModelUsage, SessionSummary, Usage
from .. import JsonlTail, TranscriptRef
from ._subagents import SubAgents
from ._transcript import GeminiTranscriptReader

__all__ = ["usage_summary"]

_STAMPS = (b'{"$set": {"lastUpdated": "', b'{"$set":{"lastUpdated":"')
"""How a last-update stamp starts, spaced as the recorded files are and compact."""
_STAMP_QUOTES = 6
"""``"$set"``, ``"lastUpdated"`` and the time: any other key adds quotes."""


def _stamp_only(raw: bytes) -> bool:
    """A ``$set`` line that only stamps the session's last update (no record, no message
    list, no cut): ``{"$set": {"lastUpdated": "<time>"}}`` and nothing more.

    Examples
    --------
    >>> _stamp_only(b'{"$set": {"lastUpdated": "2026-12-01T10:00:00Z"}}')
    True
    >>> _stamp_only(b'{"$set": {"lastUpdated": "t", "messages": []}}')
    False
    >>> _stamp_only(b'{"id": "r1"}')
    False
    """
    return raw.startswith(_STAMPS) and raw.count(b'"') == _STAMP_QUOTES


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


_Sums = dict[tuple[str, AgentScope], list[int]]
"""Per (model, scope): input, output, reasoning, cache reads, requests."""


class _RecordsOnly(GeminiTranscriptReader):
    """The reader's record log and totals, with no record mapped to messages."""

    def __init__(self, ref: TranscriptRef, *, subagent: bool = False) -> None:
        super().__init__(ref, subagent=subagent)
        self._tail = JsonlTail(ref.path, skip=_stamp_only)

    def _reset(self) -> None:
        super()._reset()
        self._agents = SubAgents(lambda ref: _RecordsOnly(ref, subagent=True))

    def _rebuild(self, start: int) -> None:
        return  # the messages are what this reader exists to skip

    def sum_into(self, sums: _Sums, scope: AgentScope) -> tuple[str | None, int | None]:
        """Add this session's responses to ``sums`` as ``record_usage`` and ``ModelTally``
        count them; the last model named and the last response's context.
        """
        model: str | None = None
        context: int | None = None
        for record in self._records:
            if record.get("type") != "gemini":
                continue
            name = record.get("model") if isinstance(record.get("model"), str) else None
            tokens = record.get("tokens")
            if isinstance(tokens, dict):
                cached = _count(tokens.get("cached"))
                thoughts = _count(tokens.get("thoughts"))
                inputs = max(0, _count(tokens.get("input")) - cached) + _count(tokens.get("tool"))
                row = sums.setdefault((name or "unknown", scope), [0, 0, 0, 0, 0])
                row[0] += inputs
                row[1] += _count(tokens.get("output")) + thoughts
                row[2] += thoughts
                row[3] += cached
                row[4] += 1
                context = inputs + cached
            if name:
                model = name
        return model, context

    @property
    def summary(self) -> SessionSummary:
        sums: _Sums = {}
        model, context = self.sum_into(sums, "subagent" if self._subagent else "main")
        for reader in self._agents.readers.values():
            if isinstance(reader, _RecordsOnly):
                reader.sum_into(sums, "subagent")
        rows = [
            ModelUsage(
                model=name,
                scope=scope,
                usage=Usage(
                    input_tokens=row[0],
                    output_tokens=row[1],
                    reasoning_tokens=row[2],
                    cache_read_tokens=row[3],
                ),
                requests=row[4],
            )
            for (name, scope), row in sums.items()
        ]
        return SessionSummary(
            **self._facts_public(),
            usage=sum((r.usage for r in rows), Usage()),
            models=rows,
            model=model,
            context_tokens=context,
        )


def usage_summary(ref: TranscriptRef) -> SessionSummary:
    r"""The usage of the session in ``ref`` and its sub-agents', as the reader totals it.

    Examples
    --------
    >>> import json, tempfile
    >>> from pathlib import Path
    >>> reply = {"id": "r1", "type": "gemini", "model": "gemini-x", "content": "hi",
    ...          "tokens": {"input": 10, "output": 2}}
    >>> lines = [{"sessionId": "s"}, reply, {**reply, "tokens": {"input": 10, "output": 5}}]
    >>> file = Path(tempfile.mkdtemp()) / "session-1.jsonl"
    >>> _ = file.write_text("".join(json.dumps(x) + "\n" for x in lines))
    >>> summary = usage_summary(TranscriptRef("s", file))
    >>> summary.usage.output_tokens, summary.model, [m.requests for m in summary.models]
    (5, 'gemini-x', [1])
    """
    reader = _RecordsOnly(ref)
    reader.read()
    return reader.summary  # the session's facts (its times, its folder) come with it
