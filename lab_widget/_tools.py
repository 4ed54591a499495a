"""Where the pinned agent CLIs live, and how they get there."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from .compat import ORACLE, PINS, CLIPin, ToolPin, install_command
from .errors import CLINotFoundError, LabWidgetError

__all__ = ["find_binary", "find_tool", "install_clis", "tools_dir"]


def tools_dir() -> Path:
    """The project-local folder the pinned CLIs are installed into.

    ``$LAB_WIDGET_TOOLS`` wins; in a source checkout it is ``<checkout>/tools``; otherwise
    ``~/.local/share/lab_widget/tools``.
    """
    if env := os.environ.get("LAB_WIDGET_TOOLS"):
        return Path(env).expanduser()
    checkout = Path(__file__).resolve().parents[1]
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


def install_clis(providers: list[str] | None = None) -> Path:
    """``npm install`` the pinned CLIs (all by default) into :func:`tools_dir`, with the
    pinned test oracle (:data:`~lab_widget.compat.ORACLE`) beside them.
    """
    npm = shutil.which("npm")
    if npm is None:
        raise LabWidgetError("npm is needed to install the agent CLIs; install Node.js first")
    pins: list[CLIPin | ToolPin] = [PINS[p] for p in (providers or list(PINS))]
    pins.append(ORACLE)
    target = tools_dir()
    target.mkdir(parents=True, exist_ok=True)
    manifest = target / "package.json"
    if not manifest.exists():
        manifest.write_text('{"name": "lab-widget-tools", "private": true}\n')
    subprocess.run(
        [npm, "install", "--no-audit", "--no-fund", "--save-exact", *(p.spec for p in pins)],
        cwd=target,
        check=True,
    )
    return target
