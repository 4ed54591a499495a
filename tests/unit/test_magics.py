"""The IPython extension over a fake agent under real tmux, in a real IPython shell."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell

import lab_widget
from lab_widget import Run
from lab_widget._remote._backend import RemoteBackend
from tests.support.remote import close_connections, local_host


@pytest.fixture
def shell(lab_home: Path) -> Iterator[InteractiveShell]:
    ip = InteractiveShell.instance()
    ip.run_line_magic("load_ext", "lab_widget")
    yield ip
    for run in lab_widget.runs():
        run.stop()
    InteractiveShell.clear_instance()


def cell(ip: InteractiveShell, line: str, body: str) -> Any:
    # IPython leaves run_cell_magic unannotated; what it returns is the magic's own value.
    return ip.run_cell_magic("agent", line, body)  # type: ignore[no-untyped-call]


def test_cell_creates_a_named_run_sends_and_binds_it(
    shell: InteractiveShell, workdir: Path
) -> None:
    cell(shell, f"helper --provider fake --cwd {workdir} --wait 20", "hello there\n")
    run = shell.user_ns["helper"]
    assert isinstance(run, Run) and run.id == "helper"
    assert [(m.role, m.text) for m in run.messages] == [
        ("user", "hello there"),
        ("assistant", "echo: hello there"),
    ]
    # No target: the cell goes to the run the previous cell used.
    cell(shell, "--wait 20", "again")
    assert [m.text for m in run.messages][-1] == "echo: again"


def test_cell_reaches_a_run_bound_in_the_notebook(shell: InteractiveShell, workdir: Path) -> None:
    shell.user_ns["mine"] = run = Run("fake", cwd=workdir, name="other-id")
    cell(shell, "mine --wait 20", "ping")
    assert [m.text for m in run.messages] == ["ping", "echo: ping"]


def test_a_cell_mentions_the_notebooks_variables(shell: InteractiveShell, workdir: Path) -> None:
    shell.user_ns["rows"] = [3, 1, 2]
    cell(shell, f"sorter --provider fake --cwd {workdir} --wait 20", "sort @rows, not @nothing")
    [prompt] = [m.text for m in shell.user_ns["sorter"].messages if m.role == "user"]
    assert prompt.startswith("sort `rows`, not @nothing\n\nNotebook variables mentioned above")
    assert prompt.endswith("`rows`: list of 3 items = [3, 1, 2]")


def test_line_lists_shows_and_stops_runs(shell: InteractiveShell, workdir: Path) -> None:
    cell(shell, f"r1 --provider fake --cwd {workdir} --wait 20", "one")
    listed = shell.run_line_magic("agent", "")
    assert [r.id for r in listed] == ["r1"]
    assert shell.run_line_magic("agent", "r1") is shell.user_ns["r1"]
    shell.run_line_magic("agent", "stop r1")
    assert shell.user_ns["r1"].state == "ended"
    assert lab_widget.runs() == []


@pytest.mark.parametrize(
    ("line", "body", "says"),
    [
        ("x --provider nope", "hi", "unknown provider 'nope'"),
        ("x --bogus", "hi", "unrecognized arguments: --bogus"),
        ("x --wait soon", "hi", "invalid float value"),
        ("x --provider fake", "   \n", "the cell is empty"),
        ('x --cwd "unclosed', "hi", "No closing quotation"),
    ],
)
def test_user_mistakes_are_one_line_usage_errors(
    shell: InteractiveShell, line: str, body: str, says: str
) -> None:
    with pytest.raises(UsageError, match=says):
        cell(shell, line, body)


def test_line_mistakes_are_usage_errors(shell: InteractiveShell) -> None:
    with pytest.raises(UsageError, match="no live run 'ghost'"):
        shell.run_line_magic("agent", "ghost")
    with pytest.raises(UsageError, match="name the run"):
        shell.run_line_magic("agent", "stop")


def test_an_ended_run_is_refused_with_advice(shell: InteractiveShell, workdir: Path) -> None:
    cell(shell, f"gone --provider fake --cwd {workdir} --wait 20", "x")
    shell.user_ns["gone"].stop()
    with pytest.raises(UsageError, match="has ended; start another"):
        cell(shell, "gone", "y")


def test_cells_reach_runs_on_another_host(
    shell: InteractiveShell, lab_home: Path, workdir: Path
) -> None:
    shell.user_ns["box"] = local_host(lab_home)
    try:
        cell(shell, f"far --provider fake --cwd {workdir} --host box --wait 20", "over there")
        run = shell.user_ns["far"]
        assert isinstance(run._backend, RemoteBackend) and run.host == shell.user_ns["box"]
        assert [m.text for m in run.messages] == ["over there", "echo: over there"]
        cell(shell, "far --wait 20", "and back")
        assert [m.text for m in run.messages][-1] == "echo: and back"
        run.stop()
    finally:
        close_connections()


def test_kernel_tools_need_a_kernel_and_leave_this_host_only_to_one_allowed(
    shell: InteractiveShell, workdir: Path
) -> None:
    # A terminal IPython is no kernel: nothing for the agent to reach, nothing starts.
    with pytest.raises(UsageError, match="kernel=True needs a Jupyter kernel"):
        cell(shell, f"k1 --provider fake --cwd {workdir} --kernel", "look at df")
    remote = f"k2 --provider fake --cwd {workdir} --kernel --host ssh://me@box"
    with pytest.raises(UsageError, match=r"refused for a run on ssh://me@box.*--kernel-host"):
        cell(shell, remote, "x")
    # Allowed, it goes as far as looking for the kernel to carry there.
    with pytest.raises(UsageError, match="kernel=True needs a Jupyter kernel"):
        cell(shell, f"{remote} --kernel-host ssh://me@box", "x")
    assert lab_widget.runs() == []
