"""The first prompt and model of OpenCode sessions for history's listing, read from the start
of each session: its first message rows and its user messages' parts where the store keeps
rows (1.2.27 and later), else the first events of its log, else (before the SQLite store)
its first message files. The sessions of one store are read with one connection: its first
query parses the store's whole schema, which costs more than a session's first rows.

From rows, the preview is what the reader would show of them (``_from_rows``, held to the
reader's mapping by the tests) without mapping every message: the first user text that is
not synthetic (an image first: an empty prompt), and the model of the newest assistant
message naming one.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path

from .. import TranscriptRef
from ..kit import loads_or_none
from ._parts import attachments
from ._store import RowChange, connect, first_changes, first_events, first_rows, snapshot
from ._transcript import OpenCodeTranscriptReader, apply_events

__all__ = ["previews"]

Preview = tuple[str | None, str | None]

PREVIEW_ROWS = 64
"""Events a preview reads: the first prompt and the model come within a turn's first rows."""

PREVIEW_MESSAGES = 4
"""Message rows a preview reads (with the parts of its user messages)."""


def _shown(reader: OpenCodeTranscriptReader) -> Preview:
    prompt = next((m.text for m in reader.messages if m.role == "user" and m.kind == "text"), None)
    return prompt, reader.summary.model


def _from_rows(changes: list[RowChange]) -> Preview:
    """``(first prompt, model)`` as the reader maps these rows (``apply_changes``)."""
    roles: dict[str, str] = {}
    models: dict[str, object] = {}
    for change in changes:
        info = loads_or_none(change.data.encode()) if change.table == "message" else None
        if isinstance(info, dict):  # an unreadable row is no message of the reader's
            roles[change.id] = str(info.get("role"))
            if info.get("role") == "assistant":
                models[change.id] = info.get("modelID")
    # The reader applies the messages again in id order after their parts: the last
    # assistant naming a model names the session's.
    model = None
    for msg_id in sorted(models):
        named = models[msg_id]
        if isinstance(named, str) and named:
            model = named
    for change in changes:
        role = roles.get(change.message_id) if change.table == "part" else None
        if role != "user":
            continue  # not a part, or one whose message is not a user's (or unreadable)
        part = loads_or_none(change.data.encode())
        if not isinstance(part, dict):
            continue
        kind = part.get("type")
        if kind == "text":
            text = str(part.get("text") or "")
            if text and not part.get("synthetic"):
                return text, model
        elif kind == "file" and attachments([part]):
            return "", model  # an image the user sent before any text
    return None, model


def previews(refs: Sequence[TranscriptRef]) -> list[Preview]:
    """``(first prompt, model)`` of each session of ``refs``, in their order."""
    found: dict[int, Preview] = {}
    stores: dict[Path, list[int]] = {}
    for index, ref in enumerate(refs):
        if ref.path.suffix == ".json":
            reader = OpenCodeTranscriptReader(ref)
            reader.apply_changes(first_changes(ref.path, ref.transcript_id, PREVIEW_MESSAGES))
            found[index] = _shown(reader)
        else:
            stores.setdefault(ref.path, []).append(index)
    for db, indexes in stores.items():
        with connect(db) as conn:
            if conn is None:
                found.update((index, (None, None)) for index in indexes)
                continue
            with snapshot(conn):
                for index in indexes:
                    found[index] = _store_preview(conn, refs[index])
    return [found[index] for index in range(len(refs))]


def _store_preview(conn: sqlite3.Connection, ref: TranscriptRef) -> Preview:
    changes = first_rows(conn, ref.transcript_id, PREVIEW_MESSAGES)
    if changes:
        return _from_rows(changes)
    return _shown(apply_events(ref, first_events(conn, ref.transcript_id, PREVIEW_ROWS)))
