"""An OpenCode session's tokens without its messages: the usage-only fast path for history
and session summaries over many sessions.

What counts is what the reader counts: each assistant message's ``step-finish`` parts (each
once, as last written), else the message's own ``tokens``, per model and scope, and the
child sessions a ``task`` call runs, from whichever source the version keeps (the event
log, the ``message`` / ``part`` rows, legacy JSON files). The reader's own bookkeeping of
infos and parts does the counting here too; what is skipped is every part that can change
no count (text, reasoning, files, tool output: the bulk of a session), left in the store
(``_compat.COUNTED_MESSAGES_QUERY``, ``_compat.COUNTED_EVENTS_QUERY``), and every message
the reader would build from the rest.

Where the store keeps ``message`` rows they are read, not the event log: each record once
as last written, what ccusage reads too. Many sessions of one store (a listing) are read
with one connection and one query per table for all of them (:func:`usage_summaries`): a
connection's first query parses the store's whole schema, which costs more than a
session's rows.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from ...schema import AgentScope, SessionSummary, Usage
from .. import ReadResult, TranscriptRef
from ..kit import exact, loads_or_none
from . import _compat
from ._parts import tool_call
from ._store import connect, session_info, snapshot
from ._transcript import OpenCodeTranscriptReader

__all__ = ["usage_summaries", "usage_summary"]


_Figures = tuple[int, int, int, int, int]
"""Input, output (reasoning included), reasoning, cache reads, cache writes."""


def _figures(tokens: Any) -> _Figures | None:
    """``step_usage``'s figures as plain ints (a pydantic model per event is most of the
    cost of a scan otherwise).

    Examples
    --------
    >>> _figures({"input": 5, "output": 2, "reasoning": 1, "cache": {"read": 3}})
    (5, 3, 1, 3, 0)
    >>> _figures({"input": True, "output": 2.5, "cache": None}), _figures([])
    ((0, 0, 0, 0, 0), None)
    """
    if not isinstance(tokens, dict):
        return None
    cache = tokens.get("cache")
    if not isinstance(cache, dict):
        cache = {}
    # JSON gives exact ints (a bool is no count): ``type`` is the cheapest exact test.
    raw = tokens.get("reasoning")
    reasoning = raw if type(raw) is int else 0
    raw = tokens.get("input")
    given = raw if type(raw) is int else 0
    raw = tokens.get("output")
    output = (raw if type(raw) is int else 0) + reasoning
    raw = cache.get("read")
    read = raw if type(raw) is int else 0
    raw = cache.get("write")
    return given, output, reasoning, read, raw if type(raw) is int else 0


class _CountsOnly(OpenCodeTranscriptReader):
    """The reader's usage rule, with no message built and no sub-agent mirrored."""

    def _reset(self) -> None:
        super()._reset()
        self._own: dict[str, _Figures] = {}
        """A message's own ``tokens``, the last that held any."""
        self._step_figures: dict[str, dict[str, _Figures]] = {}
        self._counted: dict[str, None] = {}
        """Messages in the order the reader first counts them (its ``_usage``'s order)."""

    def _message(self, info: dict[str, Any]) -> None:
        # The reader's usage rule (``_message_infos.message_info``) without the state, times and
        # errors. An info is re-sent on every change of its message: the last figures that
        # hold any count (its first count placed it in the order).
        msg_id = str(info["id"])
        role = info.get("role")
        model = info.get("modelID")
        self._session.roles[msg_id] = str(role)
        # What the counts read of it later, not the whole info (kept for every message).
        self._session.infos[msg_id] = {"id": msg_id, "role": role, "modelID": model}
        if role != "assistant":
            return
        if isinstance(model, str) and model:
            self._session.model = model
        cost = exact(info.get("cost"))
        if cost is not None:
            self._session.costs[msg_id] = cost
        figures = _figures(info.get("tokens"))
        if figures is not None and figures[0] + figures[1] + figures[3] + figures[4]:
            self._own[msg_id] = figures
            self._counted.setdefault(msg_id)

    def _own_models(self, scope: AgentScope) -> dict[tuple[str, AgentScope], tuple[Usage, int]]:
        # The reader's rule over the same counts: a message's steps, each once as last
        # written, else its own tokens.
        sums: dict[tuple[str, AgentScope], list[int]] = {}
        for msg_id in self._counted:
            steps = self._step_figures.get(msg_id)
            figures = list(steps.values()) if steps else [self._own[msg_id]]
            key = (str(self._session.infos.get(msg_id, {}).get("modelID") or "unknown"), scope)
            row = sums.setdefault(key, [0, 0, 0, 0, 0, 0])
            for each in figures:
                for i, value in enumerate(each):
                    row[i] += value
            row[5] += max(1, len(steps or {}))
        return {key: (_usage(row), row[5]) for key, row in sums.items()}

    def _part(self, part: dict[str, Any]) -> None:
        kind = part.get("type")
        if kind == "step-finish":
            msg_id = str(part.get("messageID") or "")
            if self._session.roles.get(msg_id) != "assistant":
                return  # the reader counts a step only once its message is known
            figures = _figures(part.get("tokens"))
            if figures is not None:
                self._step_figures.setdefault(msg_id, {})[str(part["id"])] = figures
                self._counted.setdefault(msg_id)
        elif kind == "tool":
            tool = tool_call(part)
            if tool.agent_id is not None:
                self._child(tool.agent_id, tool.id)

    def _child(self, agent_id: str, call_id: str) -> None:
        known = agent_id in self._children
        super()._child(agent_id, call_id)
        if not known and agent_id in self._children:
            ref = self._children[agent_id].ref
            self._children[agent_id] = _CountsOnly(ref, subagent=True)

    def _read_children(self) -> None:
        for child in self._children.values():
            child.read()

    def read(self) -> ReadResult:
        """One read (a summary is taken once): the session's rows where the store keeps
        them (read by :func:`_read_rows` before, or now), else only the events of its log
        that can count, selected by the store; legacy files as the reader reads them.
        """
        if self._source is None and self.ref.path.suffix != ".json":
            with connect(self.ref.path) as conn:
                if conn is not None:
                    _read_rows(conn, [self])
                    if self._source is None:
                        self._read_counted_events(conn)
        if self._source not in ("events", "rows"):
            return super().read()
        self._read_children()
        return ReadResult(changed=[])

    def _read_counted_events(self, conn: sqlite3.Connection) -> None:
        # A session with an event log is found by the query itself (no probe first).
        try:
            found = conn.execute(_compat.COUNTED_EVENTS_QUERY, (self.ref.transcript_id,))
            rows = found.fetchall()
        except sqlite3.Error:
            return  # unreadable now (busy past the timeout, no such table): nothing counted
        if rows:
            self._source = "events"
        for seq, event_id, kind, raw in rows:
            self._last = (int(seq), str(event_id))
            data = _json(raw)
            if isinstance(data, dict):
                self._event(str(kind), data)

    def apply_rows(self, rows: _Rows) -> None:
        """Count the session's rows as the reader applies one read of them
        (``apply_changes``): messages, then their parts (a part whose message has no
        readable row counts nothing), then the model of the newest message naming one.
        """
        self._source = "rows"
        if rows.session is not None:
            self._session.session_facts(rows.session)
        later: dict[str, bytes] = {}
        for msg_id, is_assistant, raw in rows.messages:
            if not is_assistant:
                later[msg_id] = raw  # counts nothing; read only if a part asks for it
                continue
            self._row_message(msg_id, raw)
        for part_id, msg_id, raw in rows.parts:
            if msg_id in later:
                self._row_message(msg_id, later.pop(msg_id))
            part = _json(raw)
            if isinstance(part, dict) and msg_id in self._session.roles:
                part["id"] = part_id
                part["messageID"] = msg_id
                self._part(part)
        for msg_id in sorted(self._session.infos, reverse=True):
            info = self._session.infos[msg_id]
            model = info.get("modelID")
            if info.get("role") == "assistant" and isinstance(model, str) and model:
                self._session.model = model
                break

    def _row_message(self, msg_id: str, raw: bytes) -> None:
        info = _json(raw)
        if isinstance(info, dict):
            info["id"] = msg_id
            self._message(info)


