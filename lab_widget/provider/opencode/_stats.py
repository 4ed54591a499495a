"""When each OpenCode session of a listing last changed and the bytes it takes.

The SQLite store holds every session in one file, so the file's own stat says nothing of one
session: the store's rows say it (:data:`~._compat.STAT_ROWS_QUERY`). A session of the JSON
files older versions kept (one file per session) keeps its file's stat, as one whose store
cannot be read now does.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path

from .. import SessionStat, TranscriptRef
from . import _compat
from ._store import _missing_table, connect, snapshot

__all__ = ["session_stats"]


def session_stats(refs: Sequence[TranscriptRef]) -> list[SessionStat | None]:
    """:class:`SessionStat` of each session of ``refs``, in their order (``None``: gone)."""
    found: dict[int, SessionStat | None] = {}
    stores: dict[Path, list[int]] = {}
    for index, ref in enumerate(refs):
        if ref.path.suffix == ".json":
            found[index] = SessionStat.of_file(ref.path)
        else:
            stores.setdefault(ref.path, []).append(index)
    for db, indexes in stores.items():
        ids = sorted({refs[i].transcript_id for i in indexes})
        with connect(db) as conn:
            stats = None
            if conn is not None:
                with snapshot(conn):
                    stats = _store_stats(conn, ids)
        for index in indexes:
            # A store that cannot be read now: the file's own stat, as before it was read.
            found[index] = (
                stats.get(refs[index].transcript_id)
                if stats is not None
                else SessionStat.of_file(db)
            )
    return [found[index] for index in range(len(refs))]


def _chunks(ids: list[str]) -> list[list[str]]:
    step = _compat.COUNTED_IDS_PER_QUERY
    return [ids[i : i + step] for i in range(0, len(ids), step)]


def _store_stats(conn: sqlite3.Connection, ids: list[str]) -> dict[str, SessionStat] | None:
    newest: dict[str, int] = {}
    size: dict[str, int] = {}
    with_rows: set[str] = set()
    try:
        for chunk in _chunks(ids):
            marks = ", ".join("?" * len(chunk))
            query = _compat.STAT_SESSIONS_QUERY.format(marks=marks)
            for session_id, updated in conn.execute(query, chunk):
                newest[str(session_id)] = int(updated or 0)
            for table in _compat.STAT_TABLES:
                query = _compat.STAT_ROWS_QUERY.format(table=table, marks=marks)
                try:
                    rows = conn.execute(query, chunk).fetchall()
                except sqlite3.Error as exc:
                    if not _missing_table(exc):
                        raise
                    continue  # a store without this table (it keeps only the event log)
                for session_id, updated, length in rows:
                    key = str(session_id)
                    with_rows.add(key)
                    newest[key] = max(newest.get(key, 0), int(updated or 0))
                    size[key] = size.get(key, 0) + int(length or 0)
        only_events = [i for i in newest if i not in with_rows]
        for chunk in _chunks(only_events):
            query = _compat.STAT_EVENTS_QUERY.format(marks=", ".join("?" * len(chunk)))
            try:
                rows = conn.execute(query, chunk).fetchall()
            except sqlite3.Error as exc:
                if not _missing_table(exc):
                    raise
                break  # no event log either: the session row is all there is
            for session_id, length in rows:
                size[str(session_id)] = int(length or 0)
    except sqlite3.Error:
        return None  # busy past the timeout, or not a store this reads
    return {i: SessionStat(at / 1000, size.get(i, 0)) for i, at in newest.items()}
