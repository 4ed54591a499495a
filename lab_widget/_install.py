"""Installing the pinned agent CLIs; where they live is :mod:`lab_widget.provider._binaries`."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from .compat import ORACLE, PINS, CLIPin, ToolPin
from .errors import NpmNotFoundError
from .provider._binaries import find_binary, find_tool, tools_dir

__all__ = ["find_binary", "find_tool", "install_clis", "tools_dir"]


def install_clis(providers: list[str] | None = None) -> Path:
    """``npm install`` the pinned CLIs (all by default) into :func:`tools_dir`, with the
    pinned test oracle (:data:`~lab_widget.compat.ORACLE`) beside them.
    """
    npm = shutil.which("npm")
    if npm is None:
        raise NpmNotFoundError("npm is needed to install the agent CLIs; install Node.js first")
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
