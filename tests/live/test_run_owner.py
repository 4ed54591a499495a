"""Live: runs have an owner. In a real IPython kernel (started as a notebook server starts
one, cells sent with their cell id as JupyterLab sends them), re-running a ``run = Run(...)``
cell stops the run its earlier execution started, and a run whose scripted model lived in
a kernel that has ended is stopped, and said so, by the next ``runs()``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import lab_widget
from lab_widget import RunStoppedWarning
from tests.support.kernels import run_cell, running_kernel, user_value
from tests.support.processes import run_processes
from tests.support.waiting import retry_until


def test_a_rerun_cell_replaces_its_run_and_a_dead_kernels_runs_are_stopped(
    lab_home: Path, workdir: Path
) -> None:
    cell = (
        f"run = Run('claude-code', cwd={str(workdir)!r}, model=ScriptedModel(fallback='Hi.'))\n"
        "run.send('hello')\n"
        "print(run.id, run.wait(timeout=120))"
    )
    with running_kernel("from lab_widget import Run, ScriptedModel") as kernel:
        first = run_cell(kernel, cell, "cell-a")
        assert first.status == "ok", first
        first_id, state = first.stdout.split()
        assert state == "idle"

        second = run_cell(kernel, cell, "cell-a")
        assert second.status == "ok", second
        second_id = second.stdout.split()[0]
        assert "RunStoppedWarning" in second.stderr and first_id in second.stderr, second
        listed = user_value(kernel, "[r.id for r in __import__('lab_widget').runs()]")
        assert listed == repr([second_id])

        # Another cell's run is no re-run: both live on.
        other = run_cell(kernel, cell.replace("run =", "other ="), "cell-b")
        assert other.status == "ok" and "RunStoppedWarning" not in other.stderr, other
        kernel.shutdown_kernel(now=True)  # a restart: the scripted models go with it

    # Both agents outlived their kernel in tmux, with nothing left to answer them.
    assert run_processes(str(workdir))
    with pytest.warns(RunStoppedWarning, match="kernel that has ended") as said:
        assert list(lab_widget.runs()) == []
    told = " ".join(str(w.message) for w in said)
    assert second_id in told and first_id not in told, told
    assert retry_until(lambda: not run_processes(str(workdir)), 30), run_processes(str(workdir))
