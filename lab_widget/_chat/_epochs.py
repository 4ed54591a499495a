"""The run's transcript followed across clears: the current reader, the ended conversations.

A clear (or a resumed session) makes the CLI write a new transcript. :class:`EpochFollow`
notices the new one, keeps the old one's last read as an :class:`Epoch`, opens a reader for
the new one, and counts what each read brought (messages, user prompts) from what changed
only, so the cost of an append never grows with the length of the chat.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..provider import AgentProvider, ReadResult, RunContext, TranscriptReader, TranscriptRef
from ..schema import Message
from ._events import Epoch

__all__ = ["EpochFollow", "Reading"]


@dataclass(frozen=True)
class Reading:
    """What one read of the run's transcript brought."""

    changed: list[Message]
    """Messages new or updated in the current epoch."""
    reset: bool
    """A new epoch began, or the reader started over: every message may have changed."""
    prompted: bool
    """A user prompt the last read did not have."""


class EpochFollow:
    """The current transcript's reader, and the conversations before it.

    Not locked itself: the chat reads it under its lock.
    """

    def __init__(self, provider: AgentProvider, context: RunContext) -> None:
        self._provider = provider
        self._context = context
        self.ref: TranscriptRef | None = None
        """The current epoch's transcript."""
        self.reader: TranscriptReader | None = None
        self.past_refs: list[TranscriptRef] = []
        """Earlier conversations of this run (before each clear), oldest first."""
        self.past: list[Epoch] = []
        """The same conversations with their messages as last read."""
        self.count = 0
        """The current epoch's messages (one past the highest seq read)."""
        self._user_seqs: dict[int, None] = {}
        self._user_count = 0

    @property
    def transcript_id(self) -> str | None:
        """The current epoch's id."""
        return self.ref.transcript_id if self.ref else None

    @property
    def prompted_ever(self) -> bool:
        """Whether the current epoch holds a user message."""
        return bool(self._user_seqs)

    @property
    def messages(self) -> list[Message]:
        """The current epoch's messages, as the reader has them."""
        return self.reader.messages if self.reader else []

    def read(self, shown: Callable[[list[Message]], list[Message]]) -> Reading:
        """Follow the transcript to a new epoch if there is one, and read what was appended.

        ``shown`` turns a reader's messages into what the chat shows (an ended epoch is
        kept as it was shown).
        """
        ref = self._provider.locate_transcript(self._context, self.ref)
        reset = False
        if ref is not None and (self.ref is None or ref.transcript_id != self.ref.transcript_id):
            reset = self.ref is not None
            if self.ref is not None:
                self.past_refs.append(self.ref)
                self.past.append(self._close(self.ref, shown))
            self.ref = ref
            self.reader = self._provider.open_reader(ref)
            self._user_count = 0
            self._user_seqs, self.count = {}, 0
        result = self.reader.read() if self.reader else ReadResult(changed=[])
        reset = reset or result.reset
        self._count(result.changed, reset)
        users = len(self._user_seqs)
        prompted = users > self._user_count
        self._user_count = users
        return Reading(result.changed, reset, prompted)

    def _close(self, ref: TranscriptRef, shown: Callable[[list[Message]], list[Message]]) -> Epoch:
        # What the agent wrote last before the clear may not have been read yet.
        if self.reader is not None:
            self.reader.read()
        return Epoch(ref.transcript_id, shown(self.messages))

    def _count(self, changed: list[Message], reset: bool) -> None:
        # Counted from what changed, never by walking the whole conversation: the cost of
        # an append must not grow with the length of the chat.
        if reset:
            self._user_seqs = {}
            self.count = 0
            changed = self.messages
        for m in changed:
            self.count = max(self.count, m.seq + 1)
            if m.role == "user" and m.kind == "text":
                self._user_seqs[m.seq] = None
            else:
                self._user_seqs.pop(m.seq, None)
