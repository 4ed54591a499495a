"""Values and files read leniently, shared by adapters.

Readers meet values of every shape in a CLI's files; these say what a value is when it is
the expected kind and stand back otherwise, so one odd field never costs a whole entry: a
JSON object or nothing, a time or nothing, an exact figure or nothing; a JSON object from a
file that may be missing, unreadable or not an object yet; the JSON lines of a file's first
bytes.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from pathlib import Path
from typing import Any

__all__ = ["as_dict", "exact", "iso_time", "json_lines", "load_json", "read_head"]


def as_dict(value: Any) -> dict[str, Any]:
    """``value`` when it is a JSON object, else ``{}``.

    Examples
    --------
    >>> as_dict({"a": 1}), as_dict(["a"]), as_dict(None)
    ({'a': 1}, {}, {})
    """
    return value if isinstance(value, dict) else {}


def iso_time(value: Any) -> datetime | None:
    """An ISO 8601 time (``Z`` or an offset) as a datetime, if ``value`` is one.

    Examples
    --------
    >>> iso_time("2026-12-01T10:00:00.5Z").isoformat()
    '2026-12-01T10:00:00.500000+00:00'
    >>> iso_time("yesterday") is None, iso_time(17) is None
    (True, True)
    """
    if not isinstance(value, str):
        return None
    try:
        return _parse_time(value)
    except ValueError:
        return None


@lru_cache(maxsize=16)
def _parse_time(value: str) -> datetime:
    # Readers ask for one entry's time more than once (the session's clock, the message's
    # stamp); the same few strings come back in a row.
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def exact(value: Any) -> Decimal | None:
    """A figure the CLI wrote (a JSON number or a decimal string) as an exact decimal.

    JSON numbers arrive as floats; the shortest repr of a float is the literal a CLI wrote
    (JavaScript and Rust's serde also write the shortest round-trip form), so the decimal
    is that figure, digit for digit, and never the float's binary approximation.

    Examples
    --------
    >>> exact(0.011996), exact(1e-07), exact("12.34"), exact(3)
    (Decimal('0.011996'), Decimal('1E-7'), Decimal('12.34'), Decimal('3'))
    >>> exact(True), exact("n/a"), exact(float("nan"))
    (None, None, None)
    """
    if isinstance(value, bool):
        return None
    try:
        if isinstance(value, float):
            found = Decimal(repr(value))
        elif isinstance(value, int):
            found = Decimal(value)
        elif isinstance(value, str) and value.strip():
            found = Decimal(value.strip())
        else:
            return None
    except InvalidOperation:
        return None
    return found if found.is_finite() else None


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
