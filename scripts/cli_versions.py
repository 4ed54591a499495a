"""Other versions of an agent CLI, for recording fixtures users' older histories hold.

Usage (from a recording script)::

    with cli_version("claude-code", "2.1.145"):
        Run("claude-code", ...)   # runs that version

Each version is installed once into ``$LAB_WIDGET_CLI_CACHE`` (default
``~/.cache/lab_widget/cli-versions/``): an npm CLI with npm into ``<package>@<version>``, a
Python CLI into a virtual environment of its own under ``<package>==<version>`` (built as
``install-clis`` builds the pinned one), never into the project's tools folder, and used through ``$LAB_WIDGET_TOOLS`` for the duration of the block. Live tests and
the product always run the pinned version (``lab_widget/compat.py``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lab_widget._install import install_python_cli  # noqa: E402
from lab_widget.compat import PINS, PythonCLIPin  # noqa: E402
from lab_widget.provider._binaries import pinned_executable  # noqa: E402

__all__ = ["cache_dir", "cli_version", "install"]


def cache_dir() -> Path:
    """Where other versions are installed."""
    env = os.environ.get("LAB_WIDGET_CLI_CACHE")
    return Path(env).expanduser() if env else Path.home() / ".cache/lab_widget/cli-versions"


def install(provider_id: str, version: str) -> Path:
    """A tools folder holding ``version`` of the provider's CLI (installed if missing)."""
    pin = PINS[provider_id]
    if isinstance(pin, PythonCLIPin):
        return _install_python(pin, version)
    target = cache_dir() / f"{pin.npm_package.replace('/', '+')}@{version}"
    binary = target / "node_modules" / ".bin" / pin.binary
    if binary.exists():
        return _checked(target, binary, version)
    npm = shutil.which("npm")
    if npm is None:
        raise SystemExit("npm is needed to install another CLI version")
    target.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [
            npm,
            "install",
            "--prefix",
            str(target),
            "--no-audit",
            "--no-fund",
            "--save-exact",
            f"{pin.npm_package}@{version}",
        ],
        check=True,
    )
    if not binary.exists():
        raise SystemExit(f"{pin.npm_package}@{version} installed no {pin.binary} binary")
    return _checked(target, binary, version)


VERSION_ENV = {"copilot": {"COPILOT_AUTO_UPDATE": "false"}}
"""What a CLI needs to run the version installed rather than a newer one it finds: Copilot
CLI's loader runs the newest runtime unpacked under ``~/.cache/copilot/pkg/`` unless auto
updates are off (runs set it too, ``lab_widget/provider/copilot/_compat.py``)."""


def _install_python(pin: PythonCLIPin, version: str) -> Path:
    """A tools folder whose ``venvs/<id>`` holds ``version`` of a Python CLI."""
    target = cache_dir() / f"{pin.pypi_package}=={version}"
    other = replace(pin, version=version)
    before = os.environ.get("LAB_WIDGET_TOOLS")
    os.environ["LAB_WIDGET_TOOLS"] = str(target)
    try:
        install_python_cli(other)
        binary = pinned_executable(other)
    finally:
        _restore(before)
    return _checked(target, binary, version)


def _restore(before: str | None) -> None:
    if before is None:
        os.environ.pop("LAB_WIDGET_TOOLS", None)
    else:
        os.environ["LAB_WIDGET_TOOLS"] = before


def _checked(target: Path, binary: Path, version: str) -> Path:
    """``target``, once its CLI says it is ``version`` (a cache folder can hold another)."""
    env = os.environ | VERSION_ENV.get(binary.name, {})
    shown = subprocess.run(
        [str(binary), "--version"], capture_output=True, text=True, check=False, env=env
    )
    if version not in shown.stdout:
        raise SystemExit(f"{binary} says {shown.stdout.strip()!r}, not {version}")
    return target


@contextmanager
def cli_version(provider_id: str, version: str | None) -> Iterator[str]:
    """Run the block with ``version`` of the CLI (the pinned one for ``None``)."""
    pinned = PINS[provider_id].version
    if version is None or version == pinned:
        yield pinned
        return
    before = os.environ.get("LAB_WIDGET_TOOLS")
    os.environ["LAB_WIDGET_TOOLS"] = str(install(provider_id, version))
    try:
        yield version
    finally:
        _restore(before)
