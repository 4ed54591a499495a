"""The runs dashboard: ``lab_widget.runs()`` displayed as a live table.

One row per live run (provider, folder, state, when it started, last activity, tokens,
estimated cost, memory, and whether the kernel that started it still holds it) with buttons
to open a run's chat below the table or to stop it; below them, the spare agents started
ahead (``prestart``), each with its memory and a button to stop it. Rows follow each run's
events; runs and spares started or stopped later join or leave the table. Actions go through
the package's action channel (request/response messages with ids, run on worker threads),
and their errors come back to the table.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Generic, TypeVar

import ipywidgets  # type: ignore[import-untyped]
import traitlets

from .._run._registry import LiveRun, SpareSource, WaitingSpare, watch_runs
from ._base import BundledWidget
from ._channel import ActionChannel, ActionRequest
from ._protocol import RunsActionArgs

__all__ = ["RunList", "RunsDashboard", "RunsTable"]

log = logging.getLogger(__name__)

R = TypeVar("R", bound=LiveRun)


def _row(run: LiveRun, seen: str) -> dict[str, Any]:
    """The run's row; its last activity is its transcript's last change, else ``seen`` (when
    the table last heard from it), never merely when the table started following it.
    """
    last_activity = seen
    try:
        session = run.session
        tokens, cost = session.usage.total, session.cost_usd_estimate
        if session.updated_at is not None:
            last_activity = session.updated_at.astimezone(UTC).isoformat(timespec="seconds")
    except Exception:  # a half-written transcript must not break the table
        log.exception("reading run %s's session failed", run.id)
        tokens, cost = 0, None
    return {
        "id": run.id,
        "kind": "run",
        "provider": run.display_name,
        "folder": run.cwd.name or str(run.cwd),
        "path": str(run.cwd),
        "state": run.state,
        "last_activity": last_activity,
        "tokens": tokens,
        # An exact decimal, as a string: JSON numbers are floats.
        "cost_usd_estimate": str(cost) if cost is not None else None,
        "memory_bytes": run.memory,
        "started_by": run.started_by,
        "started_at": _iso(run.started_at),
    }


def _spare_row(spare: WaitingSpare) -> dict[str, Any]:
    """A spare's row: an agent waiting, unused, for a ``Run`` to adopt it."""
    started = _iso(spare.started_at)
    return {
        "id": spare.id,
        "kind": "spare",
        "provider": spare.display_name,
        "folder": Path(spare.cwd).name or spare.cwd,
        "path": spare.cwd,
        "state": "spare",
        "last_activity": started or "",
        "tokens": 0,
        "cost_usd_estimate": None,
        "memory_bytes": spare.memory,
        "started_by": "this process",
        "started_at": started,
    }


def _iso(when: datetime | None) -> str | None:
    return when.astimezone(UTC).isoformat(timespec="seconds") if when is not None else None


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class RunsTable(BundledWidget, bundle="runs"):
    """The table part of the dashboard (a front end of rows and buttons)."""

    rows: traitlets.List[dict[str, Any]] = traitlets.List().tag(sync=True)
    """One dict per live run, then one per spare: id, kind (``run`` or ``spare``), provider,
    folder, path, state (``spare`` for a spare), started_at and last_activity (ISO 8601, or
    null / empty when not known), tokens, cost_usd_estimate (a decimal string, USD),
    memory_bytes (the agent's resident memory, or null) and started_by
    (``Run.started_by``: who holds it, or null)."""

    opened = traitlets.Unicode("").tag(sync=True)
    """The id of the run whose chat is open below the table, or ``""``."""


