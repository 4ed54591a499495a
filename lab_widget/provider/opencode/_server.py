"""The run's embedded OpenCode server: where it listens, its JSON answers, and the start-up
log line that says the TUI behind it is up.

The run starts the TUI with a fixed port (``_compat.SERVER_FLAGS``) and notes it in the
run's state file; the live signals and the question replies both talk to it. A member of
the family whose server asks for a password (``OpenCodeFamily.server_user``) gets one per
run, noted there too: the server's URL carries it as its user info, and every request made
here sends it as the ``Authorization`` header.
"""

from __future__ import annotations

import base64
import json
import re
import urllib.error
import urllib.request
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit, urlunsplit

from .. import RunContext
from ..kit import RunFile
from . import _compat

__all__ = ["STATE", "STATE_FILE", "get_json", "logged_after", "server_url", "without_login"]

STATE_FILE = "opencode.json"
STATE = RunFile(STATE_FILE)
"""What the spawn decided: the store, the server's port (and login), when, and whether it is
isolated. Every member of the family notes it under this name (one CLI per run folder)."""


def server_url(context: RunContext) -> str | None:
    """The run's embedded server, if it was given a port (with its login, if it has one)."""
    state = STATE.read(context)
    port = state.get("port")
    if not isinstance(port, int):
        return None
    login = state.get("login")
    userinfo = f"{login}@" if isinstance(login, str) and login else ""
    return f"http://{userinfo}127.0.0.1:{port}"


def without_login(url: str) -> tuple[str, dict[str, str]]:
    """The URL without its user info, and the header that carries it instead.

    Examples
    --------
    >>> without_login("http://127.0.0.1:9/event")
    ('http://127.0.0.1:9/event', {})
    >>> without_login("http://kilo:s3cret@127.0.0.1:9/event")
    ('http://127.0.0.1:9/event', {'Authorization': 'Basic a2lsbzpzM2NyZXQ='})
    """
    parts = urlsplit(url)
    if parts.username is None:
        return url, {}
    login = f"{unquote(parts.username)}:{unquote(parts.password or '')}"
    netloc = f"{parts.hostname}:{parts.port}" if parts.port else str(parts.hostname)
    token = base64.b64encode(login.encode()).decode()
    return urlunsplit(parts._replace(netloc=netloc)), {"Authorization": f"Basic {token}"}


def get_json(url: str) -> Any:
    """A JSON answer of the embedded server, ``None`` when it does not answer."""
    plain, headers = without_login(url)
    try:
        request = urllib.request.Request(plain, headers=headers)
        with urllib.request.urlopen(request, timeout=_compat.SERVER_TIMEOUT) as response:
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
