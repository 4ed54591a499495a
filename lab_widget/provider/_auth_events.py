"""One provider-neutral announcement of auth changes, so every open view can refresh.

A login, a saved or forgotten key, or a logout publishes an :class:`AuthChange`; login
cards and run views subscribe. Listeners run on the publishing thread and must be quick;
one that raises is logged and the others still run.

Examples
--------
>>> seen = []
>>> unsubscribe = subscribe(seen.append)
>>> publish(AuthChange("some-provider", None))
>>> unsubscribe()
>>> publish(AuthChange("some-provider", None))
>>> [change.provider_id for change in seen]
['some-provider']
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass

from ..schema import AuthStatus

__all__ = ["AuthChange", "publish", "subscribe"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class AuthChange:
    """A provider's auth changed; ``status`` is the new one when the publisher knows it."""

    provider_id: str
    status: AuthStatus | None


Listener = Callable[[AuthChange], None]

_listeners: list[Listener] = []
_lock = threading.Lock()


def subscribe(listener: Listener) -> Callable[[], None]:
    """Call ``listener`` on every change; returns the function that stops it."""
    with _lock:
        _listeners.append(listener)

    def unsubscribe() -> None:
        with _lock:
            if listener in _listeners:
                _listeners.remove(listener)

    return unsubscribe


def publish(change: AuthChange) -> None:
    """Tell every listener about ``change``."""
    with _lock:
        listeners = list(_listeners)
    for listener in listeners:
        try:
            listener(change)
        except Exception:  # one broken view must not hide the change from the others
            log.exception("an auth listener failed")
