"""Live: ``install-clis`` puts a Python agent CLI into its own environment under the tools
folder, built on a Python found on the machine, and adds nothing to the kernel's own."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from lab_widget import providers
from lab_widget.compat import PINS, PythonCLIPin


def _pip_list() -> str:
    return subprocess.run(
        [sys.executable, "-m", "pip", "list", "--format=freeze"],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    ).stdout


def test_a_python_cli_installs_beside_the_kernel_not_into_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pin = PINS["mistral-vibe"]
    assert isinstance(pin, PythonCLIPin)
    env = {**os.environ, "LAB_WIDGET_TOOLS": str(tmp_path)}
    before = _pip_list()
    for _ in range(2):  # the second finds the pinned version in place and keeps it
        subprocess.run(
            [sys.executable, "-m", "lab_widget", "install-clis", pin.provider_id],
            env=env,
            check=True,
            timeout=900,
        )
    assert _pip_list() == before
    assert f"{pin.pypi_package}==" not in before
    binary = tmp_path / "venvs" / pin.provider_id / "bin" / pin.binary
    shown = subprocess.run(
        [str(binary), "--version"], capture_output=True, text=True, check=True, timeout=120
    )
    assert pin.version in shown.stdout
    config = (tmp_path / "venvs" / pin.provider_id / "pyvenv.cfg").read_text()
    assert "include-system-site-packages = false" in config
    assert not (tmp_path / "node_modules").exists()  # no npm for a Python CLI
    # The providers table finds it there and reports its version against the pin.
    monkeypatch.setenv("LAB_WIDGET_TOOLS", str(tmp_path))
    row = providers(check_auth=False).get(pin.provider_id)
    assert (row.installed_version, row.pinned_version) == (pin.version, pin.version)
    assert row.health == "ok" and row.binary == str(binary)
