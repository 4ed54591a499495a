"""The run's embedded OpenCode server: where it listens, and its JSON answers.

The run starts the TUI with a fixed port (``_compat.SERVER_FLAGS``) and notes it in the
run's state file; the live signals and the question replies both talk to it.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

from .. import RunContext, load_json
from . import _compat

__all__ = ["STATE_FILE", "get_json", "server_url"]

STATE_FILE = "opencode.json"


def server_url(context: RunContext) -> str | None:
    """The run's embedded server, if it was given a port."""
    port = load_json(context.runtime_dir / STATE_FILE).get("port")
    return f"http://127.0.0.1:{port}" if isinstance(port, int) else None


def get_json(url: str) -> Any:
    """A JSON answer of the embedded server, ``None`` when it does not answer."""
    try:
        with urllib.request.urlopen(url, timeout=_compat.SERVER_TIMEOUT) as response:
            return json.load(response)
    except (OSError, ValueError, urllib.error.URLError):
        return None
