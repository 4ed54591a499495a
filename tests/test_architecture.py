"""Unit: layering rules the design pins."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import lab_widget
from lab_widget.compat import PINS
from lab_widget.provider import get_provider, provider_ids

PACKAGE = Path(lab_widget.__file__).parent
PROVIDERS = PACKAGE / "provider"
CONCRETE = sorted(
    p.name for p in PROVIDERS.iterdir() if p.is_dir() and (p / "__init__.py").exists()
)


def core_modules() -> list[Path]:
    return [
        p
        for p in PACKAGE.rglob("*.py")
        if not any(p.is_relative_to(PROVIDERS / name) for name in CONCRETE)
    ]


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    package = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts[:-1])
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, base]) if base else ".".join(parts)
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


def test_there_is_at_least_one_concrete_provider() -> None:
    assert "claude_code" in CONCRETE


def test_core_never_imports_a_concrete_provider() -> None:
    offenders = []
    for path in core_modules():
        for module in imported_modules(path):
            for name in CONCRETE:
                if module == f"lab_widget.provider.{name}" or module.startswith(
                    f"lab_widget.provider.{name}."
                ):
                    offenders.append(f"{path.relative_to(PACKAGE)} imports {module}")
    assert offenders == []


def test_the_import_checker_sees_relative_imports(tmp_path: Path) -> None:
    # A sanity check so the guard above can never go blind.
    probe = PACKAGE / "provider" / "_probe_for_test.py"
    probe.write_text("from .claude_code import ClaudeCodeProvider\n")
    try:
        assert "lab_widget.provider.claude_code" in imported_modules(probe)
    finally:
        probe.unlink()


def provider_names() -> list[str]:
    names = {"Claude", "Anthropic", "Codex", "OpenAI", "Gemini", "Google", "OpenCode"}
    names |= {get_provider(p).meta.display_name for p in provider_ids() if p in PINS}
    return sorted(names)


def user_facing_strings(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text())
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


def test_core_user_facing_text_never_names_a_provider() -> None:
    # Provider names reach users only through provider metadata. The registry's import
    # paths and the compat pins (package names) are data, not copy.
    allowed = {PACKAGE / "compat.py", PROVIDERS / "_registry.py"}
    pattern = re.compile("|".join(re.escape(n) for n in provider_names()), re.IGNORECASE)
    offenders = [
        f"{path.relative_to(PACKAGE)}:{line}: {text!r}"
        for path in core_modules()
        if path not in allowed
        for line, text in user_facing_strings(path)
        if pattern.search(text)
    ]
    assert offenders == []


def test_every_pinned_provider_that_is_registered_names_its_pin() -> None:
    for provider_id in provider_ids():
        if provider_id in PINS:
            assert get_provider(provider_id).meta.binary == PINS[provider_id].binary


JS_SOURCES = PACKAGE.parent / "js" / "src"
_JS_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.DOTALL)
_JS_STRING = re.compile(r"\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*'|`(?:[^`\\]|\\.)*`")


def js_strings(source: str) -> list[str]:
    """The string and template literals of a TypeScript source, comments removed.

    Comments go first so that an apostrophe in one never opens a string.
    """
    return _JS_STRING.findall(_JS_COMMENT.sub("", source))


def test_the_js_string_scanner_sees_literals() -> None:
    # A sanity check so the guard below can never go blind.
    sample = "// Codex in a comment\nconst a = \"Claude Code\"; h('b', {}, `run ${x} Gemini`);"
    assert js_strings(sample) == ['"Claude Code"', "'b'", "`run ${x} Gemini`"]


def test_js_user_facing_text_never_names_a_provider() -> None:
    # The front end shows provider names only from the traits (provider metadata).
    sources = sorted(JS_SOURCES.glob("*.ts"))
    assert sources, f"no TypeScript sources under {JS_SOURCES}"
    pattern = re.compile("|".join(re.escape(n) for n in provider_names()), re.IGNORECASE)
    offenders = [
        f"{path.name}: {text}"
        for path in sources
        for text in js_strings(path.read_text())
        if pattern.search(text)
    ]
    assert offenders == []
