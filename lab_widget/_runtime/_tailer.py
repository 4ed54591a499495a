"""A stoppable daemon thread that calls back when watched folders change.

On Linux it blocks on inotify (no wake-ups while nothing changes, so idle runs cost no CPU);
elsewhere it uses watchfiles, which polls its stop flag every few milliseconds.
"""

from __future__ import annotations

import logging
import os
import select
import threading
from collections.abc import Callable
from pathlib import Path

import watchfiles

from ..provider._inotify import Inotify, inotify_available

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
        self._fd_lock = threading.Lock()
        # A pipe wakes the inotify loop's select() on stop.
        self._wake_r, self._wake_w = os.pipe() if inotify_available() else (-1, -1)
        loop = self._inotify_loop if self._wake_r >= 0 else self._loop
        self._thread = threading.Thread(target=loop, name="lab-widget-tailer", daemon=True)

    def start(self) -> Tailer:
        """Start the thread."""
        self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        """Ask the thread to end and wait for it."""
        self._stop.set()
        with self._fd_lock:
            if self._wake_w >= 0:
                os.write(self._wake_w, b"x")
        if self._thread.is_alive() and threading.current_thread() is not self._thread:
            self._thread.join(timeout)

    @property
    def running(self) -> bool:
        """Whether the thread is alive."""
        return self._thread.is_alive()

    def _watch_set(self) -> list[Path]:
        return sorted({nearest_existing(p) for p in self._paths()})

    def _inotify_loop(self) -> None:
        try:
            ino = Inotify()
        except OSError as exc:
            log.debug("inotify unavailable (%s): watching with watchfiles", exc)
            self._close_wake()
            self._loop()
            return
        try:
            self._sync(ino)
            while not self._stop.is_set():
                # A folder that could not be watched (it vanished between the listing and
                # the watch) is retried shortly; otherwise block until something changes.
                timeout = None if ino.watched == set(self._watch_set()) else 0.1
                readable, _, _ = select.select([ino.fd, self._wake_r], [], [], timeout)
                if self._stop.is_set():
                    return
                if ino.fd in readable:
                    ino.drain()
                    self._notify()
                if self._sync(ino):
                    self._notify()  # what was written before the new watch started
        finally:
            ino.close()
            self._close_wake()

    def _sync(self, ino: Inotify) -> bool:
        """Watch exactly the current watch set; True when it changed."""
        before = ino.watched
        for _ in range(10):  # folders appearing one level at a time settle quickly
            wanted = set(self._watch_set())
            if wanted == ino.watched:
                break
            for folder in ino.watched - wanted:
                ino.unwatch(folder)
            for folder in wanted - ino.watched:
                ino.watch(folder)
        return ino.watched != before

    def _close_wake(self) -> None:
        with self._fd_lock:
            for fd in (self._wake_r, self._wake_w):
                if fd >= 0:
                    os.close(fd)
            self._wake_r = self._wake_w = -1

    def _loop(self) -> None:
        while not self._stop.is_set():
            watched = self._watch_set()
            armed = False
            try:
                # A timeout yields an empty batch: the first one says the new watch is armed,
                # and what was written between the last notify and then is read once.
                for changes in watchfiles.watch(
                    *watched,
                    stop_event=self._stop,
                    debounce=200,
                    step=10,
                    rust_timeout=500,
                    yield_on_timeout=True,
                    raise_interrupt=False,
                ):
                    if not changes and armed:
                        continue
                    armed = True
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
