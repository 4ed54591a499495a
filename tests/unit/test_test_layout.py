"""Unit: test modules stand alone. What tests share lives in ``tests/support/``; a test module
never imports another test module, and no tier reaches into another tier's folder."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.support.paths import ROOT
from tests.support.syntax import parse_file

TESTS = ROOT / "tests"


def _dotted(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_test_modules(path: Path, root: Path = TESTS) -> list[tuple[int, str, bool]]:
    """Every ``tests.*`` name the file at ``path`` imports, relative imports resolved: its
    line, the dotted name, and whether it is a module (rather than a name imported from one,
    which may be a module too: ``from . import test_x``)."""
    package = _dotted(path, root).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    found: list[tuple[int, str, bool]] = []
    for node in ast.walk(parse_file(path)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name, True) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package[: len(package) - node.level + 1]
                base = ".".join([*parts, base]) if base else ".".join(parts)
            found.append((node.lineno, base, True))
            found += [(node.lineno, f"{base}.{alias.name}", False) for alias in node.names]
    return [entry for entry in found if entry[1].split(".")[0] == root.name]


def _offends(name: str, is_module: bool, folder: str, top: str) -> bool:
    if name.rsplit(".", 1)[-1].startswith("test_") or name.endswith(".conftest"):
        return True  # a test module, whoever imports it
    if not is_module or name == top:
        return False
    support = f"{top}.support"
    if name == support or name.startswith(f"{support}."):
        return False
    return name != folder and name.rsplit(".", 1)[0] != folder  # another folder's module


def cross_test_imports(root: Path = TESTS) -> list[str]:
    """Imports that tie test modules together: a test module (``test_*``, ``conftest``)
    imported by anything, or another folder's module imported from outside ``support``."""
    offences = set()
    for path in sorted(root.rglob("*.py")):
        dotted = _dotted(path, root)
        folder = dotted if path.name == "__init__.py" else dotted.rsplit(".", 1)[0]
        for line, name, is_module in imported_test_modules(path, root):
            if _offends(name, is_module, folder, root.name):
                offences.add(f"{path.relative_to(root.parent)}:{line} imports {name}")
    return sorted(offences)


def test_no_test_module_imports_another_test_module_or_tier() -> None:
    assert cross_test_imports() == []


def test_the_checker_sees_a_test_module_and_another_tier_imported(tmp_path: Path) -> None:
    root = tmp_path / "tests"
    (root / "unit").mkdir(parents=True)
    (root / "live").mkdir()
    (root / "support").mkdir()
    for folder in (root, root / "unit", root / "live", root / "support"):
        (folder / "__init__.py").write_text("")
    (root / "unit" / "helpers.py").write_text("")
    (root / "support" / "waiting.py").write_text("")
    (root / "unit" / "test_a.py").write_text(
        "from .helpers import x\nfrom tests.support.waiting import retry_until\n"
    )
    (root / "unit" / "test_b.py").write_text("from .test_a import helper\n")
    (root / "live" / "test_c.py").write_text(
        "from tests.unit.helpers import x\nfrom tests.unit import test_a\nimport tests.unit.test_b\n"
    )
    assert cross_test_imports(root) == [
        "tests/live/test_c.py:1 imports tests.unit.helpers",
        "tests/live/test_c.py:2 imports tests.unit",
        "tests/live/test_c.py:2 imports tests.unit.test_a",
        "tests/live/test_c.py:3 imports tests.unit.test_b",
        "tests/unit/test_b.py:1 imports tests.unit.test_a",
    ]