def _usage(row: list[int]) -> Usage:
    return Usage(
        input_tokens=row[0],
        output_tokens=row[1],
        reasoning_tokens=row[2],
        cache_read_tokens=row[3],
        cache_write_tokens=row[4],
    )


def _json(raw: bytes) -> Any:
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        return loads_or_none(raw, replace=True)  # not UTF-8, or what only json reads


@dataclass
class _Rows:
    """One session's rows that can count: ``(id, maybe an assistant's, data)`` of its
    messages in creation order, ``(id, message id, data)`` of its counting parts, and its
    session info.
    """

    messages: list[tuple[str, bool, bytes]] = field(default_factory=list)
    parts: list[tuple[str, str, bytes]] = field(default_factory=list)
    session: dict[str, object] | None = None


def _rows_of(conn: sqlite3.Connection, ids: list[str]) -> dict[str, _Rows]:
    """The counting rows of the sessions ``ids`` that have ``message`` rows (a store that
    keeps none, or that cannot be read now, gives none).
    """
    found: dict[str, _Rows] = {}
    step = _compat.COUNTED_IDS_PER_QUERY
    # The text columns are ids, directories and versions: decoded by SQLite itself (a
    # Python call per value costs more than the query); text that is not UTF-8 fails the
    # query, and those sessions are read on their own, with replacement characters.
    decode, conn.text_factory = conn.text_factory, str
    try:
        with snapshot(conn):  # no part read whose message was written after the messages
            for start in range(0, len(ids), step):
                _rows_chunk(conn, ids[start : start + step], found)
    finally:
        conn.text_factory = decode
    return found


