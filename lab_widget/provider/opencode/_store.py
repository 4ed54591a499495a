"""Read-only access to OpenCode's SQLite store while the CLI writes it.

Why the store's ``event`` table and not the embedded server's API or the ``message`` /
``part`` tables: the event log is append-only per session with a dense ``seq``, so an
incremental read is one indexed query for ``seq > last`` whose cost follows what was
appended; it needs no live process (a finished or crashed run still reads); and each row
is committed whole by SQLite, so a reader never sees half a record. The ``message`` /
``part`` tables are updated in place (a reader would have to diff them), and the server
exists only while the TUI runs. A read of a whole finished session (a listing's previews,
usage-only summaries) has nothing to follow: there those tables' rows, each record once, are
fewer bytes than its log.

Every read opens the database read-only (``mode=ro``: it is never created, never
written), sees the WAL's committed frames, and closes again, so no lock or snapshot is
held between reads while the CLI writes.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from .. import TranscriptRef
from ..kit import as_dict, loads_or_none
from . import _compat

__all__ = [
    "EventRow",
    "RowChange",
    "SessionRow",
    "connect",
    "first_changes",
    "first_events",
    "first_rows",
    "folder_sessions",
    "has_events",
    "legacy_sessions",
    "read_events",
    "read_legacy",
    "read_rows",
    "read_session",
    "session_info",
    "sessions",
    "snapshot",
]

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
    path: Path | None = None
    """Where it lives when not in the database: a legacy ``storage/session`` file."""


@dataclass(frozen=True)
class RowChange:
    """A message or part as stored now (a ``message`` / ``part`` row, or a legacy file)."""

    table: str
    """``"message"`` or ``"part"``."""
    id: str
    message_id: str
    """The message a part belongs to (a message's own id for a message)."""
    data: str
    """The stored JSON text."""


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


@contextmanager
def snapshot(conn: sqlite3.Connection) -> Iterator[None]:
    """One read transaction for many queries of one read (a listing's): the rows of every
    query are of the same moment while the CLI writes, and each query does not take the
    store's read lock again. Held only for the block; a store too busy to begin one is
    read query by query.
    """
    try:
        conn.execute("BEGIN")
    except sqlite3.Error:
        pass
    try:
        yield
    finally:
        if conn.in_transaction:
            conn.rollback()


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


def has_events(db: Path, session_id: str) -> bool | None:
    """Whether ``session_id`` has rows in the event log; ``None`` when the store has no
    event log at all (versions before it) or cannot be read.
    """
    with connect(db) as conn:
        if conn is None:
            return None
        try:
            row = conn.execute(_compat.HAS_EVENTS_QUERY, (session_id,)).fetchone()
        except sqlite3.Error:
            return None
    return row is not None


def read_rows(db: Path, session_id: str, since: int) -> tuple[list[RowChange], int] | None:
    """``message`` and ``part`` rows of ``session_id`` updated at or after ``since`` (ms).

    Returns the rows, messages first, each table in creation order, and the newest update
    time seen (the next call's ``since``; rows updated shortly before it come again, the
    caller skips those it has seen). ``None`` when the store cannot be read now.
    """
    # A row stamped just before the last read may have been committed just after it: rows
    # of the last moments are read again (the caller skips those it has seen).
    start = max(0, since - _compat.ROWS_OVERLAP_MS) if since else 0
    with connect(db) as conn:
        if conn is None:
            return None
        try:
            messages = conn.execute(_compat.MESSAGE_ROWS_QUERY, (session_id, start)).fetchall()
            parts = conn.execute(_compat.PART_ROWS_QUERY, (session_id, start)).fetchall()
        except sqlite3.Error:
            return None
    newest = max([since, *(int(r[2]) for r in messages), *(int(r[3]) for r in parts)])
    changes = [RowChange("message", str(r[0]), str(r[0]), str(r[3])) for r in messages]
    changes += [RowChange("part", str(r[0]), str(r[1]), str(r[4])) for r in parts]
    return changes, newest


def _file_key(path: Path) -> tuple[int, int] | None:
    try:
        stat = path.stat()
    except OSError:
        return None
    return stat.st_mtime_ns, stat.st_size


def _read_text(path: Path) -> str | None:
    try:
        return path.read_bytes().decode("utf-8", "replace")
    except OSError:
        return None


def read_legacy(
    session_file: Path, session_id: str, seen: dict[Path, tuple[int, int]]
) -> list[RowChange]:
    """Messages and parts of a session kept as JSON files (before the SQLite store) that
    changed since ``seen`` (file keys, updated in place): messages first, in id order.

    ``<storage>/session/<project>/<session>.json``, ``<storage>/message/<session>/<id>.json``,
    ``<storage>/part/<message>/<id>.json``.
    """
    storage = session_file.parent.parent.parent
    changes: list[RowChange] = []
    parts: list[RowChange] = []
    try:
        message_files = sorted((storage / _compat.LEGACY_MESSAGE_DIR / session_id).glob("*.json"))
    except OSError:
        return []
    for message_file in message_files:
        message_id = message_file.stem
        key = _file_key(message_file)
        if key is not None and seen.get(message_file) != key:
            text = _read_text(message_file)
            if text is not None:
                seen[message_file] = key
                changes.append(RowChange("message", message_id, message_id, text))
        try:
            part_files = sorted((storage / _compat.LEGACY_PART_DIR / message_id).glob("*.json"))
        except OSError:
            continue
        for part_file in part_files:
            key = _file_key(part_file)
            if key is None or seen.get(part_file) == key:
                continue
            text = _read_text(part_file)
            if text is not None:
                seen[part_file] = key
                parts.append(RowChange("part", part_file.stem, message_id, text))
    return changes + parts


def legacy_sessions(storage: Path, directory: str) -> list[SessionRow]:
    """Top-level sessions of ``directory`` kept as JSON files under ``storage``."""
    found = []
    try:
        files = sorted((storage / _compat.LEGACY_SESSION_DIR).glob("*/*.json"))
    except OSError:
        return []
    for path in files:
        text = _read_text(path)
        try:
            info = json.loads(text) if text is not None else None
        except ValueError:
            continue
        if not isinstance(info, dict) or info.get("directory") != directory:
            continue
        if info.get("parentID") or not isinstance(info.get("id"), str):
            continue
        created = info.get("time", {}).get("created") if isinstance(info.get("time"), dict) else 0
        stamp = created if isinstance(created, int) and not isinstance(created, bool) else 0
        found.append(SessionRow(info["id"], stamp, path))
    return sorted(found, key=lambda s: (s.time_created, s.id))


def read_session(db: Path, session_id: str) -> dict[str, object] | None:
    """The ``session`` row of ``session_id`` as the session info the event log would carry
    (``directory``, ``version``, ``parentID``, ``time.created``), if readable.
    """
    with connect(db) as conn:
        if conn is None:
            return None
        try:
            row = conn.execute(_compat.SESSION_ROW_QUERY, (session_id,)).fetchone()
        except sqlite3.Error:
            return None
    return session_info(session_id, row)


def session_info(session_id: str, row: tuple[object, ...] | None) -> dict[str, object] | None:
    """A row of ``SESSION_ROW_QUERY`` as the session info the event log would carry."""
    if row is None:
        return None
    return {
        "id": session_id,
        "directory": row[0],
        "version": row[1],
        "parentID": row[2],
        "time": {"created": row[3]},
    }


def first_changes(path: Path, session_id: str, messages: int) -> list[RowChange]:
    """The first ``messages`` messages of a session without an event log, with their parts
    (rows of the store, or legacy files when ``path`` is a session file): for previews.
    """
    if path.suffix == ".json":
        every = read_legacy(path, session_id, {})
        keep = {c.id for c in every if c.table == "message"}
        keep = set(sorted(keep)[:messages])
        return [c for c in every if c.message_id in keep]
    with connect(path) as conn:
        if conn is None:
            return []
        try:
            rows = conn.execute(_compat.FIRST_MESSAGES_QUERY, (session_id, messages)).fetchall()
            ids = [str(r[0]) for r in rows]
            marks = ",".join("?" * len(ids))
            parts = conn.execute(
                _compat.PARTS_OF_QUERY.format(marks=marks or "NULL"), ids
            ).fetchall()
        except sqlite3.Error:
            return []
    changes = [RowChange("message", str(r[0]), str(r[0]), str(r[1])) for r in rows]
    return changes + [RowChange("part", str(r[0]), str(r[1]), str(r[2])) for r in parts]


def first_rows(conn: sqlite3.Connection, session_id: str, messages: int) -> list[RowChange]:
    """The first ``messages`` message rows of a session and the parts of its user messages
    (its first prompt; the model is in the assistant messages' infos): for previews. Empty
    when the store keeps no rows for it, or cannot be read now.
    """
    try:
        rows = conn.execute(_compat.FIRST_MESSAGES_QUERY, (session_id, messages)).fetchall()
        users = [
            str(r[0]) for r in rows if as_dict(loads_or_none(r[1].encode())).get("role") == "user"
        ]
        parts = []
        if users:
            marks = ",".join("?" * len(users))
            parts = conn.execute(_compat.PARTS_OF_QUERY.format(marks=marks), users).fetchall()
    except sqlite3.Error:
        return []
    changes = [RowChange("message", str(r[0]), str(r[0]), str(r[1])) for r in rows]
    return changes + [RowChange("part", str(r[0]), str(r[1]), str(r[2])) for r in parts]


def first_events(conn: sqlite3.Connection, session_id: str, limit: int) -> list[EventRow]:
    """The first ``limit`` events of a session's log (none: no log, or unreadable now)."""
    try:
        rows = conn.execute(_compat.EVENT_QUERY, (session_id, -1, limit)).fetchall()
    except sqlite3.Error:
        return []
    return [EventRow(int(r[0]), str(r[1]), str(r[2]), str(r[3])) for r in rows]


_LEGACY_STORAGE_NAME = _compat.LEGACY_STORAGE.rsplit("/", 1)[-1]


def folder_sessions(db: Path, folder: str, since_ms: int) -> list[TranscriptRef]:
    """The top-level sessions of ``folder`` created at or after ``since_ms``, oldest first:
    the SQLite store's, then those of the JSON files older versions kept beside it (a
    session migrated into the store is listed once, from the store).
    """
    found = [(s.time_created, s.id, db) for s in sessions(db, folder, since_ms)]
    known = {session_id for _, session_id, _ in found}
    storage = db.parent / _LEGACY_STORAGE_NAME
    for legacy in legacy_sessions(storage, folder):
        if legacy.id not in known and legacy.time_created >= since_ms and legacy.path:
            found.append((legacy.time_created, legacy.id, legacy.path))
    refs = []
    for _, session_id, path in sorted(found):
        refs.append(TranscriptRef(transcript_id=session_id, path=path, watch=_watch(path)))
    return refs


def _watch(path: Path) -> tuple[Path, ...]:
    if path.suffix != ".json":
        return (path.parent,)  # the store and its WAL
    # A legacy session: its message folder, and the part folders of its newest messages
    # (one folder per message, created as the message starts).
    storage = path.parent.parent.parent
    messages = storage / _compat.LEGACY_MESSAGE_DIR / path.stem
    try:
        newest = sorted(p.stem for p in messages.glob("*.json"))[-2:]
    except OSError:
        newest = []
    parts = storage / _compat.LEGACY_PART_DIR
    return (messages, parts, *(parts / m for m in newest))
