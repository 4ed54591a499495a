"""The package's own source as the structural tests read it: its folder, its modules by name,
core versus the concrete provider adapters, and the strings a module could show users."""

from __future__ import annotations

import ast
from pathlib import Path

import lab_widget
from tests.support.syntax import parse_file

PACKAGE = Path(lab_widget.__file__).parent
PROVIDERS = PACKAGE / "provider"
CONCRETE = sorted(
    p.name for p in PROVIDERS.iterdir() if p.is_dir() and (p / "__init__.py").exists()
)


def core_modules() -> list[Path]:
    """Every module of the package outside the concrete provider adapters."""
    return [
        p
        for p in PACKAGE.rglob("*.py")
        if not any(p.is_relative_to(PROVIDERS / name) for name in CONCRETE)
    ]


def module_name(path: Path, root: Path = PACKAGE) -> str:
    """The dotted name of the module at ``path`` in the package at ``root``."""
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def user_facing_strings(path: Path) -> list[tuple[int, str]]:
    """Every string literal of the module at ``path`` but its docstrings, with its line."""
    tree = parse_file(path)
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
    ]
