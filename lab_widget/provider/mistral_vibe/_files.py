"""Where Mistral Vibe keeps its sessions: the leases of the sessions a TUI has open, and
each session's store with its ``meta.json`` (the folder it ran in, its start).
"""

from __future__ import annotations

import re
from pathlib import Path

from .. import TranscriptRef
from ..kit import as_dict, iso_time, load_json
from . import _compat

__all__ = ["leases", "session_ref", "sessions"]

_SESSION_ID = re.compile(r"[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}")
"""A session's id; the lease folder also holds the CLI's own leases
(``process-output-cleanup.lock.json``, whose ``session_id`` is that name)."""


def _sessions_dir(home: Path) -> Path:
    return home / _compat.SESSIONS_DIR


def session_ref(home: Path, session_id: str) -> TranscriptRef:
    """The store of ``session_id`` in ``home`` (it exists from the session's first prompt)."""
    store = _sessions_dir(home) / _compat.STORE_DIR / session_id
    return TranscriptRef(transcript_id=session_id, path=store, watch=(store, store / "journal"))


def leases(home: Path, since: float) -> list[str]:
    """The ids of the sessions whose lease was taken since ``since``, oldest first.

    Ordered by when each was acquired (``acquired_at``), not by the file's time: a lease
    is rewritten while it is held, so an older session's can be the newer file.
    """
    folder = _sessions_dir(home) / _compat.LEASES_DIR
    found: list[tuple[float, str]] = []
    for lease in folder.glob(f"*{_compat.LEASE_SUFFIX}") if folder.is_dir() else []:
        try:
            modified = lease.stat().st_mtime
        except OSError:
            continue  # released under the listing
        record = load_json(lease)
        session = record.get("session_id")
        acquired = iso_time(record.get("acquired_at"))
        taken = acquired.timestamp() if acquired is not None else modified
        if taken >= since and isinstance(session, str) and _SESSION_ID.fullmatch(session):
            found.append((taken, session))
    return [name for _, name in sorted(found)]


def sessions(home: Path, cwd: Path) -> list[TranscriptRef]:
    """The stores of the sessions run in ``cwd``, oldest first."""
    stores = _sessions_dir(home) / _compat.STORE_DIR
    found: list[tuple[str, TranscriptRef]] = []
    for store in stores.iterdir() if stores.is_dir() else []:
        meta = load_json(store / "meta.json")
        folder = as_dict(meta.get("environment")).get("working_directory")
        if folder == str(cwd):
            found.append((str(meta.get("start_time") or ""), session_ref(home, store.name)))
    return [ref for _, ref in sorted(found, key=lambda pair: pair[0])]
