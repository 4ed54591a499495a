"""Live: a clean tree builds a wheel with every front-end bundle and the typing marker (npm
builds the bundles, as a user's ``pip install .`` would)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.support.bundles import OUTPUTS
from tests.support.paths import ROOT


def test_wheel_from_a_clean_tree_contains_the_bundle(tmp_path: Path) -> None:
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
    [wheel] = (tmp_path / "dist").glob("lab_widget-*.whl")
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
