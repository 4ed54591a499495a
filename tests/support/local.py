"""The parts of a run on this machine, for tests that look inside one."""

from __future__ import annotations

from lab_widget import Run
from lab_widget._run._local import LocalBackend


def local_parts(run: Run) -> LocalBackend:
    """The backend of a run on this machine: its chat brain, terminal, tailer and context."""
    backend = run._backend
    assert isinstance(backend, LocalBackend), "a run on this machine"
    return backend
