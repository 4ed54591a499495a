"""What the chat brain tells its listeners: change events, ended conversations, the fan-out."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from ..schema import Message, State

__all__ = ["ChatEvent", "Epoch", "Listener", "Listeners", "wait_until"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ChatEvent:
    """What changed: messages (new or updated), and/or a reset to a new epoch."""

    changed: list[Message]
    reset: bool
    state: State
    transcript_id: str | None


@dataclass(frozen=True)
class Epoch:
    """A conversation of the run that a clear ended, as the run last read it."""

    transcript_id: str
    messages: list[Message]


Listener = Callable[[ChatEvent], None]


class Listeners:
    """The listeners of one chat, each told of every event in turn.

    ``lock`` is the chat's: listeners are added and removed under it, and the chat emits
    while it holds it, so a listener hears events in the order they happened.

    Examples
    --------
    >>> heard: list[str] = []
    >>> listeners = Listeners()
    >>> stop = listeners.subscribe(lambda e: heard.append(e.state))
    >>> listeners.emit(ChatEvent([], False, "idle", None))
    >>> stop()
    >>> listeners.emit(ChatEvent([], False, "working", None))
    >>> heard
    ['idle']
    """

    def __init__(self, lock: threading.RLock | None = None) -> None:
        self._lock = lock if lock is not None else threading.RLock()
        self._listeners: list[Listener] = []

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Add ``listener``; returns the function that removes it again."""
        with self._lock:
            self._listeners.append(listener)

        def unsubscribe() -> None:
            with self._lock:
                if listener in self._listeners:
                    self._listeners.remove(listener)

        return unsubscribe

    def emit(self, event: ChatEvent) -> None:
        """Tell every listener of ``event``; one that fails does not stop the others."""
        for listener in list(self._listeners):
            try:
                listener(event)
            except Exception:
                log.exception("chat listener failed")


def wait_until(changed: threading.Condition, predicate: Callable[[], bool], timeout: float) -> bool:
    """Block until ``predicate()`` holds, re-checked on every notification of ``changed``
    (whose lock the caller holds) and at least once a second, or ``timeout`` runs out.

    Examples
    --------
    >>> changed = threading.Condition()
    >>> with changed:
    ...     wait_until(changed, lambda: True, 1.0), wait_until(changed, lambda: False, 0.01)
    (True, False)
    """
    deadline = time.monotonic() + timeout
    while not predicate():
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        changed.wait(min(left, 1.0))
    return True
