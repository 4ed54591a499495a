"""The new CLI's transcript mapped to the universal schema, incrementally.

Read what was appended since the last read (``kit.JsonlTail`` for a JSONL file), one message
per text block, tool call (its result updates the same message), dialog or lifecycle note;
an unreadable entry is one warning message and loses nothing else. Usage is each API
response's final figures, once (``kit.UsageLedger``). Fixtures recorded from the pinned CLI
by a script in ``scripts/`` show each mapping.
"""

from __future__ import annotations

from ...schema import Message, SessionSummary, State
from .. import ReadResult, TranscriptReader, TranscriptRef
from ._compat import todo

__all__ = ["TemplateTranscriptReader"]


class TemplateTranscriptReader(TranscriptReader):
    """Maps one transcript of the new CLI into messages."""

    def __init__(self, ref: TranscriptRef, clear_echo: str | None = None) -> None:
        self.ref = ref
        self._clear_echo = clear_echo

    def read(self) -> ReadResult:
        raise todo("_transcript.py read", "map what the transcript gained since the last read")

    @property
    def messages(self) -> list[Message]:
        raise todo("_transcript.py messages", "every message read so far, in seq order")

    @property
    def state(self) -> State:
        raise todo("_transcript.py state", "working, idle or question, from the transcript")

    @property
    def summary(self) -> SessionSummary:
        raise todo("_transcript.py summary", "the session's model, usage and facts")
