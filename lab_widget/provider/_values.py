"""JSON values read leniently: an object or nothing, a time or nothing.

Readers meet values of every shape in a CLI's files; these say what a value is when it is
the expected kind and stand back otherwise, so one odd field never costs a whole entry.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

__all__ = ["as_dict", "iso_time"]


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
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
