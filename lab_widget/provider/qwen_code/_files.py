"""Where Qwen Code keeps a folder's sessions: ``projects/<slug>/chats/<session id>.jsonl``
under its global dir.
"""

from __future__ import annotations

import re
from pathlib import Path

from .. import TranscriptRef
from ..kit import JsonlTail, Line
from . import _compat

__all__ = ["chats_dir", "first_prompt", "session_ref", "sessions", "sessions_since"]


def chats_dir(global_dir: Path, cwd: Path) -> Path:
    """The folder of ``cwd``'s session files.

    Examples
    --------
    >>> chats_dir(Path("/h/.qwen"), Path("/tmp/a.b/my_work")).as_posix()
    '/h/.qwen/projects/-tmp-a-b-my-work/chats'
    """
    slug = re.sub(_compat.SLUG_UNSAFE, "-", str(Path(cwd).resolve()))
    return global_dir / "projects" / slug / "chats"


def session_ref(session_id: str, path: Path) -> TranscriptRef:
    # A SessionStart record may name the file before it exists: it appears with the
    # session's first message.
    if path.suffix != ".jsonl":
        path = path.with_name(f"{session_id}.jsonl")
    return TranscriptRef(transcript_id=session_id, path=path)


def _files(global_dir: Path, cwd: Path) -> list[Path]:
    folder = chats_dir(global_dir, cwd)
    try:
        found = [p for p in folder.glob("*.jsonl") if not p.name.endswith(_compat.RUNTIME_SUFFIX)]
    except OSError:
        return []
    return sorted(found, key=lambda p: (_mtime(p), p.name))


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def sessions(global_dir: Path, cwd: Path) -> list[TranscriptRef]:
    """``cwd``'s sessions, oldest first."""
    return [session_ref(p.stem, p) for p in _files(global_dir, cwd)]


def sessions_since(global_dir: Path, cwd: Path, since: float) -> list[tuple[str, Path]]:
    """``cwd``'s sessions written since ``since`` (seconds), oldest first."""
    return [(p.stem, p) for p in _files(global_dir, cwd) if _mtime(p) >= since]


def first_prompt(path: Path) -> str | None:
    """The session's first prompt, read from its head."""
    for item in JsonlTail(path).read_iter():
        record = item.value if isinstance(item, Line) else None
        if isinstance(record, dict) and record.get("provenance") == _compat.REAL_USER:
            message = record.get("message")
            parts = message.get("parts") if isinstance(message, dict) else None
            texts = [p["text"] for p in parts or [] if isinstance(p, dict) and "text" in p]
            words = [t for t in texts if not str(t).startswith(_compat.CONTEXT_PREFIXES)]
            return "\n".join(map(str, words)) or None
    return None
