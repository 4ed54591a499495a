"""A Gemini CLI session's tokens without its messages: the usage-only fast path for history
and session summaries over many session files.

The session's record log is kept exactly as the reader keeps it (a re-appended record
replaces the earlier one, ``$rewindTo`` cuts, ``$set.messages`` rewrites and roll-backs,
older versions' one-JSON documents), sub-agents' sessions included, because which records
count depends on all of them; what is skipped is the mapping of records to messages, the
reader's real cost. The totals are then the reader's own, from the same records.
"""

from __future__ import annotations

from ...schema import SessionSummary
from .. import TranscriptRef
from ._subagents import SubAgents
from ._transcript import GeminiTranscriptReader

__all__ = ["usage_summary"]


class _RecordsOnly(GeminiTranscriptReader):
    """The reader's record log and totals, with no record mapped to messages."""

    def _reset(self) -> None:
        super()._reset()
        self._agents = SubAgents(lambda ref: _RecordsOnly(ref, subagent=True))

    def _rebuild(self, start: int) -> None:
        return  # the messages are what this reader exists to skip


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
    return reader.summary  # the session's facts come with it at no cost
