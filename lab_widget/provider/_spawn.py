"""What preparing a spawn shares between adapters: where an isolated run's home is, an
endpoint's URL as OpenAI-style clients take it, and the small file of facts a run keeps
about its spawn.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from ._lenient import load_json
from ._seam_records import RunContext

__all__ = ["RunFile", "api_base_url", "isolated_home"]


def isolated_home(context: RunContext) -> Path:
    """The ``HOME`` of a run on a scripted model or an endpoint: inside its runtime folder,
    so nothing of the user's own setup is read or written.

    Examples
    --------
    >>> isolated_home(RunContext(run_id="r", cwd=Path("/w"), runtime_dir=Path("/lab/runs/r")))
    PosixPath('/lab/runs/r/home')
    """
    return context.runtime_dir / "home"


def api_base_url(base_url: str) -> str:
    """The URL as an OpenAI-style client's base URL takes it: with the API's ``/v1`` path.

    A bare server URL (no path) gets ``/v1``; a URL with a path is kept as given.

    Examples
    --------
    >>> api_base_url("http://127.0.0.1:8000")
    'http://127.0.0.1:8000/v1'
    >>> api_base_url("https://proxy.example/openai/v1/")
    'https://proxy.example/openai/v1'
    """
    parts = urlsplit(base_url.strip())
    path = parts.path.rstrip("/") or "/v1"
    return urlunsplit((parts.scheme, parts.netloc, path, parts.query, parts.fragment))


@dataclass(frozen=True)
class RunFile:
    """A JSON file in a run's runtime folder where its provider notes what it decided at
    spawn (the session id, the config home, the time), read back on every later call.

    Examples
    --------
    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> context = RunContext(run_id="r", cwd=folder, runtime_dir=folder)
    >>> state = RunFile("agent.json")
    >>> state.read(context)
    {}
    >>> state.write(context, {"session_id": "s1"}); state.read(context)
    {'session_id': 's1'}

    What every provider notes at spawn, and reads back:

    >>> state.note_spawn(context, isolated=True, home="/h")
    >>> state.isolated(context), state.spawned_at(context) > 0
    (True, True)
    >>> state.path_of(context, "home", folder)
    PosixPath('/h')
    >>> state.path_of(context, "db", Path("/default"))
    PosixPath('/default')
    """

    name: str

    def path(self, context: RunContext) -> Path:
        return context.runtime_dir / self.name

    def read(self, context: RunContext) -> dict[str, Any]:
        """The facts noted so far (``{}`` before the spawn wrote them)."""
        return load_json(self.path(context))

    def write(self, context: RunContext, facts: Mapping[str, object]) -> None:
        """Replace the noted facts with ``facts``."""
        self.path(context).write_text(json.dumps(dict(facts)))

    def note_spawn(self, context: RunContext, *, isolated: bool, **facts: object) -> None:
        """Note the spawn: ``facts``, the time, and whether the run has a home of its own
        (see the class's examples).
        """
        self.write(context, {**facts, "spawned_at": time.time(), "isolated": isolated})

    def spawned_at(self, context: RunContext) -> float:
        """When the spawn was noted, in seconds since the epoch (0 before)."""
        return float(str(self.read(context).get("spawned_at") or 0.0))

    def isolated(self, context: RunContext) -> bool:
        """Whether the run was spawned with a home of its own (False before the spawn)."""
        return bool(self.read(context).get("isolated"))

    def path_of(self, context: RunContext, key: str, default: Path) -> Path:
        """The path noted under ``key``, or ``default`` when none is."""
        value = self.read(context).get(key)
        return Path(value) if isinstance(value, str) and value else default
