"""Installing the pinned agent CLIs; where they live is :mod:`lab_widget.provider._binaries`.

npm CLIs go into the tools folder's ``node_modules``; a Python CLI into a virtual
environment of its own there (``venvs/<provider id>``), built on a Python new enough for it
found on the machine: never into the kernel's environment, whose packages its exact pins
would fight.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from .compat import ACP_ADAPTERS, ORACLE, PINS, CLIPin, PythonCLIPin, ToolPin
from .errors import NpmNotFoundError, PythonNotFoundError
from .provider._binaries import find_binary, find_tool, pinned_executable, tools_dir, venv_dir

__all__ = [
    "find_binary",
    "find_python",
    "find_tool",
    "install_clis",
    "install_python_cli",
    "tools_dir",
]

PYTHON_ENV = "LAB_WIDGET_PYTHON"
"""Names the Python a Python CLI's environment is built on, instead of the search."""

_PROBE = "import sys, venv, ensurepip; print(*sys.version_info[:2])"
"""What a usable base Python answers: its version, with the modules ``-m venv`` needs
(Debian's own ``python3`` lacks ``ensurepip`` until ``python3-venv`` is installed)."""

_FOREIGN_ENV = ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PYTHONUSERBASE", "PIP_USER")
"""The kernel's settings that would point another interpreter at the kernel's packages."""


def install_clis(providers: list[str] | None = None) -> Path:
    """Install the pinned CLIs (all by default) into :func:`tools_dir`: the npm ones with
    ``npm install``, with the pinned test oracle (:data:`~lab_widget.compat.ORACLE`) and ACP
    adapters (:data:`~lab_widget.compat.ACP_ADAPTERS`) beside them, each Python one into its
    own virtual environment.
    """
    chosen = [PINS[p] for p in (providers or list(PINS))]
    target = tools_dir()
    target.mkdir(parents=True, exist_ok=True)
    npm_pins: list[CLIPin | ToolPin] = [p for p in chosen if isinstance(p, CLIPin)]
    if npm_pins:
        _npm_install([*npm_pins, ORACLE, *ACP_ADAPTERS], target)
    for pin in chosen:
        if isinstance(pin, PythonCLIPin):
            install_python_cli(pin)
    return target


def _npm_install(pins: list[CLIPin | ToolPin], target: Path) -> None:
    npm = shutil.which("npm")
    if npm is None:
        raise NpmNotFoundError("npm is needed to install the agent CLIs; install Node.js first")
    manifest = target / "package.json"
    if not manifest.exists():
        manifest.write_text('{"name": "lab-widget-tools", "private": true}\n')
    subprocess.run(
        [npm, "install", "--no-audit", "--no-fund", "--save-exact", *(p.spec for p in pins)],
        cwd=target,
        check=True,
    )


def install_python_cli(pin: PythonCLIPin) -> None:
    """``pin`` in its own environment (:func:`~lab_widget.provider._binaries.venv_dir`); an
    environment holding another version (or broken) is built anew, one holding the pinned
    version is kept.
    """
    venv = venv_dir(pin)
    python = venv / "bin" / "python"
    if installed_version(pin) == pin.version and pinned_executable(pin).exists():
        return
    base = find_python(pin)
    subprocess.run([base, "-m", "venv", "--clear", str(venv)], check=True, env=isolated_env())
    subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", pin.spec],
        check=True,
        env=isolated_env(),
    )


def installed_version(pin: PythonCLIPin) -> str | None:
    """The version of ``pin``'s package in its environment, or ``None`` when it has none."""
    python = venv_dir(pin) / "bin" / "python"
    if not python.exists():
        return None
    query = f"import importlib.metadata as m; print(m.version({pin.pypi_package!r}))"
    proc = subprocess.run(
        [str(python), "-c", query],
        capture_output=True,
        text=True,
        check=False,
        env=isolated_env(),
    )
    return (proc.stdout.strip() or None) if proc.returncode == 0 else None


def isolated_env() -> dict[str, str]:
    """The environment of this process less what would lead another Python to the
    kernel's packages.
    """
    return {k: v for k, v in os.environ.items() if k not in _FOREIGN_ENV}


def find_python(pin: PythonCLIPin) -> str:
    """A Python on this machine of at least ``pin.min_python`` that can build a virtual
    environment: ``$LAB_WIDGET_PYTHON`` alone when set, else this interpreter, the versioned
    ``python3.X`` on PATH (newest first), pyenv's and uv's installed versions.

    Raises
    ------
    PythonNotFoundError
        None is new enough; the message says what to install.
    """
    tried: list[str] = []
    for candidate in _candidates():
        if candidate in tried:
            continue
        tried.append(candidate)
        version = _probe(candidate)
        if version is not None and version >= pin.min_python:
            return candidate
    raise PythonNotFoundError(pin.pypi_package, pin.min_python, tried)


def _candidates() -> list[str]:
    if chosen := os.environ.get(PYTHON_ENV):
        return [chosen]
    found = [sys.executable]
    for minor in range(20, 11, -1):
        if on_path := shutil.which(f"python3.{minor}"):
            found.append(on_path)
    pyenv = Path(os.environ.get("PYENV_ROOT") or Path.home() / ".pyenv")
    for root, pattern in (
        (pyenv / "versions", "3.*/bin/python3"),
        (Path.home() / ".local/share/uv/python", "cpython-3.*/bin/python3"),
    ):
        versions = sorted(map(str, root.glob(pattern)), key=_version_key, reverse=True)
        found += versions
    return found


def _version_key(path: str) -> tuple[int, ...]:
    """``.../3.12.1/bin/python3`` -> ``(3, 12, 1)``, so the newest sorts last."""
    name = Path(path).parents[1].name.removeprefix("cpython-").split("-")[0]
    return tuple(int(part) for part in name.split(".") if part.isdigit())


def _probe(python: str) -> tuple[int, int] | None:
    """``python``'s ``(major, minor)``, or ``None`` when it does not run or cannot build
    an environment (a pyenv shim for a version not selected exits non-zero).
    """
    try:
        proc = subprocess.run(
            [python, "-c", _PROBE],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
            env=isolated_env(),
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    parts = proc.stdout.split()
    if proc.returncode != 0 or len(parts) != 2:
        return None
    return int(parts[0]), int(parts[1])
