"""Who wants to know when a run starts or ends (the runs dashboard)."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ._run import Run

__all__ = ["announce", "watch_runs"]

log = logging.getLogger(__name__)
_lock = threading.Lock()
_watchers: list[Callable[[Run, bool], None]] = []


def watch_runs(listener: Callable[[Run, bool], None]) -> Callable[[], None]:
    """Call ``listener(run, live)`` when a run starts (``True``) or ends (``False``).

    Returns a function that stops the calls.
    """
    with _lock:
        _watchers.append(listener)

    def unwatch() -> None:
        with _lock:
            if listener in _watchers:
                _watchers.remove(listener)

    return unwatch


def announce(run: Run, live: bool) -> None:
    """Tell every watcher; a failing watcher is logged and skipped."""
    with _lock:
        listeners = list(_watchers)
    for listener in listeners:
        try:
            listener(run, live)
        except Exception:  # one broken dashboard must not stop a run starting
            log.exception("a runs watcher failed")
