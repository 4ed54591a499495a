"""Gemini CLI's session files: how their lines map to the universal schema.

Grammar pinned to Gemini CLI 0.61.0 (see ``_compat.py``); fixtures recorded from that
version by ``scripts/record_gemini_fixtures.py`` live in ``tests/fixtures/gemini/``.

A session file is an event log. Line 1 is the session's metadata (``sessionId``,
``startTime``...). A line with a string ``id`` is a message record; a later record with
the same ``id`` replaces the earlier one (a model response is re-appended once its tool
calls finish). ``{"$set": {...}}`` updates metadata; ``$set.messages`` replaces the whole
message list. ``{"$rewindTo": id}`` drops that message and everything after it.

Gemini CLI rewrites the message list when it rolls a cancelled turn back: the records of
that turn vanish from its history, and a declined tool call makes it write the remaining
history again as copies under new ids first. The chat keeps showing what the user saw
happen: a rewrite never removes a shown record, and the copies appended after the first
record it dropped are not shown twice. ``$rewindTo`` (``/rewind``) does cut the chat. A
rewrite into records never seen before is a compression: it shows as one lifecycle note
with the summary under it.

Older versions (up to 0.38.2) keep a session as one JSON document, rewritten whole; it is
read whole on each change. Sub-agents keep sessions of their own beside the main one
(``_subagents.py``); their messages follow the call that started them. What the reader
has read is a ``SessionLog`` (``_log.py``, the records and their primitives); how each
record shows as messages is ``_messages.py``; here is the reading of the file itself.
"""

from __future__ import annotations

from typing import Any

from ...schema import (
    Message,
    SessionSummary,
    State,
)
from .. import ReadResult, TranscriptReader, TranscriptRef
from ..kit import CorruptLine, JsonlTail
from ._files import is_document
from ._log import SessionLog
from ._messages import record_messages
from ._records import (
    ModelTally,
    has_function_response,
    is_user_prompt,
    record_usage,
)
from ._signals import turn_state
from ._subagents import SubAgents, agents_folder

__all__ = ["GeminiTranscriptReader"]


