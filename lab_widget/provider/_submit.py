"""Confirming that a prompt was submitted, from the CLI's own structured record of it.

A TUI takes a paste and a submit key asynchronously: a key that arrives before the TUI reads
input, or before it applied the paste, does nothing, and the screen is never read to find
out. So a submit is confirmed by the event the CLI emits when a prompt is submitted (a hook
record, a server event), waited for without polling, and only the submit key is pressed
again while it has not come: a paste is never repeated (text that landed once would be
doubled), and the CLIs that use this ignore the submit key on an empty prompt box.
"""

from __future__ import annotations

import select
import time
from collections.abc import Callable, Collection
from pathlib import Path
from types import TracebackType
from typing import Any

from ._hook_signals import spool_entries
from ._inotify import Inotify, inotify_available
from ._seam import SubmitWatch

__all__ = ["SpoolWatch", "SubmitWatch"]


class SpoolWatch:
    """A new record of one of ``events`` in a hook spool, waited for through inotify.

    Records already in the spool when the watch begins do not count, so begin it before
    the paste. ``matches`` narrows which records count (e.g. by their prompt).

    Examples
    --------
    >>> import tempfile, json
    >>> spool = Path(tempfile.mkdtemp())
    >>> watch = SpoolWatch(spool, ("UserPromptSubmit",))
    >>> watch.wait(0.01)
    False
    >>> _ = (spool / "1-1.json").write_text(json.dumps({"hook_event_name": "UserPromptSubmit"}))
    >>> watch.wait(5.0)
    True
    >>> watch.close()
    """

    def __init__(
        self,
        spool: Path,
        events: Collection[str],
        matches: Callable[[dict[str, Any]], bool] | None = None,
    ) -> None:
        self._spool = spool
        self._events = frozenset(events)
        self._matches = matches
        self._inotify: Inotify | None = None
        if inotify_available():
            self._inotify = Inotify()
            spool.mkdir(parents=True, exist_ok=True)
            self._inotify.watch(spool)
        self._seen = {name for name, _ in spool_entries(spool)}

    def arrived(self) -> bool:
        """Whether a counted record is in the spool now."""
        for name, record in spool_entries(self._spool):
            if name in self._seen or record.get("hook_event_name") not in self._events:
                continue
            if self._matches is None or self._matches(record):
                return True
        return False

    def wait(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while not self.arrived():
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            if self._inotify is None:
                time.sleep(min(left, 0.02))  # no event source on this platform
                continue
            if select.select([self._inotify.fd], [], [], left)[0]:
                self._inotify.drain()
        return True

    def close(self) -> None:
        if self._inotify is not None:
            self._inotify.close()
            self._inotify = None

    def __enter__(self) -> SpoolWatch:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()
