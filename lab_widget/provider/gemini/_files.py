"""Gemini CLI's session files on disk: which format a file is, its metadata and a preview,
each from a bounded read.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

from .. import TranscriptRef
from ..kit import iso_time, json_lines, load_json, read_head
from . import _compat
from ._records import user_text
from ._subagents import agents_folder

__all__ = [
    "chats_dir",
    "epoch",
    "is_document",
    "legacy_chats_dir",
    "peek_session",
    "read_header",
    "session_ref",
    "sessions",
    "sessions_since",
]

_PEEK_BYTES = 1 << 20
_HEAD_BYTES = 1 << 12


def is_document(path: Path) -> bool:
    """Whether a session file is one JSON document (older versions) rather than an event log.

    The name tells (``.json`` against ``.jsonl``); a file named otherwise is a document when
    its first line opens an object and holds nothing more.
    """
    if path.suffix in (_compat.DOCUMENT_SUFFIX, _compat.EVENT_LOG_SUFFIX):
        return path.suffix == _compat.DOCUMENT_SUFFIX
    try:
        with path.open("rb") as f:
            first = f.readline(_PEEK_BYTES)
    except OSError:
        return False
    return first.strip() == b"{"


_HEADER_FIELD = re.compile(rb'"(sessionId|startTime|lastUpdated|kind)"\s*:\s*"([^"\\]*)"')


def read_header(path: Path) -> dict[str, Any] | None:
    """The metadata of a session file (its first line; a document's top fields), if readable."""
    try:
        with path.open("rb") as f:
            first = f.readline(_PEEK_BYTES) if not is_document(path) else f.read(_HEAD_BYTES)
    except OSError:
        return None
    if is_document(path):
        # The metadata comes first in the document: a bounded prefix holds it, however long
        # the conversation after it is.
        head = first.split(b'"messages"', 1)[0]
        found = {m.group(1).decode(): m.group(2).decode() for m in _HEADER_FIELD.finditer(head)}
        return found if found.get("sessionId") else None
    try:
        line = json.loads(first)
    except ValueError:
        return None
    return line if isinstance(line, dict) and isinstance(line.get("sessionId"), str) else None


def _document_records(data: bytes) -> list[dict[str, Any]]:
    """The message records that parse whole in a prefix of a session document."""
    text = data.decode("utf-8", "replace")
    start = text.find('"messages"')
    start = text.find("[", start) if start >= 0 else -1
    if start < 0:
        return []
    decoder = json.JSONDecoder()
    records: list[dict[str, Any]] = []
    position = start + 1
    while True:
        while position < len(text) and text[position] in " \t\r\n,":
            position += 1
        if position >= len(text) or text[position] != "{":
            return records
        try:
            value, position = decoder.raw_decode(text, position)
        except ValueError:
            return records  # cut off by the prefix
        if isinstance(value, dict):
            records.append(value)


def peek_session(path: Path) -> tuple[str | None, str | None]:
    """``(first user prompt, model)`` from a bounded prefix of a session file."""
    prompt: str | None = None
    model: str | None = None
    data = read_head(path, _PEEK_BYTES)
    if data is None:
        return None, None
    lines = _document_records(data) if is_document(path) else json_lines(data)
    for line in lines:
        if not isinstance(line, dict):
            continue
        if prompt is None and line.get("type") == "user":
            prompt = user_text(line) or None
        if model is None and line.get("type") == "gemini" and isinstance(line.get("model"), str):
            model = line["model"]
        if prompt is not None and model is not None:
            break
    return prompt, model


def chats_dir(global_dir: Path, cwd: Path) -> Path | None:
    """Where Gemini CLI keeps the sessions of ``cwd`` (its slug from ``projects.json``)."""
    projects = load_json(global_dir / _compat.PROJECTS_FILE).get("projects")
    folder = str(Path(cwd).expanduser().resolve())
    slug = projects.get(folder) if isinstance(projects, dict) else None
    return global_dir / "tmp" / slug / "chats" if isinstance(slug, str) else None


def session_ref(session_id: str, path: Path) -> TranscriptRef:
    # The session's folder, and the folder its sub-agents write their sessions into.
    return TranscriptRef(
        transcript_id=session_id, path=path, watch=(path.parent, agents_folder(path, session_id))
    )


def legacy_chats_dir(global_dir: Path, cwd: Path) -> Path:
    """Where versions before the slug registry kept the sessions of ``cwd``."""
    folder = str(Path(cwd).expanduser().resolve())
    digest = hashlib.new(_compat.LEGACY_PROJECT_DIR, folder.encode()).hexdigest()
    return global_dir / "tmp" / digest / "chats"


def sessions(global_dir: Path, cwd: Path) -> list[TranscriptRef]:
    """Every session file of ``cwd``, of any version: event logs and older JSON documents,
    under the slug folder and the older hashed one. A session converted to an event log
    on resume keeps its document beside it: the event log stands for it.
    """
    folders = [chats_dir(global_dir, cwd), legacy_chats_dir(global_dir, cwd)]
    found: dict[str, TranscriptRef] = {}
    for chats in dict.fromkeys(f for f in folders if f is not None):
        paths = [
            *sorted(chats.glob(f"{_compat.SESSION_PREFIX}*{_compat.EVENT_LOG_SUFFIX}")),
            *sorted(chats.glob(f"{_compat.SESSION_PREFIX}*{_compat.DOCUMENT_SUFFIX}")),
        ]
        for path in paths:
            header = read_header(path)
            if header is None or str(header["sessionId"]) in found:
                continue
            session_id = str(header["sessionId"])
            found[session_id] = session_ref(session_id, path)
    return sorted(found.values(), key=lambda ref: ref.path.name)


def sessions_since(global_dir: Path, cwd: Path, since: float) -> list[tuple[str, Path]]:
    """``(session id, file)`` of the sessions of ``cwd`` started at or after ``since`` (a
    run's, found without hook records), oldest first.
    """
    found = []
    for ref in sessions(global_dir, cwd):
        header = read_header(ref.path) or {}
        started = epoch(header.get("startTime"))
        if started is not None and started >= since:
            found.append((started, ref.transcript_id, ref.path))
    return [(session_id, path) for _, session_id, path in sorted(found)]


def epoch(value: Any) -> float | None:
    """An ISO time as seconds since the epoch, if it is one."""
    stamp = iso_time(value)
    return stamp.timestamp() if stamp is not None else None
