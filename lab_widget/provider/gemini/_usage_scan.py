"""A Gemini CLI session's tokens without its messages: the usage-only fast path for history
and session summaries over many session files.

Which records count depends on the whole record log as the reader keeps it (a re-appended
record replaces the earlier one, ``$rewindTo`` cuts, ``$set.messages`` rewrites and
roll-backs), sub-agents' sessions included, but past the last cut or rewrite it depends on
the replies alone: a reply keeps its type under its id (:data:`~._compat.REPLY_TYPE`), so
nothing else can replace one. So the log is read as the reader reads it (less the mapping
of records to messages and the last-update stamps, half its lines) up to its last cut or
rewrite, found by looking at each ``$`` of the mapped file (a ``memchr``), usually the
whole-list write that seeds a session on its second line; from there only the lines holding
``"gemini"`` are parsed, found by a byte search. The last line stamping the session gives its
last update. Older versions' one-JSON documents are read as the reader reads them. Sums are
plain integers until the end, not a pydantic model per record.
"""

from __future__ import annotations

import mmap
from pathlib import Path
from typing import Any

from ...schema import AgentScope, Message, SessionSummary, Usage
from .. import ReadResult, TranscriptRef
from ..kit import UsageTally, loads_or_none
from . import _compat
from ._files import is_document
from ._log import SessionLog
from ._records import timestamp
from ._subagents import SubAgents, agents_folder

__all__ = ["usage_summary"]

_STAMPS = (b'{"$set": {"lastUpdated": "', b'{"$set":{"lastUpdated":"')
"""How a last-update stamp starts, spaced as the recorded files are and compact."""
_STAMP_QUOTES = 6
"""``"$set"``, ``"lastUpdated"`` and the time: any other key adds quotes."""
_STAMP_KEY = b'"lastUpdated"'
_NEWLINE = ord("\n")
_REPLY = b'"' + _compat.REPLY_TYPE.encode() + b'"'
_CUT = "$rewindTo"
_KEYS = (b'"$rewindTo"', b'"$set"')
"""The keys of a cut and of a metadata update (a whole-list rewrite is one): ``$`` is rare
in a session's text, so its every occurrence is looked at, by ``memchr``."""


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


def _last_cut(data: mmap.mmap, end: int) -> int:
    """Where the line after the last cut of the log or rewrite of its list starts (``0``
    for none), as the log's ``apply`` tells them apart; stamps (half a log's lines) are
    passed over by their shape alone.
    """
    found = 0
    hit = data.find(b"$", 0, end)
    while hit >= 0:
        line_end = data.find(b"\n", hit)
        # A stamp's ``$`` is its line's third byte.
        head = hit - 2
        if not (
            head >= 0
            and (head == 0 or data[head - 1] == _NEWLINE)
            and _stamp_only(data[head:line_end])
        ):
            raw = data[data.rfind(b"\n", 0, hit) + 1 : line_end]
            if any(key in raw for key in _KEYS) and _is_cut(loads_or_none(raw)):
                found = line_end + 1
        hit = data.find(b"$", line_end + 1, end)
    return found


def _is_cut(line: Any) -> bool:
    if not isinstance(line, dict) or isinstance(line.get("id"), str):
        return False
    update = line.get("$set")
    return _CUT in line or (isinstance(update, dict) and isinstance(update.get("messages"), list))


def _mapped(path: Path) -> mmap.mmap | None:
    """The file mapped, not read: searches run over the page cache without a copy."""
    try:
        with path.open("rb") as f:
            return mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):  # ValueError: an empty file cannot be mapped
        return None


def _count(value: Any) -> int:
    # ``type() is int``: a JSON boolean is no count (and a plain int is all JSON gives)
    return value if type(value) is int and value > 0 else 0


