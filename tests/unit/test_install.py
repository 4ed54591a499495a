"""The install layer: a Python agent CLI's base interpreter is found or named as missing,
and installing it alone never needs npm."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

import lab_widget._install as install
from lab_widget.compat import ACP_ADAPTERS, ORACLE, PINS, CLIPin, PythonCLIPin, ToolPin
from lab_widget.errors import PythonNotFoundError, SetupError
from lab_widget.provider._binaries import pinned_executable, venv_dir

VIBE = PINS["mistral-vibe"]


def _fake_python(folder: Path, answer: str) -> Path:
    """An executable that answers the probe as a Python of that version would."""
    script = folder / f"python-{answer.replace(' ', '.')}"
    # Written by another process: a file this one wrote can still be open in a child another
    # thread of it forks meanwhile, and running it then fails ("text file busy").
    write = 'printf "#!/bin/sh\\necho %s\\n" "$1" > "$2" && chmod +x "$2"'
    subprocess.run(["sh", "-c", write, "sh", answer, str(script)], check=True)
    return script


def test_the_vibe_pin_is_a_python_pin_with_its_floor() -> None:
    assert isinstance(VIBE, PythonCLIPin)
    assert VIBE.spec == "mistral-vibe==3.0.2" and VIBE.min_python == (3, 12)


def test_a_python_cli_lives_in_its_own_environment_in_the_tools_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LAB_WIDGET_TOOLS", str(tmp_path))
    assert isinstance(VIBE, PythonCLIPin)
    assert venv_dir(VIBE) == tmp_path / "venvs" / "mistral-vibe"
    assert pinned_executable(VIBE) == tmp_path / "venvs" / "mistral-vibe" / "bin" / "vibe"


def test_a_python_too_old_is_a_typed_error_naming_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    old = _fake_python(tmp_path, "3 11")
    monkeypatch.setenv(install.PYTHON_ENV, str(old))
    assert isinstance(VIBE, PythonCLIPin)
    with pytest.raises(PythonNotFoundError) as caught:
        install.find_python(VIBE)
    assert isinstance(caught.value, SetupError)
    message = str(caught.value)
    assert "Python >= 3.12" in message and str(old) in message
    assert "pyenv install 3.12" in message and install.PYTHON_ENV in message


def test_a_python_new_enough_is_taken(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    new = _fake_python(tmp_path, "3 13")
    monkeypatch.setenv(install.PYTHON_ENV, str(new))
    assert isinstance(VIBE, PythonCLIPin)
    assert install.find_python(VIBE) == str(new)


def test_a_python_that_does_not_run_is_passed_over(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(install.PYTHON_ENV, str(tmp_path / "missing"))
    assert isinstance(VIBE, PythonCLIPin)
    with pytest.raises(PythonNotFoundError):
        install.find_python(VIBE)


def test_pyenv_versions_are_tried_newest_first(tmp_path: Path) -> None:
    paths = [f"{tmp_path}/versions/{v}/bin/python3" for v in ("3.9.1", "3.13.0", "3.12.10")]
    ordered = sorted(paths, key=install._version_key, reverse=True)
    assert [Path(p).parents[1].name for p in ordered] == ["3.13.0", "3.12.10", "3.9.1"]


def test_installing_a_python_cli_alone_runs_no_npm(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LAB_WIDGET_TOOLS", str(tmp_path))
    monkeypatch.setattr("shutil.which", lambda name: None)  # no npm anywhere
    venvs: list[str] = []
    monkeypatch.setattr(install, "install_python_cli", lambda pin: venvs.append(pin.provider_id))
    assert install.install_clis(["mistral-vibe"]) == tmp_path
    assert venvs == ["mistral-vibe"]
    assert not (tmp_path / "package.json").exists()


def test_the_npm_install_carries_the_oracle_and_the_acp_adapters_at_their_pins(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LAB_WIDGET_TOOLS", str(tmp_path))
    installed: list[list[str]] = []

    def npm(pins: list[CLIPin | ToolPin], target: Path) -> None:
        assert target == tmp_path
        installed.append([p.spec for p in pins])

    monkeypatch.setattr(install, "_npm_install", npm)
    install.install_clis(["codex"])
    assert installed == [[PINS["codex"].spec, ORACLE.spec, "@zed-industries/codex-acp@0.16.0"]]
    assert [a.name for a in ACP_ADAPTERS] == ["codex-acp"]
    assert not set(PINS) & {a.name for a in ACP_ADAPTERS}  # an adapter is not a provider
    assert pinned_executable(ACP_ADAPTERS[0]) == tmp_path / "node_modules/.bin/codex-acp"


def test_the_kernel_settings_do_not_reach_the_cli_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PYTHONPATH", "/kernel/site-packages")
    monkeypatch.setenv("VIRTUAL_ENV", "/kernel")
    env = install.isolated_env()
    assert "PYTHONPATH" not in env and "VIRTUAL_ENV" not in env
