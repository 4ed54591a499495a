"""The live runs of this lab home (or of another host), re-adopted where an earlier kernel
started them: ``runs()`` and ``get_run()``.
"""

from __future__ import annotations

from .._home import RunRecord
from .._remote._backend import RemoteBackend
from .._remote._transports import Host
from .._runtime._tmux import TmuxTerminal
from .._widgets import RunList
from ..errors import RunNotFoundError
from ._launch import runner
from ._local import LocalBackend
from ._registry import find, live_records
from ._run import Run

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
    for record, terminal in live_records(runner()):
        existing = find(record.run_id)
        found.append(existing if isinstance(existing, Run) else adopt(record, terminal))
    return RunList(found)


def get_run(run_id: str, host: str | Host | None = None) -> Run:
    """The live run with this id (on ``host``, when given)."""
    for run in runs(host):
        if run.id == run_id:
            return run
    raise RunNotFoundError(f"no live run {run_id!r}")
