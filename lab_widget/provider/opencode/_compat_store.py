"""OpenCode 1.18.33's SQLite store as the reader queries it (part of the couplings in
:mod:`._compat`, which re-exports every name; evidence in ``docs/compat/opencode.md``).
"""

from __future__ import annotations

__all__ = [
    "DB_ENV",
    "DB_FILE",
    "EVENT_AT_QUERY",
    "EVENT_QUERY",
    "FIRST_MESSAGES_QUERY",
    "HAS_EVENTS_QUERY",
    "MESSAGE_ROWS_QUERY",
    "PARTS_OF_QUERY",
    "PART_ROWS_QUERY",
    "ROWS_OVERLAP_MS",
    "SESSION_QUERY",
    "SESSION_ROW_QUERY",
    "STAT_EVENTS_QUERY",
    "STAT_ROWS_QUERY",
    "STAT_SESSIONS_QUERY",
    "STAT_TABLES",
]

DB_FILE = "opencode/opencode.db"
"""The SQLite store under ``$XDG_DATA_HOME`` (default ``~/.local/share``), written in WAL
mode (``opencode.db-wal`` / ``-shm`` beside it). ``OPENCODE_DB`` overrides the path."""

DB_ENV = "OPENCODE_DB"

EVENT_QUERY = (
    "SELECT seq, id, type, data FROM event WHERE aggregate_id = ? AND seq > ? ORDER BY seq LIMIT ?"
)
"""The store's ``event`` table is an append-only log per session (``aggregate_id`` is the
session id, ``seq`` counts from 0): ``session.created.1``, ``session.updated.1``,
``message.updated.1`` (a message's whole info, re-sent on every change),
``message.part.updated.1`` (a part's whole state, re-sent on every change). The
``message`` / ``part`` tables hold only the latest state, updated in place."""

EVENT_AT_QUERY = "SELECT id FROM event WHERE aggregate_id = ? AND seq = ?"

SESSION_QUERY = (
    "SELECT id, time_created FROM session WHERE directory = ? AND parent_id IS NULL "
    "AND time_created >= ? ORDER BY time_created, id"
)
"""Top-level sessions of a folder (subagent sessions have a ``parent_id``); a session row
is created with the first message, also after ``/new``."""

ROWS_OVERLAP_MS = 2000
"""Rows updated this long before the newest update read are read again: the CLI stamps a
row before it commits it."""

HAS_EVENTS_QUERY = "SELECT 1 FROM event WHERE aggregate_id = ? LIMIT 1"

MESSAGE_ROWS_QUERY = (
    "SELECT id, time_created, time_updated, data FROM message "
    "WHERE session_id = ? AND time_updated >= ? ORDER BY time_created, id"
)
PART_ROWS_QUERY = (
    "SELECT id, message_id, time_created, time_updated, data FROM part "
    "WHERE session_id = ? AND time_updated >= ? ORDER BY message_id, id"
)
"""Versions whose store keeps no event log for a session read these tables: the latest
state of each message and part, updated in place with ``time_updated`` (ms) moving on
every change; ``data`` is the message info / part without its ``id``, ``sessionID`` and
(for parts) ``messageID``, which are columns. 1.2.27 has no ``event`` table; 1.15.13 has
one and leaves it empty; 1.17.19 and 1.18.33 write both (``tests/fixtures/opencode/v*/``)."""

FIRST_MESSAGES_QUERY = (
    "SELECT id, data FROM message WHERE session_id = ? ORDER BY time_created, id LIMIT ?"
)
PARTS_OF_QUERY = "SELECT id, message_id, data FROM part WHERE message_id IN ({marks}) ORDER BY id"

SESSION_ROW_QUERY = "SELECT directory, version, parent_id, time_created FROM session WHERE id = ?"

STAT_SESSIONS_QUERY = "SELECT id, time_updated FROM session WHERE id IN ({marks})"
STAT_ROWS_QUERY = (
    "SELECT session_id, MAX(time_updated), SUM(length(CAST(data AS BLOB))) FROM {table} "
    "WHERE session_id IN ({marks}) GROUP BY session_id"
)
STAT_TABLES = ("message", "part")
STAT_EVENTS_QUERY = (
    "SELECT aggregate_id, SUM(length(CAST(data AS BLOB))) FROM event "
    "WHERE aggregate_id IN ({marks}) GROUP BY aggregate_id"
)
"""A listing's ``modified`` and ``size`` of each session of the store (one file holds them
all, so its own stat says nothing of one): the newest ``time_updated`` (ms) of the session
row and of its ``message`` and ``part`` rows (the session row is stamped a few ms before its
last message: both are read), and the bytes of those rows' JSON: the session as last
written. Where a session has no rows (a store that keeps only the event log), its events'
bytes, which hold every version of each record. Each query takes ``{marks}`` ids (at most
:data:`~._compat.COUNTED_IDS_PER_QUERY`); the tables are indexed by session (``part_session_idx``,
``message_session_time_created_id_idx``, the event log by ``aggregate_id``). Measured on
the 58 MB bench store of 200 sessions: rows 10 ms, events 37 ms."""