class _RecordsOnly:
    """A session's record log and totals as the reader keeps them (a ``SessionLog``), with
    no record mapped to messages; its sub-agents' sessions are read so too.
    """

    def __init__(self, ref: TranscriptRef, *, subagent: bool = False) -> None:
        self.ref = ref
        self._subagent = subagent
        agents = SubAgents(lambda ref: _RecordsOnly(ref, subagent=True))
        self._log = SessionLog(ref, agents, subagent=subagent)

    @property
    def messages(self) -> list[Message]:
        return []  # the messages are what this scan exists to skip

    def read(self) -> ReadResult:
        """Read the whole session once (a sub-agent's reader of the log's ``SubAgents``)."""
        log = self._log
        if log.document is None:
            log.document = is_document(self.ref.path)
        if log.document:
            log.read_document(self.ref.path)  # as the reader reads it, sub-agents aside
            return ReadResult(changed=[])
        data = _mapped(self.ref.path)
        if data is not None:  # else no file, or an empty one: no lines to read
            with data:
                end = data.rfind(b"\n") + 1  # complete lines only, as the reader reads them
                start = self._read_whole(data, _last_cut(data, end), end)
                self._read_replies(data, start, end)
                self._last_stamp(data, 0, end)
        if not self._subagent:
            session = str(log.facts.get("session_id") or "")
            log.agents.read(agents_folder(self.ref.path, session) if session else None)
        return ReadResult(changed=[])

    def _read_whole(self, data: mmap.mmap, cut_end: int, end: int) -> int:
        """Apply every line as the reader does (stamps aside) up to the first record past
        ``cut_end``; where that record's line starts.
        """
        position = 0
        number = 0  # numbered as the reader's tail numbers them, to note a line that is no JSON
        while position < end:
            line_end = data.find(b"\n", position)
            raw = data[position:line_end]
            number += 1
            if raw and not raw.isspace() and not _stamp_only(raw):
                line = loads_or_none(raw)
                if line is None and raw.strip() != b"null":
                    self._log.note(number, "unreadable line")
                elif isinstance(line, dict):
                    if position >= cut_end and isinstance(line.get("id"), str):
                        return position
                    self._log.apply(line)
            position = line_end + 1
        return position

    def _read_replies(self, data: mmap.mmap, start: int, end: int) -> None:
        """Apply the lines from ``start`` on that hold a reply: with no cut or rewrite past
        ``start``, which records count depends on nothing else.
        """
        hit = data.find(_REPLY, start, end)
        while hit >= 0:
            line_start = data.rfind(b"\n", 0, hit) + 1
            line_end = data.find(b"\n", hit)
            line = loads_or_none(data[line_start:line_end])
            # A line that is no JSON object counts nothing (the reader notes it, and with no
            # cut or rewrite after it, the note changes what counts in no way).
            if isinstance(line, dict):
                if isinstance(line.get("id"), str):
                    self._log.put(line)
                else:
                    self._log.apply(line)
            hit = data.find(_REPLY, line_end + 1, end)

    def _last_stamp(self, data: mmap.mmap, start: int, end: int) -> None:
        """The session's last update: the last line between ``start`` and ``end`` that sets
        it, as the log's ``apply`` does (a ``$set`` with a time in ``lastUpdated``, or a header).
        """
        position = end
        while (hit := data.rfind(_STAMP_KEY, start, position)) >= 0:
            position = data.rfind(b"\n", 0, hit) + 1
            line = loads_or_none(data[position : data.find(b"\n", hit)])
            if not isinstance(line, dict) or isinstance(line.get("id"), str) or _CUT in line:
                continue
            update = line.get("$set")
            if not isinstance(update, dict):
                if isinstance(line.get("sessionId"), str):
                    self._log.apply(line)
                    return
            elif timestamp(update.get("lastUpdated")) is not None:
                # Its facts only: a whole-list rewrite was applied where it stands.
                self._log.apply({"$set": {"lastUpdated": update["lastUpdated"]}})
                return

    def sum_into(self, tally: UsageTally, scope: AgentScope) -> tuple[str | None, int | None]:
        """Add this session's responses to ``tally`` as ``record_usage`` and ``ModelTally``
        count them; the last model named and the last response's context.
        """
        model: str | None = None
        context: int | None = None
        reply = _compat.REPLY_TYPE
        for record in self._log.records:
            if record.get("type") != reply:
                continue
            name = record.get("model")
            if type(name) is not str:
                name = None
            tokens = record.get("tokens")
            if isinstance(tokens, dict):
                get = tokens.get
                cached = _count(get("cached"))
                thoughts = _count(get("thoughts"))
                inputs = max(0, _count(get("input")) - cached) + _count(get("tool"))
                tally.add(
                    name or "unknown",
                    scope,
                    input_tokens=inputs,
                    output_tokens=_count(get("output")) + thoughts,
                    reasoning_tokens=thoughts,
                    cache_read_tokens=cached,
                )
                context = inputs + cached
            if name:
                model = name
        return model, context

    @property
    def summary(self) -> SessionSummary:
        tally = UsageTally()
        model, context = self.sum_into(tally, "subagent" if self._subagent else "main")
        for reader in self._log.agents.readers.values():
            if isinstance(reader, _RecordsOnly):
                reader.sum_into(tally, "subagent")
        rows = tally.rows()
        return SessionSummary(
            **self._log.public_facts(),
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
