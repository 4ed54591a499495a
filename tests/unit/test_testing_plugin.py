"""Unit: pytest finds the lab_widget.testing fixtures in a fresh project that only installed the
package. The project is a throwaway folder with one test file and no conftest; the package is
"installed" as pip leaves it: its modules importable and its distribution's metadata carrying
the entry points ``pyproject.toml`` declares (written here from that file, so a wrong
declaration fails this test)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

from lab_widget._version import __version__
from tests.support.paths import ROOT
from tests.support.users_project import USERS_TESTS


def installed_metadata(site: Path) -> None:
    """The distribution's metadata as an install writes it, from ``pyproject.toml``."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    info = site / f"lab_widget-{__version__}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {__version__}\n"
    )
    groups = project.get("entry-points", {})
    (info / "entry_points.txt").write_text(
        "".join(
            f"[{group}]\n" + "".join(f"{name} = {target}\n" for name, target in eps.items())
            for group, eps in groups.items()
        )
    )


def users_pytest(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """pytest in a fresh project that only installed the package."""
    project = tmp_path / "project"
    if not project.exists():
        project.mkdir()
        (project / "test_agents.py").write_text(textwrap.dedent(USERS_TESTS))
        installed_metadata(tmp_path / "site")
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("PYTEST_") and k not in {"PYTHONPATH", "COV_CORE_SOURCE"}
    }
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path / "site"), str(ROOT)])
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--strict-markers", *args],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_pytest_finds_the_fixtures_in_a_fresh_project(tmp_path: Path) -> None:
    listed = users_pytest(tmp_path, "--fixtures")
    assert listed.returncode == 0, listed.stdout + listed.stderr
    assert "fixtures defined from lab_widget.testing" in listed.stdout
    for name in ("lab_home", "scripted_model", "agent_run"):
        assert f"\n{name} -- " in listed.stdout, listed.stdout

    ran = users_pytest(tmp_path, "-q")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "4 passed" in ran.stdout, ran.stdout


def test_the_fixtures_come_from_the_entry_point(tmp_path: Path) -> None:
    without = users_pytest(tmp_path, "-q", "-p", "no:lab_widget.testing")
    assert without.returncode != 0  # the marker is the plugin's, like the fixtures
    assert "'scripted_model' not found in `markers`" in without.stdout, without.stdout
