"""A stoppable daemon thread that calls back when watched folders change (watchfiles)."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path

import watchfiles

__all__ = ["Tailer", "nearest_existing"]

log = logging.getLogger(__name__)


def nearest_existing(path: Path) -> Path:
    """``path`` or its closest existing ancestor (a folder not created yet is watched
    through its parent).

    Examples
    --------
    >>> nearest_existing(Path("/tmp/does/not/exist"))
    PosixPath('/tmp')
    """
    for candidate in (path, *path.parents):
        if candidate.exists():
            return candidate
    return Path("/")


class Tailer:
    """Watches folders and calls ``on_change`` after each batch of file events.

    ``paths`` is re-evaluated after every batch, so a folder that appears later (a
    transcript folder created at the first message) is watched directly from then on.
    """

    def __init__(self, paths: Callable[[], list[Path]], on_change: Callable[[], None]) -> None:
        self._paths = paths
        self._on_change = on_change
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="lab-widget-tailer", daemon=True)

    def start(self) -> Tailer:
        """Start the thread."""
        self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        """Ask the thread to end and wait for it."""
        self._stop.set()
        if self._thread.is_alive() and threading.current_thread() is not self._thread:
            self._thread.join(timeout)

    @property
    def running(self) -> bool:
        """Whether the thread is alive."""
        return self._thread.is_alive()

    def _watch_set(self) -> list[Path]:
        return sorted({nearest_existing(p) for p in self._paths()})

    def _loop(self) -> None:
        while not self._stop.is_set():
            watched = self._watch_set()
            try:
                for _changes in watchfiles.watch(
                    *watched,
                    stop_event=self._stop,
                    debounce=200,
                    step=10,
                    rust_timeout=0,
                    yield_on_timeout=False,
                    raise_interrupt=False,
                ):
                    self._notify()
                    if self._watch_set() != watched:
                        break  # a watched folder appeared or moved: watch the new set
            except (FileNotFoundError, RuntimeError, OSError) as exc:
                log.debug("watch on %s restarted: %s", watched, exc)
                if self._stop.wait(0.1):
                    return
            self._notify()

    def _notify(self) -> None:
        try:
            self._on_change()
        except Exception:  # a failing callback must not kill the tail
            log.exception("transcript refresh failed")
