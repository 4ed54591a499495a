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
(``_subagents.py``); their messages follow the call that started them. How each record
shows as messages is ``_messages.py``; here is the log of records itself.
"""

from __future__ import annotations

import json
from typing import Any

from ...schema import (
    Message,
    SessionSummary,
    State,
)
from .. import ReadResult, TranscriptRef
from ..kit import CorruptLine, JsonlTail
from ._files import is_document
from ._messages import COMPACTED, NOTE, RecordMessages
from ._records import (
    ModelTally,
    has_function_response,
    is_user_prompt,
    record_usage,
    texts,
    timestamp,
)
from ._signals import turn_state
from ._subagents import SubAgents, agents_folder

__all__ = ["GeminiTranscriptReader"]


class GeminiTranscriptReader(RecordMessages):
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
        self._document: bool | None = None
        self._document_key: tuple[int, int, int] | None = None
        self._records: list[dict[str, Any]] = []
        self._index: dict[str, int] = {}
        self._first_seq: list[int] = []
        self._messages: list[Message] = []
        self._facts: dict[str, Any] = {"transcript_id": self.ref.transcript_id}
        self._pending_echo = bool(self._clear_echo)
        self._records_end = 0  # messages of the records; sub-agents not yet linked follow
        self._linked: dict[str, int] = {}  # agent session id -> position of its call's record
        self._summaries: set[str] = set()  # ids of the records a compression wrote
        # Sub-agents run by this session (a sub-agent's own reader keeps none: Gemini CLI
        # offers a sub-agent no sub-agents of its own).
        self._agents = SubAgents(lambda ref: GeminiTranscriptReader(ref, subagent=True))

    # -- TranscriptReader --------------------------------------------------------------

    @property
    def messages(self) -> list[Message]:
        return list(self._messages)

    @property
    def state(self) -> State:
        if self._turn_signals is not None:
            signals = self._turn_signals()
            session = str(self._facts.get("session_id") or self.ref.transcript_id)
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
        last = self._records[-1] if self._records else None
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
        if any(a not in self._linked for a in self._agents.readers):
            return "working"  # a sub-agent at work: its call is recorded when it ends
        for record in reversed(self._records):
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
        for record in self._records:
            usage = record_usage(record.get("tokens")) if record.get("type") == "gemini" else None
            name = record.get("model") if isinstance(record.get("model"), str) else None
            if usage is not None:
                models.add(name, "subagent" if self._subagent else "main", usage)
                context = usage.input_tokens + usage.cache_read_tokens
            if record.get("type") == "gemini" and name:
                model = name
        for reader in self._agents.readers.values():
            if isinstance(reader, GeminiTranscriptReader):
                reader.tally(models)
        return SessionSummary(
            **self._facts_public(),
            usage=models.total(),
            models=models.breakdown(),
            model=model,
            context_tokens=context,
        )

    def tally(self, models: ModelTally) -> None:
        """Add this sub-agent's responses to ``models``, as a sub-agent's."""
        for record in self._records:
            usage = record_usage(record.get("tokens")) if record.get("type") == "gemini" else None
            if usage is not None:
                name = record.get("model") if isinstance(record.get("model"), str) else None
                models.add(name, "subagent", usage)

    def _facts_public(self) -> dict[str, Any]:
        return {k: v for k, v in self._facts.items() if k != "session_id"}

    def read(self) -> ReadResult:
        if self._document is None:
            self._document = is_document(self.ref.path)
        if self._document:
            return self._read_document()
        items = self._tail.read_iter()
        rewound = self._tail.rewound
        if rewound:
            self._reset()  # the file was rewritten: it is read again from its start
        old = self._messages
        dirty: int | None = None
        for item in items:
            if isinstance(item, CorruptLine):
                touched: int | None = self._put(
                    {
                        "id": f"{NOTE}{item.number}",
                        "type": NOTE,
                        "content": f"Skipped unreadable transcript line {item.number}: "
                        f"{item.error}",
                    }
                )
            elif isinstance(item.value, dict):
                touched = self._line(item.value)
            else:
                touched = None
            if touched is not None:
                dirty = touched if dirty is None else min(dirty, touched)
        return self._finish(old, self._read_agents(dirty), rewound)

    def _read_agents(self, dirty: int | None) -> int | None:
        """Read the sub-agents; the first record position their changes touch."""
        if self._subagent:
            return dirty
        session = str(self._facts.get("session_id") or "")
        folder = agents_folder(self.ref.path, session) if session else None
        for agent_id in self._agents.read(folder):
            position = self._linked.get(agent_id, len(self._records))
            dirty = position if dirty is None else min(dirty, position)
        return dirty

    def _finish(self, old: list[Message], dirty: int | None, rewound: bool) -> ReadResult:
        """Map again from the first changed record and report what that changed."""
        if dirty is None and not self._pending_echo:
            return ReadResult(changed=[], reset=rewound)
        self._pending_echo = False
        self._rebuild(dirty if dirty is not None else len(self._records))
        new = self._messages
        if rewound or len(new) < len(old):
            return ReadResult(changed=list(new), reset=True)
        changed = [m for m in new if m.seq >= len(old) or old[m.seq] != m]
        return ReadResult(changed=changed)

    def _read_document(self) -> ReadResult:
        """Read a session kept as one JSON document (older versions), rewritten whole.

        The CLI rewrites the whole file on every change, so each change is read whole; an
        unchanged file (same inode, size and modification time) is not read again. A
        document that does not parse while an earlier one did is a rewrite caught half
        way: the earlier records stand until the next change.
        """
        old = self._messages
        try:
            stat = self.ref.path.stat()
            key = (stat.st_ino, stat.st_size, stat.st_mtime_ns)
            if key == self._document_key:
                return ReadResult(changed=[])
            data = self.ref.path.read_bytes()
        except OSError:
            return ReadResult(changed=[])
        try:
            document = json.loads(data)
            if not isinstance(document, dict):
                raise ValueError("not a JSON object")
        except ValueError as exc:
            if self._document_key is not None or not data.strip():
                return ReadResult(changed=[])  # half written, or not written yet
            self._document_key = key
            note = {
                "id": f"{NOTE}document",
                "type": NOTE,
                "content": f"Skipped the unreadable session file: {exc}",
            }
            return self._finish(old, self._put(note), False)
        self._document_key = key
        self._line({k: v for k, v in document.items() if k != "messages"})
        messages = document.get("messages")
        listed = [
            m for m in (messages if isinstance(messages, list) else []) if isinstance(m, dict)
        ]
        records = [m for m in listed if isinstance(m.get("id"), str)]
        # The document is the whole history: what it no longer holds was cut (/rewind).
        dirty = next(
            (i for i, (a, b) in enumerate(zip(self._records, records, strict=False)) if a != b),
            min(len(self._records), len(records)),
        )
        if dirty == len(self._records) == len(records):
            return ReadResult(changed=[])
        self._records = records
        self._index = {str(r["id"]): i for i, r in enumerate(records)}
        return self._finish(old, dirty, False)

    # -- records -----------------------------------------------------------------------

    def _line(self, line: dict[str, Any]) -> int | None:
        """Apply one line; the first record position it changed, if any."""
        if isinstance(line.get("id"), str):
            return self._put(line)
        if "$rewindTo" in line:
            position = self._index.get(str(line["$rewindTo"]))
            if position is None:
                return None
            self._cut(position)
            return position
        update = line.get("$set")
        if isinstance(update, dict):
            stamp = timestamp(update.get("lastUpdated"))
            if stamp is not None:
                self._facts["updated_at"] = stamp
            messages = update.get("messages")
            if isinstance(messages, list):
                return self._set_messages([m for m in messages if isinstance(m, dict)])
            return None
        if isinstance(line.get("sessionId"), str):
            self._facts["session_id"] = line["sessionId"]
            self._facts["started_at"] = timestamp(line.get("startTime"))
            self._facts["updated_at"] = timestamp(line.get("lastUpdated"))
        return None

    def _put(self, record: dict[str, Any]) -> int:
        position = self._index.get(record["id"])
        if position is None:
            position = len(self._records)
            self._records.append(record)
            self._index[record["id"]] = position
        else:
            self._records[position] = record
        return position

    def _cut(self, position: int) -> None:
        for record in self._records[position:]:
            self._index.pop(str(record.get("id")), None)
        del self._records[position:]

    def _set_messages(self, messages: list[dict[str, Any]]) -> int | None:
        """Apply a whole-list rewrite the way the chat shows it (see the module's notes)."""
        listed = [m for m in messages if isinstance(m.get("id"), str)]
        wanted = {m["id"] for m in listed}
        dropped = next(
            (
                i
                for i, r in enumerate(self._records)
                if r["id"] not in wanted and r.get("type") != NOTE
            ),
            None,
        )
        if dropped is None:
            # Nothing dropped: only new records are added.
            added = [m for m in listed if m["id"] not in self._index]
            first = len(self._records)
            for message in added:
                self._put(message)
            return first if added else None
        # A roll-back: what it dropped stays shown; copies it appended after that go.
        copies = [i for i, r in enumerate(self._records) if i > dropped and r["id"] in wanted]
        if not copies:
            return self._compacted(listed)
        self._records = [r for i, r in enumerate(self._records) if i not in set(copies)]
        self._index = {str(r["id"]): i for i, r in enumerate(self._records)}
        return copies[0]

    def _compacted(self, listed: list[dict[str, Any]]) -> int | None:
        """A rewrite into records never seen before is a compression (``/compress``, or an
        automatic one): the history the model keeps is now a summary. The chat keeps what
        it showed, and notes the compression with the summary under it.
        """
        fresh = [m for m in listed if m["id"] not in self._index and m["id"] not in self._summaries]
        if not fresh:
            return None
        self._summaries.update(m["id"] for m in fresh)
        summary = "\n\n".join(
            t for m in fresh if m.get("type") == "user" and (t := texts(m.get("content")))
        )
        note = {
            "id": f"{COMPACTED}{len(self._records)}",
            "type": COMPACTED,
            "content": summary,
            "timestamp": fresh[0].get("timestamp"),
        }
        return self._put(note)

    # -- mapping -----------------------------------------------------------------------

    def _rebuild(self, start: int) -> None:
        """Map records from ``start`` on again (earlier messages are unchanged), then the
        sub-agents no finished call names yet.
        """
        start = min(start, len(self._first_seq))
        keep = self._first_seq[start] if start < len(self._first_seq) else self._records_end
        messages = self._messages[:keep]
        if not messages and self._clear_echo:
            echo = self._clear_echo
            messages.append(Message(seq=0, kind="text", role="user", text=echo, command=echo))
        del self._first_seq[start:]
        self._linked = {a: p for a, p in self._linked.items() if p < start}
        for position, record in enumerate(self._records[start:], start):
            self._first_seq.append(len(messages))
            for message in self._map(record, self._prompt_time(record), position):
                messages.append(message.model_copy(update={"seq": len(messages)}))
        self._records_end = len(messages)
        for message in self._agents.running(self._linked):
            messages.append(message.model_copy(update={"seq": len(messages)}))
        self._messages = messages
