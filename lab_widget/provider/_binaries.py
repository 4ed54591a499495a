"""Where a pinned agent CLI's executable is found: the project's tools folder, then PATH.

Adapters find their binary here (an auth flow runs the CLI's own login); installing the
CLIs is the command line's job (:mod:`lab_widget._install`).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from ..compat import CLIPin, ToolPin, install_command
from ..errors import CLINotFoundError

__all__ = ["find_binary", "find_tool", "tools_dir"]


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


def find_binary(pin: CLIPin, display_name: str) -> Path:
    """The CLI's executable: the tools folder first, then PATH."""
    local = tools_dir() / "node_modules" / ".bin" / pin.binary
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
    local = tools_dir() / "node_modules" / ".bin" / pin.binary
    return local if local.exists() else None
