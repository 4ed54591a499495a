"""The benchmarks are run on demand, not in the suite: this keeps them importable, so a
moved helper or a renamed module fails here instead of the next time someone runs
``make bench``."""

from __future__ import annotations

import subprocess
import sys

from tests.support.paths import ROOT


def test_every_benchmark_module_imports_and_the_runner_lists_its_sections() -> None:
    modules = sorted(p.stem for p in (ROOT / "bench").glob("*.py"))
    code = "import sys; sys.path.insert(0, 'bench'); " + "; ".join(
        f"import {name}" for name in modules
    )
    imported = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert imported.returncode == 0, imported.stderr[-2000:]
    listed = subprocess.run(
        [sys.executable, "bench/run.py", "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert listed.returncode == 0, listed.stderr[-2000:]
    assert "round-trip" in listed.stdout
