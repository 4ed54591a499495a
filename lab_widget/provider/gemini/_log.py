"""What a Gemini CLI reader has read of one session file: its record log (as the lines of
the event log or an older version's document leave it), the session's facts, the messages
mapped from the records, the sub-agents it links, and the primitives the log's lines
(``_transcript.py``, the usage scan's ``_usage_scan.py``) and the mapping of records
(``_messages.py``) go through.

A line with a string ``id`` is a record; a later record with the same ``id`` replaces the
earlier one. ``$rewindTo`` cuts the log; ``$set.messages`` rewrites the whole list, which
the chat shows as the user saw it happen (see ``_transcript.py``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...schema import Message
from .. import TranscriptRef
from ._records import is_user_prompt, texts, timestamp
from ._subagents import SubAgents

__all__ = ["COMPACTED", "NOTE", "SessionLog"]

COMPACTED = "\x00compacted"
"""The type of a stand-in record for a compression of the history."""
NOTE = "\x00note"
"""The type of a stand-in record for an unreadable line (no real id or type starts so)."""
WRITTEN = frozenset({"user", "gemini", "info", "warning", "error"})
"""The record types Gemini CLI writes. Only a record of these a rewrite leaves out is a roll-back
or a compression: a stray line of another type (a later version's, or a corrupt one) is not."""


@dataclass
class SessionLog:
    """What a Gemini CLI reader has read, and the primitives its records and messages are
    added through. The reader makes a new one to start over.
    """

    ref: TranscriptRef
    agents: SubAgents
    """Sub-agents run by this session (a sub-agent's own log keeps none: Gemini CLI offers a
    sub-agent no sub-agents of its own)."""
    subagent: bool = False
    """Whether this is a sub-agent's session."""
    pending_echo: bool = False
    """Whether the synthesised ``/clear`` echo is still to be shown."""
    document: bool | None = None
    """Whether the session is one JSON document (older versions); ``None`` until looked at."""
    document_key: tuple[int, int, int] | None = None
    """The inode, size and modification time of the document last read."""
    records: list[dict[str, Any]] = field(default_factory=list)
    index: dict[str, int] = field(default_factory=dict)
    """Record id -> its position in ``records``."""
    first_seq: list[int] = field(default_factory=list)
    """Record position -> seq of its first message."""
    messages: list[Message] = field(default_factory=list)
    records_end: int = 0
    """How many messages the records map to; sub-agents not yet linked follow."""
    facts: dict[str, Any] = field(default_factory=dict)
    linked: dict[str, int] = field(default_factory=dict)
    """Agent session id -> position of the record of the call that ran it."""
    summaries: set[str] = field(default_factory=set)
    """Ids of the records a compression wrote."""

    def __post_init__(self) -> None:
        self.facts.setdefault("transcript_id", self.ref.transcript_id)

    @property
    def session(self) -> str:
        """The session id the hooks name (the transcript's id until the header says)."""
        return str(self.facts.get("session_id") or self.ref.transcript_id)

    def public_facts(self) -> dict[str, Any]:
        """The facts a :class:`~lab_widget.schema.SessionSummary` takes."""
        return {k: v for k, v in self.facts.items() if k != "session_id"}

    # -- records -----------------------------------------------------------------------

    def apply(self, line: dict[str, Any]) -> int | None:
        """Apply one line; the first record position it changed, if any."""
        if isinstance(line.get("id"), str):
            return self.put(line)
        if "$rewindTo" in line:
            position = self.index.get(str(line["$rewindTo"]))
            if position is None:
                return None
            self.cut(position)
            return position
        update = line.get("$set")
        if isinstance(update, dict):
            stamp = timestamp(update.get("lastUpdated"))
            if stamp is not None:
                self.facts["updated_at"] = stamp
            messages = update.get("messages")
            if isinstance(messages, list):
                return self.set_messages([m for m in messages if isinstance(m, dict)])
            return None
        if isinstance(line.get("sessionId"), str):
            self.facts["session_id"] = line["sessionId"]
            self.facts["started_at"] = timestamp(line.get("startTime"))
            self.facts["updated_at"] = timestamp(line.get("lastUpdated"))
        return None

    def put(self, record: dict[str, Any]) -> int:
        """Add a record, or replace the one with its id; its position."""
        position = self.index.get(record["id"])
        if position is None:
            position = len(self.records)
            self.records.append(record)
            self.index[record["id"]] = position
        else:
            self.records[position] = record
        return position

    def note(self, key: object, text: str) -> int:
        """Add a warning record (an unreadable line or file); its position."""
        return self.put({"id": f"{NOTE}{key}", "type": NOTE, "content": text})

    def cut(self, position: int) -> None:
        """Drop the record at ``position`` and every record after it."""
        for record in self.records[position:]:
            self.index.pop(str(record.get("id")), None)
        del self.records[position:]

    def replace_records(self, records: list[dict[str, Any]]) -> None:
        """Hold ``records`` as the whole log (a document read whole)."""
        self.records = records
        self.index = {str(r["id"]): i for i, r in enumerate(records)}

    def set_messages(self, messages: list[dict[str, Any]]) -> int | None:
        """Apply a whole-list rewrite the way the chat shows it (see ``_transcript.py``)."""
        listed = [m for m in messages if isinstance(m.get("id"), str)]
        wanted = {m["id"] for m in listed}
        dropped = next(
            (
                i
                for i, r in enumerate(self.records)
                if r["id"] not in wanted and r.get("type") in WRITTEN
            ),
            None,
        )
        if dropped is None:
            # Nothing dropped: only new records are added.
            added = [m for m in listed if m["id"] not in self.index]
            first = len(self.records)
            for message in added:
                self.put(message)
            return first if added else None
        # A roll-back: what it dropped stays shown; copies it appended after that go.
        copies = [i for i, r in enumerate(self.records) if i > dropped and r["id"] in wanted]
        if not copies:
            return self.compacted(listed)
        self.replace_records([r for i, r in enumerate(self.records) if i not in set(copies)])
        return copies[0]

    def compacted(self, listed: list[dict[str, Any]]) -> int | None:
        """A rewrite into records never seen before is a compression (``/compress``, or an
        automatic one): the history the model keeps is now a summary. The chat keeps what
        it showed, and notes the compression with the summary under it.
        """
        fresh = [m for m in listed if m["id"] not in self.index and m["id"] not in self.summaries]
        if not fresh:
            return None
        self.summaries.update(m["id"] for m in fresh)
        summary = "\n\n".join(
            t for m in fresh if m.get("type") == "user" and (t := texts(m.get("content")))
        )
        note = {
            "id": f"{COMPACTED}{len(self.records)}",
            "type": COMPACTED,
            "content": summary,
            "timestamp": fresh[0].get("timestamp"),
        }
        return self.put(note)

    def read_document(self, path: Path) -> int | None:
        """Read a session kept as one JSON document (older versions), rewritten whole; the
        first record position it changed, if any.

        The CLI rewrites the whole file on every change, so each change is read whole; an
        unchanged file (same inode, size and modification time) is not read again. A
        document that does not parse while an earlier one did is a rewrite caught half
        way: the earlier records stand until the next change. The document is the whole
        history: what it no longer holds was cut (``/rewind``).
        """
        try:
            stat = path.stat()
            key = (stat.st_ino, stat.st_size, stat.st_mtime_ns)
            if key == self.document_key:
                return None
            data = path.read_bytes()
        except OSError:
            return None
        try:
            document = json.loads(data)
            if not isinstance(document, dict):
                raise ValueError("not a JSON object")
        except ValueError as exc:
            if self.document_key is not None or not data.strip():
                return None  # half written, or not written yet
            self.document_key = key
            return self.note("document", f"Skipped the unreadable session file: {exc}")
        self.document_key = key
        self.apply({k: v for k, v in document.items() if k != "messages"})
        messages = document.get("messages")
        listed = [
            m for m in (messages if isinstance(messages, list) else []) if isinstance(m, dict)
        ]
        records = [m for m in listed if isinstance(m.get("id"), str)]
        dirty = next(
            (i for i, (a, b) in enumerate(zip(self.records, records, strict=False)) if a != b),
            min(len(self.records), len(records)),
        )
        if dirty == len(self.records) == len(records):
            return None
        self.replace_records(records)
        return dirty

    def prompt_time(self, record: dict[str, Any]) -> str:
        """When the user prompt before ``record`` was sent (ISO text, sortable)."""
        position = self.index.get(str(record.get("id")), len(self.records))
        for earlier in reversed(self.records[:position]):
            if is_user_prompt(earlier):
                return str(earlier.get("timestamp") or "")
        return ""

    # -- messages ----------------------------------------------------------------------

    def restart_messages(self, start: int, clear_echo: str | None) -> int:
        """Keep the messages of the records before ``start`` (in a new list: the old one is
        what the read compares with), with the ``/clear`` echo first when there are none;
        the position mapping starts again from (``start`` at most the records mapped).
        """
        start = min(start, len(self.first_seq))
        keep = self.first_seq[start] if start < len(self.first_seq) else self.records_end
        self.messages = self.messages[:keep]
        if not self.messages and clear_echo:
            self.add_message(
                Message(seq=0, kind="text", role="user", text=clear_echo, command=clear_echo)
            )
        del self.first_seq[start:]
        self.linked = {a: p for a, p in self.linked.items() if p < start}
        return start

    def start_record(self) -> None:
        """The messages added next are the next record's."""
        self.first_seq.append(len(self.messages))

    def add_message(self, message: Message) -> None:
        """Append a message with the next seq."""
        self.messages.append(message.model_copy(update={"seq": len(self.messages)}))