def _rows_chunk(conn: sqlite3.Connection, chunk: list[str], found: dict[str, _Rows]) -> None:
    marks = ",".join("?" * len(chunk))
    try:
        messages = conn.execute(_compat.COUNTED_MESSAGES_QUERY.format(marks=marks), chunk)
        for session_id, msg_id, is_assistant, raw in messages.fetchall():
            rows = found.get(session_id)
            if rows is None:
                rows = found[session_id] = _Rows()
            rows.messages.append((msg_id, bool(is_assistant), raw))
        if not found:
            return
        parts = conn.execute(_compat.COUNTED_PARTS_QUERY.format(marks=marks), chunk)
        for session_id, part_id, msg_id, raw in parts.fetchall():
            if session_id in found:
                found[session_id].parts.append((part_id, msg_id, raw))
        sessions = conn.execute(_compat.COUNTED_SESSIONS_QUERY.format(marks=marks), chunk)
        for session_id, *row in sessions.fetchall():
            if session_id in found:
                found[session_id].session = session_info(session_id, tuple(row))
    except sqlite3.Error:
        # No message table (a store that keeps only the event log), text that is not
        # UTF-8, or busy past the timeout: these sessions are read on their own.
        for session_id in chunk:
            found.pop(session_id, None)


def _read_rows(conn: sqlite3.Connection, readers: list[_CountsOnly]) -> None:
    """Count the sessions of ``readers`` (one store's) that have rows, their sub-agents'
    too, a query per table for each generation; the rest are left to read on their own.
    """
    while readers:
        found = _rows_of(conn, list(dict.fromkeys(r.ref.transcript_id for r in readers)))
        children: list[_CountsOnly] = []
        for reader in readers:
            rows = found.get(reader.ref.transcript_id)
            if rows is None or reader._source is not None:
                continue
            reader.apply_rows(rows)
            for child in reader._children.values():
                if isinstance(child, _CountsOnly) and child._source is None:
                    children.append(child)
        readers = children


def usage_summaries(refs: Sequence[TranscriptRef]) -> list[SessionSummary]:
    """The usage of each session of ``refs`` and its sub-agents', as the reader totals it:
    the sessions of one store read together.
    """
    readers = [_CountsOnly(ref) for ref in refs]
    stores: dict[Path, list[_CountsOnly]] = {}
    for reader in readers:
        if reader.ref.path.suffix != ".json":
            stores.setdefault(reader.ref.path, []).append(reader)
    for db, group in stores.items():
        with connect(db) as conn:
            if conn is not None:
                _read_rows(conn, group)
    summaries = []
    for reader in readers:
        reader.read()
        summaries.append(reader.summary)
    return summaries


def usage_summary(ref: TranscriptRef) -> SessionSummary:
    """The usage of the session ``ref`` and its sub-agents', as the reader totals it."""
    reader = _CountsOnly(ref)
    reader.read()
    return reader.summary  # the session's facts come with it at no cost
