"""The live registry: the runs of this process by id, the live sessions of the lab home's
tmux server, and who wants to know when a run starts or ends (the runs dashboard).

It knows runs only as :class:`LiveRun` (what a table of runs needs of one), so the layers
that list and show runs sit below :class:`lab_widget.Run`, which registers itself here.
"""

from __future__ import annotations

import logging
import threading
import weakref
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Protocol

from .._chat._session import ChatEvent
from .._home import RunRecord, run_records
from .._runtime._tmux import TmuxRunner, TmuxTerminal
from ..schema import SessionSummary, State
from ._backend import StartedBy

__all__ = [
    "LiveRun",
    "SpareSource",
    "WaitingSpare",
    "announce",
    "find",
    "live_records",
    "register",
    "watch_runs",
]

log = logging.getLogger(__name__)


class LiveRun(Protocol):
    """What the registry and the runs dashboard need of a run (``lab_widget.Run`` is one)."""

    @property
    def id(self) -> str: ...

    @property
    def display_name(self) -> str: ...

    @property
    def cwd(self) -> Path: ...

    @property
    def state(self) -> State: ...

    @property
    def session(self) -> SessionSummary: ...

    @property
    def view(self) -> object: ...

    @property
    def memory(self) -> int | None: ...

    @property
    def started_by(self) -> StartedBy | None: ...

    @property
    def started_at(self) -> datetime | None: ...

    def subscribe(self, listener: Callable[[ChatEvent], None]) -> Callable[[], None]: ...

    def stop(self) -> None: ...


class WaitingSpare(Protocol):
    """What the runs dashboard shows of a spare agent started ahead (``prestart``)."""

    @property
    def id(self) -> str: ...

    @property
    def display_name(self) -> str: ...

    @property
    def cwd(self) -> str: ...

    @property
    def memory(self) -> int | None: ...

    @property
    def started_at(self) -> datetime | None: ...


class SpareSource(Protocol):
    """The spares a dashboard lists beside the runs, and how it follows and stops them."""

    def list(self) -> Sequence[WaitingSpare]: ...

    def watch(self, listener: Callable[[], None]) -> Callable[[], None]: ...

    def stop(self, spare_id: str) -> bool: ...


_lock = threading.Lock()
# Weak: a run nobody holds any more is not kept alive by being listed (its tmux session is,
# and a later runs() re-adopts it).
_runs: weakref.WeakValueDictionary[str, LiveRun] = weakref.WeakValueDictionary()
_watchers: list[Callable[[LiveRun, bool], None]] = []


def register(run: LiveRun) -> None:
    """Make ``run`` the in-process object of its id."""
    with _lock:
        _runs[run.id] = run


def find(run_id: str) -> LiveRun | None:
    """The in-process run with this id, if this process has one."""
    with _lock:
        return _runs.get(run_id)


def live_records(runner: TmuxRunner) -> list[tuple[RunRecord, TmuxTerminal]]:
    """The record and terminal of every run whose tmux session is alive on ``runner``."""
    live = set(runner.sessions())
    return [
        (record, runner.terminal(record.run_id))
        for record in run_records()
        if record.run_id in live
    ]


def watch_runs(listener: Callable[[LiveRun, bool], None]) -> Callable[[], None]:
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


def announce(run: LiveRun, live: bool) -> None:
    """Tell every watcher; a failing watcher is logged and skipped."""
    with _lock:
        listeners = list(_watchers)
    for listener in listeners:
        try:
            listener(run, live)
        except Exception:  # one broken dashboard must not stop a run starting
            log.exception("a runs watcher failed")
