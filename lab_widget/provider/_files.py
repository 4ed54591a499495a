"""Files adapters read leniently: a JSON object that may be missing, unreadable or not an
object yet reads as empty.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

__all__ = ["load_json"]


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
