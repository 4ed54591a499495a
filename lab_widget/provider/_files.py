"""Files adapters read leniently: a JSON object that may be missing, unreadable or not an
object yet reads as empty; the JSON lines of a file's first bytes; and the small file of facts
a run keeps about its spawn.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ._seam_records import RunContext

__all__ = ["RunFile", "json_lines", "load_json", "read_head"]


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


def read_head(path: Path, limit: int) -> bytes | None:
    """At most ``limit`` bytes from the start of a file; ``None`` when it cannot be read.

    Examples
    --------
    >>> read_head(Path("/nonexistent/file.jsonl"), 1024) is None
    True
    """
    try:
        with path.open("rb") as handle:
            return handle.read(limit)
    except OSError:
        return None


def json_lines(data: bytes) -> Iterator[Any]:
    r"""The lines of ``data`` that parse as JSON, in order, parsed as they are asked for (a
    line cut short or not JSON is passed over).

    Examples
    --------
    >>> list(json_lines(b'{"a": 1}\nnot json\n[2]\n{"cut'))
    [{'a': 1}, [2]]
    """
    for raw in data.splitlines():
        try:
            yield json.loads(raw)
        except ValueError:
            continue


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
