"""Where a pinned agent CLI's executable is found: the project's tools folder, then PATH.

Adapters find their binary here (an auth flow runs the CLI's own login); installing the
CLIs is the command line's job (:mod:`lab_widget._install`). An npm CLI's executable is in
the folder's ``node_modules/.bin``; a Python CLI's in the ``bin`` of its own virtual
environment, ``venvs/<provider id>``.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from ..compat import AgentPin, PythonCLIPin, ToolPin, install_command
from ..errors import CLINotFoundError

__all__ = ["find_binary", "find_tool", "pinned_executable", "tools_dir", "venv_dir"]


def tools_dir() -> Path:
    """The project-local folder the pinned CLIs are installed into.

    ``$LAB_WIDGET_TOOLS`` wins; in a source checkout it is ``<checkout>/tools``; otherwise
    ``~/.local/share/lab_widget/tools``.
    """
    if env := os.environ.get("LAB_WIDGET_TOOLS"):
        return Path(env).expanduser()
    checkout = Path(__file__).resolve().parents[2]
    if (checkout / "pyproject.toml").is_file():
        return checkout / "tools"
    return Path.home() / ".local" / "share" / "lab_widget" / "tools"


def venv_dir(pin: PythonCLIPin) -> Path:
    """The virtual environment a Python CLI is installed into, in :func:`tools_dir`.

    Examples
    --------
    >>> from lab_widget.compat import PINS
    >>> venv_dir(PINS["mistral-vibe"]).relative_to(tools_dir()).as_posix()
    'venvs/mistral-vibe'
    """
    return tools_dir() / "venvs" / pin.provider_id


def pinned_executable(pin: AgentPin | ToolPin) -> Path:
    """Where the install puts the pin's executable (it may not be there yet).

    Examples
    --------
    >>> from lab_widget.compat import PINS
    >>> pinned_executable(PINS["codex"]).relative_to(tools_dir()).as_posix()
    'node_modules/.bin/codex'
    >>> pinned_executable(PINS["mistral-vibe"]).relative_to(tools_dir()).as_posix()
    'venvs/mistral-vibe/bin/vibe'
    """
    if isinstance(pin, PythonCLIPin):
        return venv_dir(pin) / "bin" / pin.binary
    return tools_dir() / "node_modules" / ".bin" / pin.binary


def find_binary(pin: AgentPin, display_name: str) -> Path:
    """The CLI's executable: the tools folder first, then PATH."""
    local = pinned_executable(pin)
    if local.exists():
        return local
    found = shutil.which(pin.binary)
    if found:
        return Path(found)
    raise CLINotFoundError(display_name, pin.binary, install_command())


def find_tool(pin: ToolPin) -> Path | None:
    """A pinned tool's executable in the tools folder (never from PATH: another version
    there would not be the pinned one), or ``None`` when it is not installed.
    """
    local = pinned_executable(pin)
    return local if local.exists() else None
