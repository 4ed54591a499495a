"""Packaging: one list of front-end bundles that the build script, the Makefile, the
package build and the widget classes agree on, and a clean tree builds a wheel with every
bundle and the typing marker."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

import lab_widget._widgets  # noqa: F401 - defines every widget class
from lab_widget._widgets._base import BundledWidget
from tests.support.paths import ROOT

BUNDLES: dict[str, str] = json.loads((ROOT / "js" / "bundles.json").read_text())
OUTPUTS = sorted(f"lab_widget/static/{name}.{ext}" for name in BUNDLES for ext in ("js", "css"))


def test_every_bundle_has_an_entry_point_and_a_widget_that_serves_it() -> None:
    assert BUNDLES, "js/bundles.json lists no bundle"
    for name, entry in BUNDLES.items():
        assert (ROOT / "js" / entry).is_file(), f"{name}: no entry point {entry}"

    def subclasses(cls: type) -> list[type]:
        return [c for sub in cls.__subclasses__() for c in [sub, *subclasses(sub)]]

    served = {c.bundle for c in subclasses(BundledWidget) if c.__module__.startswith("lab_widget")}
    assert served == set(BUNDLES)


def test_the_package_build_ensures_exactly_the_listed_bundles() -> None:
    hook = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["hatch"]["build"]
    builder = hook["hooks"]["jupyter-builder"]
    assert sorted(builder["ensured-targets"]) == OUTPUTS
    assert sorted(builder["skip-if-exists"]) == OUTPUTS


def test_the_makefile_derives_its_bundles_from_the_list() -> None:
    if shutil.which("make") is None:
        pytest.fail("make is needed: run `make setup` (scripts/setup-system.sh)")
    printed = subprocess.run(
        ["make", "-s", "--no-print-directory", "-f", "Makefile", "-f", "-", "print-bundle"],
        input="print-bundle:\n\t@echo $(BUNDLE)\n",
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout.split()
    assert sorted(printed) == OUTPUTS


@pytest.mark.live
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
