"""The live runs of this lab home (or of another host), re-adopted where an earlier kernel
started them: ``runs()`` and ``get_run()``.
"""

from __future__ import annotations

import warnings

from .._home import RunRecord
from .._remote._backend import RemoteBackend
from .._remote._transports import Host
from .._runtime._tmux import TmuxTerminal
from .._widgets import RunList
from ..errors import RunNotFoundError, RunStoppedWarning
from ..provider.kit import iso_time
from ._launch import runner
from ._local import LocalBackend
from ._registry import find, live_records
from ._run import Run
from ._spares import pool, spares

__all__ = ["adopt", "get_run", "runs"]


def adopt(record: RunRecord, terminal: TmuxTerminal) -> Run:
    """A run over the agent an earlier kernel (or worker) started, from its record."""
    return Run._over(lambda announce: LocalBackend.adopt(record, terminal, announce))


def _on_host(host: Host, run_id: str, provider_id: str) -> Run:
    existing = find(run_id)
    backend = getattr(existing, "_backend", None)
    if (
        isinstance(existing, Run)
        and isinstance(backend, RemoteBackend)
        and backend.host == host
        and not backend.gone
    ):
        return existing
    return Run._over(lambda announce: RemoteBackend.adopt(host, run_id, provider_id, announce))


def runs(host: str | Host | None = None) -> RunList[Run]:
    """Every live run, re-adopting runs started by an earlier kernel (same lab home).

    A re-adopted run reads its history back from the agent's transcript. The list displays
    in a notebook as a live dashboard (state, activity, tokens, cost; open or stop a run).
    With ``host`` (see :class:`Run`), the live runs on that host, re-adopted by its worker.
    """
    if host is not None:
        return RunList(RemoteBackend.runs_on(host, _on_host))
    found: list[Run] = []
    waiting = {spare.id for spare in spares()}
    for record, terminal in live_records(runner()):
        if record.run_id in waiting:
            continue  # a spare is no run until one adopts it (listed by spares())
        if _orphaned(record, terminal):
            continue  # a run this process follows too: its own reading sees it end
        existing = _followed(record)
        found.append(existing if existing is not None else adopt(record, terminal))
    return RunList(found, spares=pool)


def _followed(record: RunRecord) -> Run | None:
    """The object this process holds for the run of ``record``, if it holds one.

    An object of the same id that has ended, or that stands for a run another lab home
    started (a name used again), is not it: the record's run is adopted instead, rather
    than handing back an object whose stop() cannot reach the agent that now runs.
    """
    existing = find(record.run_id)
    if not isinstance(existing, Run) or existing.state == "ended":
        return None
    return existing if existing.started_at == iso_time(record.created) else None


def _orphaned(record: RunRecord, terminal: TmuxTerminal) -> bool:
    """Stop, and say so, a run whose scripted model ended with the kernel that served it.

    Left alone it would take prompts and spin on a refused connection until the CLI gives
    up, minutes later, with the reason visible only in its terminal.
    """
    holder = record.holder
    if holder is None or holder.alive():
        return False
    terminal.kill()
    warnings.warn(
        RunStoppedWarning(
            f"stopped run {record.run_id!r}: its scripted model was served by a kernel that "
            f"has ended (process {holder.pid}), so nothing could answer it. Its conversation "
            "stays readable with lab_widget.history(); start a new Run with a ScriptedModel "
            "to go on."
        ),
        stacklevel=3,
    )
    return True


def get_run(run_id: str, host: str | Host | None = None) -> Run:
    """The live run with this id (on ``host``, when given)."""
    for run in runs(host):
        if run.id == run_id:
            return run
    raise RunNotFoundError(f"no live run {run_id!r}")
