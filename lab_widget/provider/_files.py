"""Files adapters read leniently: a JSON object that may be missing, unreadable or not an
object yet reads as empty; and the small file of facts a run keeps about its spawn.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ._seam import RunContext

__all__ = ["RunFile", "load_json"]


def load_json(path: Path) -> dict[str, Any]:
    """A JSON object from a file; ``{}`` when it is missing, unreadable or not an object.

    Examples
    --------
    >>> load_json(Path("/nonexistent/file.json"))
    {}
    """
    try:
        value = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


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
