"""Unit: the public surface. Every error and warning the package raises is exported from
``lab_widget.errors`` and ``lab_widget``; every public name is in the API reference."""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import lab_widget
from lab_widget import errors
from tests.support.package import PACKAGE, module_name
from tests.support.syntax import parse_file

ROOT = PACKAGE.parent
API_DOC = ROOT / "docs" / "api.md"

INTERNAL = {
    "FrontmatterError": "a command file's frontmatter that does not parse: caught in the same "
    "module and reported as a CommandFileWarning naming the file",
    "_NotExpandedError": "a kernel variable that must not be described: caught in the same "
    "module and said in the prompt instead of the description",
}
"""Exception classes of the package that never reach a user, and why."""


def dotted(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and (base := dotted(node.value)) is not None:
        return f"{base}.{node.attr}"
    return None


def raised_and_warned(root: Path = PACKAGE) -> dict[str, set[str]]:
    """Class names raised (``raise X(...)``, ``raise X``) or warned (``warnings.warn(...,
    X)``) in each module under ``root`` (the package), by module name."""
    found: dict[str, set[str]] = {}
    for path in sorted(root.rglob("*.py")):
        names: set[str] = set()
        for node in ast.walk(parse_file(path)):
            if isinstance(node, ast.Raise) and node.exc is not None:
                target = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
                if (name := dotted(target)) is not None:
                    names.add(name)
            elif isinstance(node, ast.Call) and dotted(node.func) in ("warnings.warn", "warn"):
                category = node.args[1] if len(node.args) > 1 else None
                for keyword in node.keywords:
                    if keyword.arg == "category":
                        category = keyword.value
                if category is not None and (name := dotted(category)) is not None:
                    names.add(name)
        found[module_name(path) if root == PACKAGE else path.stem] = names
    return found


def resolve(module: object, name: str) -> object:
    value = module
    for part in name.split("."):
        value = getattr(value, part, None)
    return value


def test_the_scanner_sees_raises_and_warnings(tmp_path: Path) -> None:
    # A sanity check so the guard below can never go blind. The probe stays out of the
    # package: other tests read the package's files at the same time.
    (tmp_path / "probe.py").write_text(
        "import warnings\n"
        "def f():\n"
        "    raise errors.TmuxError('x')\n"
        "def g():\n"
        "    warnings.warn('y', AnswerMismatchWarning, stacklevel=2)\n"
        "    raise LookupError\n"
    )
    names = raised_and_warned(tmp_path)["probe"]
    assert names == {"errors.TmuxError", "AnswerMismatchWarning", "LookupError"}


def test_every_error_the_package_raises_is_exported() -> None:
    missing = []
    for module_name_, names in raised_and_warned().items():
        module = importlib.import_module(module_name_)
        for name in sorted(names):
            cls = resolve(module, name)
            if not (isinstance(cls, type) and issubclass(cls, BaseException)):
                continue  # a variable holding an instance (a re-raise), resolved elsewhere
            if not cls.__module__.startswith("lab_widget") or cls.__name__ in INTERNAL:
                continue  # Python's own and third-party classes (IPython's UsageError)
            short = cls.__name__
            if getattr(errors, short, None) is not cls or short not in errors.__all__:
                missing.append(f"{module_name_}: {short} is not in lab_widget.errors")
            if getattr(lab_widget, short, None) is not cls or short not in lab_widget.__all__:
                missing.append(f"{module_name_}: {short} is not exported by lab_widget")
    assert missing == []


def test_every_class_of_the_errors_module_is_exported_from_the_package() -> None:
    assert sorted(set(errors.__all__) - set(lab_widget.__all__)) == []
    for name in errors.__all__:
        assert getattr(lab_widget, name) is getattr(errors, name)


_DIRECTIVE = re.compile(r"^\.\. (auto\w+):: (\S+)(.*?)(?=^\.\. |\Z)", re.MULTILINE | re.DOTALL)


def documented() -> set[str]:
    """The public names of ``lab_widget`` the API reference documents: directly
    (``.. autoclass:: lab_widget.Run``), or as a member of a module it documents with
    ``:members:`` (``.. automodule:: lab_widget.errors``)."""
    names: set[str] = set()
    for kind, target, options in _DIRECTIVE.findall(API_DOC.read_text()):
        if target.startswith("lab_widget.") and target.count(".") == 1:
            names.add(target.removeprefix("lab_widget."))
        if kind == "automodule" and ":members:" in options and ":no-members:" not in options:
            module = importlib.import_module(target)
            excluded = re.search(r":exclude-members:(.*)", options)
            skip = {n.strip() for n in excluded.group(1).split(",")} if excluded else set()
            for name in getattr(module, "__all__", []):
                value = getattr(module, name)
                if name not in skip and getattr(lab_widget, name, None) is value:
                    names.add(name)
    return names


def test_the_documentation_scanner_reads_directives_and_module_members() -> None:
    found = documented()
    assert {"Run", "runs", "schema"} <= found  # direct
    assert "TmuxError" in found  # a member of lab_widget.errors


def test_every_public_name_is_in_the_api_reference() -> None:
    assert sorted(set(lab_widget.__all__) - documented()) == []
