"""The event log an ACP host writes and a reader folds: one JSON object a line.

The host (:mod:`lab_widget._acp._host`) appends every event of its session here; the kernel
reads it as the run's transcript and writes commands into the inbox beside it. Both files
sit in the run's runtime folder, so a kernel that re-adopts the run reads the whole
conversation back from the log.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TextIO

__all__ = ["INBOX", "LOG", "SERVERS", "SPEC", "EventLog", "post"]

LOG = "acp.jsonl"
"""The event log's file name in the runtime folder."""

INBOX = "acp-inbox"
"""The folder the kernel drops commands into (one JSON file each, renamed into place)."""

SPEC = "acp-agent.json"
"""The agent's description (name, command, display name), for a re-adopting kernel."""

SERVERS = "acp-servers.json"
"""The run's own MCP servers (name, command, env, asking and reading tools), which the host
gives the agent in ``session/new``."""


class EventLog:
    """An append-only writer of events, flushed line by line so a tailer sees each at once."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._file: TextIO = path.open("a", encoding="utf-8")

    def write(self, event: str, **fields: Any) -> None:
        """Append one event (``ev`` names it, ``t`` is the wall-clock time)."""
        record = {"ev": event, "t": time.time(), **fields}
        self._file.write(json.dumps(record, default=str) + "\n")
        self._file.flush()

    def close(self) -> None:
        self._file.close()


def post(runtime_dir: Path, command: Mapping[str, Any]) -> str:
    """Drop ``command`` into the host's inbox; returns its id (``command["id"]`` if set).

    Written to a hidden name and renamed, so the host never reads half a command.

    Examples
    --------
    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> name = post(folder, {"op": "cancel", "id": "c1"})
    >>> name, [p.name for p in (folder / INBOX).iterdir()][0].endswith("c1.json")
    ('c1', True)
    """
    inbox = runtime_dir / INBOX
    inbox.mkdir(parents=True, exist_ok=True)
    ident = str(command.get("id") or uuid.uuid4().hex)
    body = {**command, "id": ident}
    temp = inbox / f".{ident}.tmp"
    temp.write_text(json.dumps(body))
    temp.replace(inbox / f"{time.time_ns()}-{ident}.json")
    return ident
