"""Where Codex keeps its rollout files, and what their first lines tell without reading them.

``CODEX_HOME/sessions/YYYY/MM/DD/rollout-<start time>-<thread id>.jsonl``; every version
read so far (0.80.0, 0.150.1, 0.171.0) writes plain JSONL there (none compressed to
``.jsonl.zst``), with a ``session_meta`` line first. A sub-agent's thread has its own
rollout beside its parent's, marked by ``session_meta.source.subagent``.
"""

from __future__ import annotations

import json
import time
from datetime import datetime
from pathlib import Path
from typing import Any

from .. import TranscriptRef
from ..kit import iso_time, json_lines, read_head
from . import _compat
from ._items import message_content

__all__ = [
    "find_thread",
    "folder_sessions",
    "is_context",
    "is_subagent",
    "newest_rollout",
    "peek_rollout",
    "pending_rollout",
    "read_meta",
    "resolve_pending",
    "rollouts",
    "thread_markers",
]

_PEEK_BYTES = 1 << 20
_PENDING = "rollout-pending-"


def is_context(text: str) -> bool:
    r"""Whether a user-role message is Codex's own context rather than the user's words.

    Examples
    --------
    >>> is_context("<environment_context>\n  <cwd>/w</cwd>"), is_context("hello")
    (True, False)
    """
    return text.lstrip().startswith(_compat.CONTEXT_PREFIXES)


def pending_rollout(sessions: Path, thread_id: str) -> Path:
    """A stand-in path for a thread whose rollout does not exist yet.

    Codex names a rollout by the thread's start time, which is known only once the file
    exists; a reader opened on this path finds the real file by the thread id.

    Examples
    --------
    >>> pending_rollout(Path("/h/sessions"), "abc")
    PosixPath('/h/sessions/rollout-pending-abc.jsonl')
    """
    return sessions / f"{_PENDING}{thread_id}.jsonl"


def resolve_pending(path: Path) -> Path | None:
    """The real rollout behind ``path`` (itself unless it is a stand-in), once it exists."""
    if not path.name.startswith(_PENDING):
        return path
    thread_id = path.name[len(_PENDING) : -len(".jsonl")]
    found = sorted(path.parent.glob(f"*/*/*/rollout-*-{thread_id}.jsonl"))
    return found[0] if found else None


def find_thread(thread_id: str, beside: Path, when: datetime | None) -> Path | None:
    """The rollout of ``thread_id``, looked for where Codex writes it: the folder of a
    rollout of the same session (``beside``), and the day folders of ``when`` (the
    moment the thread was started, local and UTC dates) under the same ``sessions``.

    Globs a few folders, never the whole ``sessions`` tree: a user's home holds thousands
    of rollouts.
    """
    pattern = f"rollout-*-{thread_id}.jsonl"
    folders = [beside.parent]
    sessions = beside.parent.parent.parent.parent
    if when is not None and all(p.name.isdigit() for p in beside.parents[:3]):
        stamp = when.timestamp()
        for day in (time.localtime(stamp), time.gmtime(stamp)):
            folder = sessions / time.strftime("%Y/%m/%d", day)
            if folder not in folders:
                folders.append(folder)
    for folder in folders:
        try:
            found = sorted(folder.glob(pattern))
        except OSError:
            continue
        if found:
            return found[0]
    return None


def read_meta(path: Path) -> dict[str, Any] | None:
    """The ``session_meta`` payload of a rollout (its first line), if readable."""
    try:
        with path.open("rb") as f:
            first = f.readline(_PEEK_BYTES)
    except OSError:
        return None
    try:
        line = json.loads(first)
    except ValueError:
        return None
    if isinstance(line, dict) and line.get("type") == "session_meta":
        payload = line.get("payload")
        return payload if isinstance(payload, dict) else None
    return None


def is_subagent(meta: dict[str, Any]) -> bool:
    """Whether a ``session_meta`` payload is a sub-agent's thread (part of its parent's
    session, not a session of its own).

    Examples
    --------
    >>> is_subagent({"source": {"subagent": {"thread_spawn": {}}}}), is_subagent({"source": "cli"})
    (True, False)
    """
    source = meta.get("source")
    return isinstance(source, dict) and "subagent" in source


def rollouts(sessions: Path) -> list[Path]:
    """Every rollout under a ``sessions`` folder (``YYYY/MM/DD/rollout-*.jsonl``)."""
    try:
        return sorted(sessions.glob("*/*/*/rollout-*.jsonl"))
    except OSError:
        return []


def peek_rollout(path: Path) -> tuple[str | None, str | None]:
    """``(first user prompt, model)`` from a bounded prefix of a rollout."""
    prompt: str | None = None
    model: str | None = None
    data = read_head(path, _PEEK_BYTES)
    if data is None:
        return None, None
    for line in json_lines(data):
        payload = line.get("payload") if isinstance(line, dict) else None
        if not isinstance(payload, dict):
            continue
        if line.get("type") == "turn_context" and model is None:
            model = payload.get("model") if isinstance(payload.get("model"), str) else None
        if (
            prompt is None
            and line.get("type") == "response_item"
            and payload.get("type") == "message"
            and payload.get("role") == "user"
        ):
            text, _ = message_content(payload.get("content"))
            if text and not is_context(text):
                prompt = text
        if prompt is not None and model is not None:
            break
    return prompt, model


def folder_sessions(codex_home: Path, folder: Path) -> list[TranscriptRef]:
    """The rollouts under ``codex_home`` of sessions run in ``folder``; a sub-agent's
    rollout is part of its parent's session, not one of its own.
    """
    refs = []
    for path in rollouts(codex_home / _compat.SESSIONS_DIR):
        meta = read_meta(path)
        if (
            meta is not None
            and meta.get("cwd") == str(folder)
            and meta.get("id")
            and not is_subagent(meta)
        ):
            refs.append(
                TranscriptRef(transcript_id=str(meta["id"]), path=path, watch=(path.parent,))
            )
    return refs


def thread_markers(codex_home: Path, since: float) -> list[str]:
    """The threads the TUI marked in ``codex_home`` since ``since`` (the spawn), oldest first."""
    folder = codex_home / _compat.THREAD_MARKERS
    try:
        stamped = [(p.stat().st_mtime, p.name) for p in folder.iterdir()]
    except OSError:
        return []
    return [name for mtime, name in sorted(stamped) if mtime >= since - 1.0]


def newest_rollout(codex_home: Path, cwd: Path, since: float) -> tuple[str, Path] | None:
    """``(thread id, rollout)`` of the newest thread run in ``cwd`` that started after
    ``since`` (the spawn), found without a hook record; sub-agents' threads are not one.
    """
    day_dirs = [
        codex_home / _compat.SESSIONS_DIR / time.strftime("%Y/%m/%d", t)
        for t in {time.localtime(since), time.localtime(), time.gmtime(since), time.gmtime()}
    ]
    best: tuple[float, str, Path] | None = None
    for folder in day_dirs:
        for path in folder.glob("rollout-*.jsonl") if folder.is_dir() else []:
            meta = read_meta(path)
            if meta is None or meta.get("cwd") != str(cwd) or is_subagent(meta):
                continue  # another folder's, or a sub-agent's (read with its parent)
            started = _seconds(meta.get("timestamp"))
            if started is None or started < since - 1.0:
                continue  # another run's (earlier) thread in the same folder
            if best is None or started > best[0]:
                best = (started, str(meta.get("id")), path)
    return (best[1], best[2]) if best else None


def _seconds(value: Any) -> float | None:
    stamp = iso_time(value)
    return stamp.timestamp() if stamp is not None else None
