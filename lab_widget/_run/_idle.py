"""A run's idle timeout: ``Run(..., idle_timeout=seconds)`` stops an agent left idle that long,
so a forgotten run does not keep its TUI and its memory for the rest of the day.

Only ``idle`` counts: a run that works, or waits on the user's answer to a dialog, is never
stopped by it. Any change of the run (a message, a state) starts the count again.
"""

from __future__ import annotations

import threading
import warnings

from ..errors import RunStoppedWarning
from ._registry import LiveRun

__all__ = ["IdleStop", "checked"]


def checked(timeout: float | None) -> float | None:
    """``timeout`` when it is ``None`` or a positive number of seconds; else
    :class:`ValueError`.

    Examples
    --------
    >>> checked(600)
    600
    >>> checked(0)
    Traceback (most recent call last):
    ...
    ValueError: idle_timeout must be a positive number of seconds, not 0
    """
    if timeout is None:
        return None
    value: object = timeout  # whatever a notebook passed
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        raise ValueError(f"idle_timeout must be a positive number of seconds, not {timeout!r}")
    return timeout


class IdleStop:
    """Stops ``run`` once it has been idle for ``timeout`` seconds on end."""

    def __init__(self, run: LiveRun, timeout: float) -> None:
        self._run = run
        self._timeout = timeout
        self._lock = threading.Lock()
        self._timer: threading.Timer | None = None
        run.subscribe(lambda _event: self._rearm())  # an ended run says nothing more
        self._rearm()

    @classmethod
    def follow(cls, run: LiveRun, timeout: float | None) -> IdleStop | None:
        """Stop ``run`` after ``timeout`` idle seconds; ``None`` (no timeout) does nothing."""
        return None if timeout is None else cls(run, timeout)

    def _rearm(self) -> None:
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            if self._run.state != "idle":
                return
            self._timer = threading.Timer(self._timeout, self._expire)
            self._timer.daemon = True
            self._timer.name = f"lab-widget-idle-{self._run.id}"
            self._timer.start()

    def _expire(self) -> None:
        if self._run.state != "idle":
            return  # it got work meanwhile: its next idle event counts again
        self._run.stop()
        warnings.warn(
            RunStoppedWarning(
                f"stopped run {self._run.id!r}: idle for {self._timeout:g} s (its "
                "idle_timeout). Its conversation stays readable with lab_widget.history()."
            ),
            stacklevel=1,
        )