class RunsDashboard(ipywidgets.VBox):  # type: ignore[misc]
    """A live table of runs with the chat of the opened one below it."""

    def __init__(self, initial: Iterable[LiveRun] = (), spares: SpareSource | None = None) -> None:
        self.table = RunsTable()
        super().__init__(children=[self.table])
        # Guards the dicts below only; never held while calling into a run. Run events
        # arrive on each run's reader thread under that run's own lock: reading another
        # run from there could deadlock, so rows are built on the publisher thread.
        self._lock = threading.Lock()
        self._dirty = False
        self._publisher = ThreadPoolExecutor(max_workers=1, thread_name_prefix="lab-widget-rows")
        self._runs: dict[str, LiveRun] = {}
        self._activity: dict[str, str] = {}
        self._unsubscribe: dict[str, Callable[[], None]] = {}
        self._spares = spares
        self._channel = ActionChannel(
            self.table,
            {"open": self._act_open, "stop": self._act_stop, "close": lambda _r: self._show(None)},
            workers=2,
            thread_name="lab-widget-runs",
            contract=RunsActionArgs,
        )
        for run in initial:
            self._track(run)
        self._publish_now()
        self.table.on_msg(self._channel.receive)
        self._unwatch = watch_runs(self._on_runs_changed)
        self._unwatch_spares = spares.watch(self._publish) if spares is not None else None

    def __repr__(self) -> str:
        count = len(self._runs)
        return f"RunsDashboard({count} run{'' if count == 1 else 's'})"

    def close(self) -> None:
        """Stop following the runs and close the widgets."""
        self._unwatch()
        if self._unwatch_spares is not None:
            self._unwatch_spares()
        with self._lock:
            unsubscribes = list(self._unsubscribe.values())
            self._unsubscribe.clear()
        for unsubscribe in unsubscribes:
            unsubscribe()
        self._channel.close()
        self._publisher.shutdown(wait=False)
        self.table.close()
        super().close()

    # -- following runs --------------------------------------------------------------------

    def _track(self, run: LiveRun) -> None:
        with self._lock:
            if run.id in self._runs:
                return
            earlier = next((key for key, known in self._runs.items() if known is run), None)
            if earlier is not None:
                # Restarted: a new agent under the same run, a new id (its listener stays).
                self._runs[run.id] = self._runs.pop(earlier)
                self._activity[run.id] = self._activity.pop(earlier)
                unsubscribe = self._unsubscribe.pop(earlier, None)
                if unsubscribe is not None:
                    self._unsubscribe[run.id] = unsubscribe
                return
            self._runs[run.id] = run
            self._activity[run.id] = ""  # heard nothing yet: its transcript says when
        unsubscribe = run.subscribe(self._listener(run))  # takes the run's lock: not ours
        with self._lock:
            self._unsubscribe[run.id] = unsubscribe

    def _listener(self, run: LiveRun) -> Callable[[object], None]:
        return lambda _event: self._on_event(run)

    def _on_event(self, run: LiveRun) -> None:
        with self._lock:
            self._activity[run.id] = _now()
        self._publish()

    def _on_runs_changed(self, run: LiveRun, live: bool) -> None:
        if live:
            self._track(run)
        self._publish()

    def _publish(self) -> None:
        """Rebuild the rows soon, on the publisher thread (bursts coalesce into one)."""
        with self._lock:
            if self._dirty:
                return
            self._dirty = True
        try:
            self._publisher.submit(self._publish_now)
        except RuntimeError:  # closed
            pass

    def _publish_now(self) -> None:
        with self._lock:
            self._dirty = False
            tracked = [(run, self._activity[run.id]) for run in self._runs.values()]
        waiting = self._spares.list() if self._spares is not None else []
        self.table.rows = [_row(run, at) for run, at in tracked] + [
            _spare_row(spare) for spare in waiting
        ]

    def _show(self, run: LiveRun | None) -> None:
        self.table.opened = run.id if run else ""
        self.children = [self.table, run.view] if run else [self.table]

    # -- browser → Python ----------------------------------------------------------------

    def _run_of(self, request: ActionRequest) -> LiveRun:
        run_id = request.args.get("run_id")
        with self._lock:
            run = self._runs.get(str(run_id))
        if run is None:
            if self._is_spare(str(run_id)):
                raise LookupError(
                    f"{run_id!r} is a spare agent: it has no chat until a Run adopts it"
                )
            raise LookupError(f"no run {run_id!r} in this table")
        return run

    def _is_spare(self, run_id: str) -> bool:
        return self._spares is not None and any(s.id == run_id for s in self._spares.list())

    def _act_open(self, request: ActionRequest) -> None:
        run = self._run_of(request)
        self._show(run)
        if request.text("pane") == "terminal":
            # The chat view opens its terminal pane (the agent's real TUI) when told.
            reveal = getattr(run.view, "reveal_terminal", None)
            if callable(reveal):
                reveal()

    def _act_stop(self, request: ActionRequest) -> None:
        run_id = str(request.args.get("run_id"))
        if self._spares is not None and self._is_spare(run_id):
            self._spares.stop(run_id)  # adopted meanwhile: its run's row has it now
        else:
            self._run_of(request).stop()
        self._publish_now()


class RunList(list[R], Generic[R]):
    """The live runs (a plain list) that displays as a live dashboard in a notebook.

    ``spares``: the spare agents the dashboard lists below the runs (never items of the
    list: a spare is no run until one adopts it).
    """

    def __init__(self, runs: Iterable[R] = (), spares: SpareSource | None = None) -> None:
        super().__init__(runs)
        self.spares = spares

    def stop_all(self) -> list[str]:
        """Stop every run in the list (``lab_widget.runs().stop_all()`` ends every agent of
        the lab home, whichever kernel started it); the ids of the runs it stopped.

        A run that fails to stop does not keep the others running: the first such error is
        raised once all were tried.
        """
        stopped: list[str] = []
        failed: BaseException | None = None
        for run in self:
            if run.state == "ended":
                continue
            try:
                run.stop()
            except Exception as exc:
                failed = failed or exc
            else:
                stopped.append(run.id)
        if failed is not None:
            raise failed
        return stopped

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return RunsDashboard(self, self.spares)._repr_mimebundle_(**kwargs)
