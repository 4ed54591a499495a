"""The first prompt and model of OpenCode sessions for history's listing, read from the start
of each session: its first message rows and its user messages' parts where the store keeps
rows (1.2.27 and later), else the first events of its log, else (before the SQLite store)
its first message files. The sessions of one store are read with one connection: its first
query parses the store's whole schema, which costs more than a session's first rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from .. import TranscriptRef
from ._store import connect, first_changes, first_events, first_rows
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
            for index in indexes:
                ref = refs[index]
                if conn is None:
                    found[index] = (None, None)
                    continue
                changes = first_rows(conn, ref.transcript_id, PREVIEW_MESSAGES)
                if changes:
                    reader = OpenCodeTranscriptReader(ref)
                    reader.apply_changes(changes)
                else:
                    reader = apply_events(ref, first_events(conn, ref.transcript_id, PREVIEW_ROWS))
                found[index] = _shown(reader)
    return [found[index] for index in range(len(refs))]
