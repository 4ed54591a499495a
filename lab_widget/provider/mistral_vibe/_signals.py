"""Mistral Vibe's live signals: what confirms a submitted line.

Its hooks give none (``_compat``: no hook fires on a submitted prompt), and its pending
approval prompts are in the session store the reader reads (``callback_registered``), so
the provider has no live channel beside the transcript (``live_signals`` unset). What
confirms a submit is ``vibehistory``, the home's history of submitted lines, which gains
a line the moment the TUI takes one; a first prompt given on the command line is not
written there, and is confirmed by the session store its turn creates.
"""

from __future__ import annotations

import time
from pathlib import Path

__all__ = ["HistoryWatch", "StoreWatch"]

_POLL = 0.05
"""Seconds between looks at the history file (a few bytes, stat only)."""


def _lines(path: Path) -> int:
    try:
        return path.read_bytes().count(b"\n")
    except OSError:
        return 0


class HistoryWatch:
    r"""A new line in ``vibehistory`` since the watch began (begin it before the paste).

    Examples
    --------
    >>> import tempfile
    >>> history = Path(tempfile.mkdtemp()) / "vibehistory"
    >>> watch = HistoryWatch(history)
    >>> watch.wait(0.01)
    False
    >>> _ = history.write_text('"hello"\n')
    >>> watch.wait(1.0)
    True
    """

    def __init__(self, history: Path) -> None:
        self._history = history
        self._start = _lines(history)

    def wait(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while _lines(self._history) <= self._start:
            if time.monotonic() >= deadline:
                return False
            time.sleep(_POLL)
        return True

    def close(self) -> None:
        """Nothing to release (the file is polled)."""


class StoreWatch:
    """A session store created since the watch began (a session's first prompt creates its
    store), in the ``unified`` folder of a home's session logs.

    Examples
    --------
    >>> import tempfile
    >>> stores = Path(tempfile.mkdtemp())
    >>> watch = StoreWatch(stores)
    >>> watch.wait(0.01)
    False
    >>> (stores / "a-session").mkdir()
    >>> watch.wait(1.0)
    True
    """

    def __init__(self, stores: Path) -> None:
        self._stores = stores
        self._start = self._names()

    def _names(self) -> set[str]:
        try:
            return {p.name for p in self._stores.iterdir()}
        except OSError:
            return set()

    def wait(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while not self._names() - self._start:
            if time.monotonic() >= deadline:
                return False
            time.sleep(_POLL)
        return True

    def close(self) -> None:
        """Nothing to release (the folder is polled)."""
