"""The run's embedded OpenCode server: where it listens, its JSON answers, and the start-up
log line that says the TUI behind it is up.

The run starts the TUI with a fixed port (``_compat.SERVER_FLAGS``) and notes it in the
run's state file; the live signals and the question replies both talk to it.
"""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
from datetime import datetime
from pathlib import Path
from typing import Any

from .. import RunContext
from ..kit import RunFile
from . import _compat

__all__ = ["STATE", "STATE_FILE", "get_json", "logged_after", "server_url"]

STATE_FILE = "opencode.json"
STATE = RunFile(STATE_FILE)
"""What the spawn decided: the store, the server's port, when, and whether it is isolated."""


def server_url(context: RunContext) -> str | None:
    """The run's embedded server, if it was given a port."""
    port = STATE.read(context).get("port")
    return f"http://127.0.0.1:{port}" if isinstance(port, int) else None


def get_json(url: str) -> Any:
    """A JSON answer of the embedded server, ``None`` when it does not answer."""
    try:
        with urllib.request.urlopen(url, timeout=_compat.SERVER_TIMEOUT) as response:
            return json.load(response)
    except (OSError, ValueError, urllib.error.URLError):
        return None


_LOG_TAIL = 1 << 16
_LOG_STAMP = re.compile(r"^timestamp=(\S+)")


def logged_after(folder: Path, since: float, needle: str) -> float | None:
    """When the newest log line holding ``needle`` was written, if after ``since``."""
    try:
        logs = sorted(folder.glob("*.log"), key=lambda p: p.stat().st_mtime)
    except OSError:
        return None
    for path in reversed(logs[-2:]):
        try:
            with path.open("rb") as f:
                f.seek(max(0, path.stat().st_size - _LOG_TAIL))
                lines = f.read().decode(errors="replace").splitlines()
        except OSError:
            continue
        for line in reversed(lines):
            if needle not in line:
                continue
            match = _LOG_STAMP.match(line)
            if match is None:
                continue
            try:
                stamp = datetime.fromisoformat(match.group(1).replace("Z", "+00:00")).timestamp()
            except ValueError:
                continue
            return stamp if stamp >= since - 1.0 else None
    return None
