"""Read-only access to OpenCode's SQLite store while the CLI writes it.

Why the store's ``event`` table and not the embedded server's API or the ``message`` /
``part`` tables: the event log is append-only per session with a dense ``seq``, so an
incremental read is one indexed query for ``seq > last`` whose cost follows what was
appended; it needs no live process (a finished or crashed run still reads); and each row
is committed whole by SQLite, so a reader never sees half a record. The ``message`` /
``part`` tables are updated in place (a reader would have to diff them), and the server
exists only while the TUI runs.

Every read opens the database read-only (``mode=ro``: it is never created, never
written), sees the WAL's committed frames, and closes again, so no lock or snapshot is
held between reads while the CLI writes.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from . import _compat

__all__ = ["EventRow", "SessionRow", "connect", "read_events", "sessions"]

_BUSY_TIMEOUT = 2.0


@dataclass(frozen=True)
class EventRow:
    """One row of the ``event`` table."""

    seq: int
    id: str
    type: str
    data: str


@dataclass(frozen=True)
class SessionRow:
    """One top-level session of a folder."""

    id: str
    time_created: int
    """Milliseconds since the epoch."""


@contextmanager
def connect(db: Path) -> Iterator[sqlite3.Connection | None]:
    """A read-only connection, or ``None`` when the file is missing or not a database."""
    if not db.is_file():
        yield None
        return
    try:
        conn = sqlite3.connect(f"file:{quote(str(db))}?mode=ro", uri=True, timeout=_BUSY_TIMEOUT)
    except sqlite3.Error:
        yield None
        return
    # Text the CLI stored that is not UTF-8 is replaced, not fatal to the whole read.
    conn.text_factory = lambda raw: raw.decode("utf-8", "replace")
    try:
        yield conn
    finally:
        conn.close()


def _missing_table(exc: sqlite3.Error) -> bool:
    text = str(exc)
    return "no such table" in text or "not a database" in text or "no such column" in text


def read_events(
    db: Path, session_id: str, after: int, check: tuple[int, str] | None, limit: int = -1
) -> tuple[list[EventRow], bool]:
    """Events of ``session_id`` with ``seq > after``, and whether the log was rewritten.

    ``check`` is the last ``(seq, id)`` read: when that row is gone or holds another
    event, the log was replaced and every event is returned again (``True``). ``limit``
    caps the rows returned (``-1``: no cap).
    """
    with connect(db) as conn:
        if conn is None:
            return [], check is not None
        try:
            rewritten = False
            if check is not None:
                row = conn.execute(_compat.EVENT_AT_QUERY, (session_id, check[0])).fetchone()
                rewritten = row is None or row[0] != check[1]
                if rewritten:
                    after = -1
            rows = conn.execute(_compat.EVENT_QUERY, (session_id, after, limit)).fetchall()
        except sqlite3.Error as exc:
            if _missing_table(exc):
                return [], check is not None
            # Busy or locked past the timeout: nothing new now; the next change reads it.
            return [], False
    return [EventRow(int(r[0]), str(r[1]), str(r[2]), str(r[3])) for r in rows], rewritten


def sessions(db: Path, directory: str, since_ms: int) -> list[SessionRow]:
    """Top-level sessions run in ``directory`` created at or after ``since_ms``, oldest first."""
    with connect(db) as conn:
        if conn is None:
            return []
        try:
            rows = conn.execute(_compat.SESSION_QUERY, (directory, since_ms)).fetchall()
        except sqlite3.Error as exc:
            if _missing_table(exc):
                return []
            return []
    return [SessionRow(str(r[0]), int(r[1])) for r in rows]
