"""Live: a clean tree builds a wheel with every front-end bundle and the typing marker (npm
builds the bundles, as a user's ``pip install .`` would), and a project that installed that
wheel finds the pytest fixtures through the entry point it declares."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import textwrap
import zipfile
from pathlib import Path

import pytest

from tests.support.bundles import OUTPUTS
from tests.support.paths import ROOT
from tests.support.users_project import USERS_TESTS


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel built from a clean copy of the tree (what git tracks, nothing built)."""
    tmp_path = tmp_path_factory.mktemp("wheel")
    if shutil.which("npm") is None:
        pytest.fail("npm is needed to build the widget: run `make setup`")
    files = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    tree = tmp_path / "src"
    for name in files:
        source = ROOT / name
        if source.is_file():
            (tree / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, tree / name)
    assert not (tree / "lab_widget" / "static").exists()  # built, never committed
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(tmp_path / "dist"),
            str(tree),
        ],
        check=True,
        capture_output=True,
        timeout=600,
    )
    [built] = (tmp_path / "dist").glob("lab_widget-*.whl")
    return built


def test_wheel_from_a_clean_tree_contains_the_bundle(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    assert "lab_widget/static/widget.js" in names
    assert "lab_widget/static/widget.css" in names
    assert {"lab_widget/static/runs.js", "lab_widget/static/runs.css"} <= set(names)
    assert "lab_widget/static/auth.js" in names
    assert "lab_widget/static/auth.css" in names
    assert set(OUTPUTS) <= set(names)  # every bundle of js/bundles.json
    assert "lab_widget/py.typed" in names  # type checkers read the package's annotations
    js = zipfile.ZipFile(wheel).read("lab_widget/static/widget.js")
    assert b"lw-chat" in js and len(js) > 10_000


def test_a_project_that_installed_the_wheel_finds_the_fixtures(wheel: Path, tmp_path: Path) -> None:
    # A fresh environment with the wheel installed as pip installs it; its dependencies are
    # this environment's (a plain path, so this checkout's editable install stays out).
    env_dir = tmp_path / "env"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env_dir)], check=True)
    python = env_dir / "bin" / "python"
    site = Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    (site / "deps.pth").write_text(sysconfig.get_path("purelib") + "\n")
    # A pure wheel's install is its files unpacked into site-packages, dist-info and entry
    # points included (pip itself would first uninstall this checkout's editable install).
    zipfile.ZipFile(wheel).extractall(site)
    project = tmp_path / "project"
    project.mkdir()
    (project / "test_agents.py").write_text(textwrap.dedent(USERS_TESTS))
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("PYTEST_") and k not in {"PYTHONPATH", "COV_CORE_SOURCE"}
    }
    where = subprocess.run(
        [str(python), "-c", "import lab_widget; print(lab_widget.__file__)"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert where.startswith(str(site)), where  # the installed wheel, not this checkout
    ran = subprocess.run(
        [str(python), "-m", "pytest", "-p", "no:cacheprovider", "--strict-markers", "-q"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "4 passed" in ran.stdout, ran.stdout
