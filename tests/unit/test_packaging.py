"""Packaging: one list of front-end bundles that the build script, the Makefile, the
package build and the widget classes agree on (the wheel built from a clean tree is in
``tests/live/test_packaging.py``)."""

from __future__ import annotations

import shutil
import subprocess
import tomllib

import pytest

import lab_widget._widgets  # noqa: F401 - defines every widget class
from lab_widget._widgets._base import BundledWidget
from tests.support.bundles import BUNDLES, OUTPUTS
from tests.support.paths import ROOT


def test_every_bundle_has_an_entry_point_and_a_widget_that_serves_it() -> None:
    assert BUNDLES, "js/bundles.json lists no bundle"
    for name, entry in BUNDLES.items():
        assert (ROOT / "js" / entry).is_file(), f"{name}: no entry point {entry}"

    def subclasses(cls: type[BundledWidget]) -> list[type[BundledWidget]]:
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
