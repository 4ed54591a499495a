"""Which notebook cell started a run, and the runs an earlier execution of that cell left.

Re-running a ``run = Run(...)`` cell rebinds ``run``; the agent the earlier execution
started would go on running (a TUI process and its memory each) with nothing left to reach
it. So a run remembers the cell and the execution that created it, and a new run from a new
execution of the same cell finds the earlier ones. Runs one execution creates together (a
list of runs made in one cell) are siblings, never each other's earlier run.

The cell comes from the message that asked the kernel to execute (JupyterLab and Notebook 7
send its ``cellId``); outside a notebook there is no cell and nothing is tracked.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any, Protocol

__all__ = ["CellOrigin", "current_cell", "earlier_runs", "note_run"]


class _Stateful(Protocol):
    @property
    def state(self) -> str: ...


@dataclass(frozen=True)
class CellOrigin:
    """The cell and the execution a run was created in."""

    cell_id: str
    execution: str
    """The id of the execute request: a new one each time the cell runs."""


def current_cell() -> CellOrigin | None:
    """The cell executing now, in a notebook's kernel; ``None`` anywhere else."""
    try:
        from IPython import get_ipython  # noqa: PLC0415 (only in a kernel)
    except ImportError:
        return None
    kernel = getattr(get_ipython(), "kernel", None)
    get_parent = getattr(kernel, "get_parent", None)
    if get_parent is None:
        return None
    try:
        parent: Any = get_parent()
    except Exception:  # an older kernel's signature, or no request being served
        return None
    if not isinstance(parent, dict):
        return None
    metadata, header = parent.get("metadata") or {}, parent.get("header") or {}
    cell_id, execution = metadata.get("cellId"), header.get("msg_id")
    if isinstance(cell_id, str) and cell_id and isinstance(execution, str) and execution:
        return CellOrigin(cell_id, execution)
    return None


_lock = threading.Lock()
_by_cell: dict[str, tuple[str, list[Any]]] = {}
"""Cell id → the execution that last created runs there, and those runs. Held strongly: the
rebound name was the only other reference, and a run the collector took could not be
stopped any more (its agent would run on)."""


def earlier_runs(origin: CellOrigin) -> list[Any]:
    """The live runs an earlier execution of ``origin``'s cell created.

    Examples
    --------
    >>> class R:
    ...     state = "idle"
    >>> first, sibling, second = R(), R(), R()
    >>> note_run(CellOrigin("c1", "e1"), first)
    >>> earlier_runs(CellOrigin("c1", "e1"))  # the same execution: a sibling
    []
    >>> note_run(CellOrigin("c1", "e1"), sibling)
    >>> [r is first or r is sibling for r in earlier_runs(CellOrigin("c1", "e2"))]
    [True, True]
    >>> note_run(CellOrigin("c1", "e2"), second)
    >>> earlier_runs(CellOrigin("c1", "e2"))
    []
    """
    with _lock:
        execution, runs = _by_cell.get(origin.cell_id, (origin.execution, []))
    if execution == origin.execution:
        return []
    return [r for r in runs if r.state != "ended"]


def note_run(origin: CellOrigin, run: _Stateful) -> None:
    """Remember that ``run`` was created at ``origin`` (an earlier execution is forgotten)."""
    with _lock:
        execution, runs = _by_cell.get(origin.cell_id, (origin.execution, []))
        if execution != origin.execution:
            runs = []
        _by_cell[origin.cell_id] = (origin.execution, [*runs, run])
