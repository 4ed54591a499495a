"""Which kernel a run's ``kernel`` server reaches, and the server's record for the spawn.

``Run(..., kernel=True)`` means this notebook's kernel, found through ipykernel's own
connection file; a path names another kernel's connection file (a console's, a test's).
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

from ..errors import KernelToolsError, MissingDependencyError
from ..provider import ToolServer
from ._notebook import current_notebook

__all__ = [
    "ASKING",
    "CALL_TIMEOUT",
    "READING",
    "SERVER_NAME",
    "kernel_tool_server",
    "this_kernel_connection_file",
]

SERVER_NAME = "kernel"
"""The server's name: the agent sees its tools as this server's."""

ASKING = ("run_python", "insert_cell")
"""The tools the user approves call by call."""

READING = ("list_variables", "describe", "notebook_cells")
"""The tools that only read the kernel or the notebook, allowed without asking."""

CALL_TIMEOUT = 360.0
"""Seconds the CLI gives one call before it gives up: longer than the server's own limits
(``_server.DEFAULT_WAIT`` for a running cell, then ``DEFAULT_TIMEOUT`` for the code), so a
long cell ends in the kernel's own words, never in a CLI's cut-off at 60 s while the code
runs on."""


def this_kernel_connection_file() -> Path:
    """The connection file of the IPython kernel this code runs in.

    Raises :class:`~lab_widget.errors.KernelToolsError` outside a kernel (plain Python, a
    terminal IPython), where there is no kernel for the agent to reach.
    """
    try:
        from ipykernel.connect import get_connection_file  # noqa: PLC0415 (kernels only)

        found = Path(get_connection_file())
    except Exception as exc:  # no ipykernel, or not running inside a kernel
        raise KernelToolsError(
            "kernel=True needs a Jupyter kernel to reach (a notebook or a console); this "
            f"Python is not one ({type(exc).__name__}). Pass kernel=<connection file> to "
            "reach another kernel."
        ) from exc
    if not found.is_file():
        raise KernelToolsError(f"this kernel's connection file {found} does not exist")
    return found


def kernel_tool_server(connection_file: Path | None = None) -> ToolServer:
    """The ``kernel`` server for a run: this kernel's, or the one of ``connection_file``.

    Examples
    --------
    >>> import json, tempfile
    >>> path = Path(tempfile.mkdtemp()) / "kernel-1.json"
    >>> _ = path.write_text(json.dumps({"shell_port": 1}))
    >>> server = kernel_tool_server(path)
    >>> server.name, server.command[1:4], server.asking
    ('kernel', ['-m', 'lab_widget', 'kernel-tools'], ('run_python', 'insert_cell'))
    """
    for module in ("mcp", "jupyter_client"):
        if importlib.util.find_spec(module) is None:
            # The server would fail in the CLI's hands, out of sight: say so here.
            raise MissingDependencyError(module, "kernel")
    found = this_kernel_connection_file() if connection_file is None else Path(connection_file)
    if not found.is_file():
        raise KernelToolsError(f"no kernel connection file at {found}")
    command = [sys.executable, "-m", "lab_widget", "kernel-tools", "--connection-file"]
    command.append(str(found.resolve()))
    notebook = current_notebook()
    if notebook is not None:
        command += ["--notebook", str(notebook.resolve())]
    # The server imports this very lab_widget, wherever the kernel found it.
    here = str(Path(__file__).resolve().parents[2])
    path = os.pathsep.join(p for p in (here, os.environ.get("PYTHONPATH", "")) if p)
    return ToolServer(
        SERVER_NAME,
        command,
        env={"PYTHONPATH": path},
        asking=ASKING,
        reading=READING,
        call_timeout=CALL_TIMEOUT,
    )
