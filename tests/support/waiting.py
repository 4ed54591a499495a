"""Waiting on a condition in tests without fixed sleeps."""

from __future__ import annotations

import time
from collections.abc import Callable


def retry_until(predicate: Callable[[], bool], timeout: float) -> bool:
    """Poll ``predicate`` until it holds or ``timeout`` seconds pass."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.2)
    return True
