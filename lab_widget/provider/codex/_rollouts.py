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

from . import _compat
from ._items import message_content

__all__ = [
    "find_thread",
    "is_context",
    "is_subagent",
    "peek_rollout",
    "pending_rollout",
    "read_meta",
    "resolve_pending",
    "rollouts",
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
    try:
        with path.open("rb") as f:
            data = f.read(_PEEK_BYTES)
    except OSError:
        return None, None
    for raw in data.splitlines():
        try:
            line = json.loads(raw)
        except ValueError:
            continue
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
