"""Copilot CLI's session store on disk: ``<COPILOT_HOME>/session-state/<uuid>/``, one folder
a session, each with ``workspace.yaml`` (its id, folder and start), ``events.jsonl`` (from
the first prompt on) and, while a CLI has it open, ``inuse.<pid>.lock``.
"""

from __future__ import annotations

import os
from pathlib import Path

from .. import TranscriptRef
from ..kit import iso_time, json_lines, read_head
from . import _compat

__all__ = [
    "in_use",
    "peek_session",
    "session_folders",
    "session_ref",
    "sessions",
    "workspace",
]

_HEAD_BYTES = 1 << 14
_PEEK_BYTES = 1 << 20


def workspace(folder: Path) -> dict[str, str]:
    r"""The top-level ``key: value`` scalars of a session's ``workspace.yaml``.

    Examples
    --------
    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / "workspace.yaml").write_text("id: s1\ncwd: /w\nname: 'hi: there'\n")
    >>> workspace(folder)
    {'id': 's1', 'cwd': '/w', 'name': 'hi: there'}
    """
    data = read_head(folder / _compat.WORKSPACE_FILE, _HEAD_BYTES)
    if data is None:
        return {}
    found: dict[str, str] = {}
    for line in data.decode("utf-8", "replace").splitlines():
        if not line or line[0].isspace() or ": " not in line:
            continue
        key, _, value = line.partition(": ")
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        found[key.strip()] = value
    return found


def session_folders(home: Path, cwd: Path, since: float = 0.0) -> list[Path]:
    """The session folders of ``cwd`` started at or after ``since``, oldest first."""
    try:
        folders = [f for f in (home / _compat.SESSIONS_DIR).iterdir() if f.is_dir()]
    except OSError:
        return []
    folder_of_run = str(Path(cwd).expanduser().resolve())
    found = []
    for folder in folders:
        meta = workspace(folder)
        if not meta or str(Path(meta.get("cwd") or "/").resolve()) != folder_of_run:
            continue
        started = iso_time(meta.get("created_at"))
        stamp = started.timestamp() if started is not None else 0.0
        if stamp >= since:
            found.append((stamp, folder.name, folder))
    return [folder for _, _, folder in sorted(found)]


def in_use(folder: Path) -> bool:
    """Whether a CLI has the session open (its ``inuse.<pid>.lock``)."""
    try:
        return any(n.startswith(_compat.LOCK_PREFIX) for n in os.listdir(folder))  # noqa: PTH208
    except OSError:
        return False


def session_ref(folder: Path) -> TranscriptRef:
    return TranscriptRef(
        transcript_id=folder.name, path=folder / _compat.EVENTS_FILE, watch=(folder,)
    )


def sessions(home: Path, cwd: Path) -> list[TranscriptRef]:
    """Every session of ``cwd`` that holds a conversation, oldest first."""
    return [
        session_ref(f) for f in session_folders(home, cwd) if (f / _compat.EVENTS_FILE).is_file()
    ]


def peek_session(path: Path) -> tuple[str | None, str | None]:
    """``(first user prompt, model)`` from a bounded prefix of an ``events.jsonl``."""
    data = read_head(path, _PEEK_BYTES)
    if data is None:
        return None, None
    prompt: str | None = None
    model: str | None = None
    for event in json_lines(data):
        if not isinstance(event, dict) or not isinstance(event.get("data"), dict):
            continue
        kind, body = event.get("type"), event["data"]
        if model is None and kind == "session.start" and isinstance(body.get("selectedModel"), str):
            model = body["selectedModel"]
        if prompt is None and kind == "user.message" and isinstance(body.get("content"), str):
            prompt = body["content"]
        if prompt is not None and model is not None:
            break
    return prompt, model