class GeminiTranscriptReader(TranscriptReader):
    """Maps one Gemini CLI session file into messages, incrementally.

    State: from the transcript alone, ``working`` after a user prompt or a finished tool
    call, ``idle`` after a model reply without tool calls or a cancellation. A model reply
    that is about to call tools is written before its calls, so when ``turn_signals`` gives
    the run's hook records the turn hooks decide instead.

    ``clear_echo`` starts the epoch with the ``/clear`` that opened it: Gemini CLI records
    the command nowhere, so the reader synthesises its echo.
    """

    def __init__(
        self,
        ref: TranscriptRef,
        clear_echo: str | None = None,
        turn_signals: Any = None,
        *,
        subagent: bool = False,
    ) -> None:
        self.ref = ref
        self._clear_echo = clear_echo
        self._turn_signals = turn_signals
        self._subagent = subagent
        self._tail = JsonlTail(ref.path)
        self._reset()

    def _reset(self) -> None:
        self._log = SessionLog(
            self.ref,
            SubAgents(lambda ref: GeminiTranscriptReader(ref, subagent=True)),
            subagent=self._subagent,
            pending_echo=bool(self._clear_echo),
        )

    # -- TranscriptReader --------------------------------------------------------------

    @property
    def messages(self) -> list[Message]:
        return list(self._log.messages)

    @property
    def state(self) -> State:
        if self._turn_signals is not None:
            signals = self._turn_signals()
            session = self._log.session
            found = turn_state(signals, session)
            if found == "working" and self._ended_after(signals, session):
                return "idle"
            if found is not None:
                return found
        return self._transcript_state()

    def settled_state(self) -> State:
        # Nobody writes any more: the records alone tell whether the last turn ended (the
        # turn hooks of a run that stopped may never have closed it).
        return self._transcript_state()

    def _ended_after(self, signals: list[dict[str, Any]], session: str) -> bool:
        """Whether the transcript ends the turn the hooks left open: a declined tool call
        ends it with a cancellation record and no AfterAgent hook.
        """
        records = self._log.records
        last = records[-1] if records else None
        if last is None or last.get("type") not in ("info", "error"):
            return False
        started = max(
            (
                str(r.get("timestamp") or "")
                for r in signals
                if r.get("hook_event_name") == "BeforeAgent" and r.get("session_id") == session
            ),
            default="",
        )
        return str(last.get("timestamp") or "") >= started

    def _transcript_state(self) -> State:
        log = self._log
        if any(a not in log.linked for a in log.agents.readers):
            return "working"  # a sub-agent at work: its call is recorded when it ends
        for record in reversed(log.records):
            kind = record.get("type")
            if kind == "user":
                if is_user_prompt(record) or has_function_response(record):
                    return "working"
                continue
            if kind == "gemini":
                calls = record.get("toolCalls")
                if not calls:
                    return "idle"
                statuses = [c.get("status") for c in calls if isinstance(c, dict)]
                return "idle" if "cancelled" in statuses else "working"
            if kind in ("info", "error"):
                return "idle"
        return "idle"

    @property
    def summary(self) -> SessionSummary:
        # Each response once (a re-appended record replaced the earlier one), with the
        # figures of its last record.
        models = ModelTally()
        model: str | None = None
        context: int | None = None
        for record in self._log.records:
            usage = record_usage(record.get("tokens")) if record.get("type") == "gemini" else None
            name = record.get("model") if isinstance(record.get("model"), str) else None
            if usage is not None:
                models.add(name, "subagent" if self._subagent else "main", usage)
                context = usage.input_tokens + usage.cache_read_tokens
            if record.get("type") == "gemini" and name:
                model = name
        for reader in self._log.agents.readers.values():
            if isinstance(reader, GeminiTranscriptReader):
                reader.tally(models)
        return SessionSummary(
            **self._log.public_facts(),
            usage=models.total(),
            models=models.breakdown(),
            model=model,
            context_tokens=context,
        )

    def tally(self, models: ModelTally) -> None:
        """Add this sub-agent's responses to ``models``, as a sub-agent's."""
        for record in self._log.records:
            usage = record_usage(record.get("tokens")) if record.get("type") == "gemini" else None
            if usage is not None:
                name = record.get("model") if isinstance(record.get("model"), str) else None
                models.add(name, "subagent", usage)

    def read(self) -> ReadResult:
        if self._log.document is None:
            self._log.document = is_document(self.ref.path)
        if self._log.document:
            return self._read_document()
        items = self._tail.read_iter()
        rewound = self._tail.rewound
        if rewound:
            self._reset()  # the file was rewritten: it is read again from its start
        log = self._log
        old = log.messages
        dirty: int | None = None
        for item in items:
            if isinstance(item, CorruptLine):
                touched: int | None = log.note(
                    item.number,
                    f"Skipped unreadable transcript line {item.number}: {item.error}",
                )
            elif isinstance(item.value, dict):
                touched = log.apply(item.value)
            else:
                touched = None
            if touched is not None:
                dirty = touched if dirty is None else min(dirty, touched)
        return self._finish(old, self._read_agents(dirty), rewound)

    def _read_agents(self, dirty: int | None) -> int | None:
        """Read the sub-agents; the first record position their changes touch."""
        if self._subagent:
            return dirty
        log = self._log
        session = str(log.facts.get("session_id") or "")
        folder = agents_folder(self.ref.path, session) if session else None
        for agent_id in log.agents.read(folder):
            position = log.linked.get(agent_id, len(log.records))
            dirty = position if dirty is None else min(dirty, position)
        return dirty

    def _finish(self, old: list[Message], dirty: int | None, rewound: bool) -> ReadResult:
        """Map again from the first changed record and report what that changed."""
        log = self._log
        if dirty is None and not log.pending_echo:
            return ReadResult(changed=[], reset=rewound)
        log.pending_echo = False
        self._rebuild(dirty if dirty is not None else len(log.records))
        new = log.messages
        if rewound or len(new) < len(old):
            return ReadResult(changed=list(new), reset=True)
        changed = [m for m in new if m.seq >= len(old) or old[m.seq] != m]
        return ReadResult(changed=changed)

    def _read_document(self) -> ReadResult:
        """Read a session kept as one JSON document (older versions) whole, when it changed."""
        old = self._log.messages
        dirty = self._log.read_document(self.ref.path)
        if dirty is None:
            return ReadResult(changed=[])
        return self._finish(old, dirty, False)

    # -- mapping -----------------------------------------------------------------------

    def _rebuild(self, start: int) -> None:
        """Map records from ``start`` on again (earlier messages are unchanged), then the
        sub-agents no finished call names yet.
        """
        log = self._log
        start = log.restart_messages(start, self._clear_echo)
        for position, record in enumerate(log.records[start:], start):
            log.start_record()
            for message in record_messages(record, position, log, self._turn_signals):
                log.add_message(message)
        log.records_end = len(log.messages)
        for message in log.agents.running(log.linked):
            log.add_message(message)
