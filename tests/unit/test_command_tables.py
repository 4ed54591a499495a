"""Unit: each provider's pinned builtin command table (its package's ``commands.toml``) and
the kit loader that reads it (``kit.command_table``)."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

import lab_widget.provider
from lab_widget.errors import CommandTableError
from lab_widget.provider.kit import command_table

PROVIDERS = Path(lab_widget.provider.__file__).parent
COMMAND_TABLE = "commands.toml"
PACKAGES = sorted(p.parent.name for p in PROVIDERS.glob("*/_commands.py"))


def test_every_provider_package_ships_its_table() -> None:
    assert "codex" in PACKAGES and "_template" in PACKAGES
    missing = [name for name in PACKAGES if not (PROVIDERS / name / COMMAND_TABLE).is_file()]
    assert missing == []


@pytest.mark.parametrize("name", PACKAGES)
def test_the_table_is_taken_from_the_pinned_version(name: str) -> None:
    compat = importlib.import_module(f"lab_widget.provider.{name}._compat")
    table = command_table(f"lab_widget.provider.{name}", compat.CLEAR_COMMAND)
    assert table.version == compat.VERSION


@pytest.mark.parametrize("name", PACKAGES)
def test_the_module_offers_what_its_table_holds(name: str) -> None:
    compat = importlib.import_module(f"lab_widget.provider.{name}._compat")
    commands = importlib.import_module(f"lab_widget.provider.{name}._commands")
    table = command_table(f"lab_widget.provider.{name}", compat.CLEAR_COMMAND)
    offered = {c.name: c for c in commands.BUILTIN_COMMANDS}
    assert set(table.curated_out) <= set(commands.CURATED_OUT)
    for spec in table.builtins:
        assert spec.name in offered, spec.name
        assert offered[spec.name].chat_safe is (spec.name not in commands.CURATED_OUT)
    clears = [c.name for c in commands.BUILTIN_COMMANDS if c.role == "clear"]
    assert clears == ([compat.CLEAR_COMMAND] if offered else [])


GOOD = """
version = "1.2.3"
builtins = [["/new", "Start over"], ["/vim", "Vim mode", "[on|off]"]]

[chat_unsafe]
"/vim" = "only changes how the terminal edits text"
"""


def write_package(root: Path, monkeypatch: pytest.MonkeyPatch, text: str | None) -> str:
    """A package ``tablepkg_<n>`` on the path, with ``text`` as its table (none if None)."""
    name = f"tablepkg_{abs(hash((str(root), text)))}"
    folder = root / name
    folder.mkdir()
    (folder / "__init__.py").write_text("")
    if text is not None:
        (folder / COMMAND_TABLE).write_text(text)
    monkeypatch.syspath_prepend(str(root))
    return name


def test_a_good_table_reads_in_menu_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    table = command_table(write_package(tmp_path, monkeypatch, GOOD), "/new")
    assert table.version == "1.2.3"
    assert [(c.name, c.role, c.chat_safe, c.arg_hint) for c in table.builtins] == [
        ("/new", "clear", True, ""),
        ("/vim", None, False, "[on|off]"),
    ]
    assert dict(table.curated_out) == {"/vim": "only changes how the terminal edits text"}
    with pytest.raises(TypeError):
        table.curated_out["/new"] = "x"  # type: ignore[index]


@pytest.mark.parametrize(
    ("text", "says"),
    [
        (None, "cannot be read"),
        ("version = ", "is not valid TOML"),
        (GOOD.replace('version = "1.2.3"', ""), "the keys must be exactly"),
        ("extra = 1\n" + GOOD, "the keys must be exactly"),
        (GOOD.replace('"1.2.3"', "1"), "version must be"),
        (GOOD.replace('"1.2.3"', '""'), "version must be"),
        (
            GOOD.replace('[["/new", "Start over"], ["/vim", "Vim mode", "[on|off]"]]', '"x"'),
            "an array",
        ),
        (GOOD.replace('["/new", "Start over"]', '["/new"]'), "is not"),
        (GOOD.replace('["/new", "Start over"]', '["/new", 1]'), "is not"),
        (GOOD.replace('"/new", "Start over"', '"new", "Start over"'), "does not name"),
        (GOOD.replace('"/new", "Start over"', '"/n w", "Start over"'), "does not name"),
        (GOOD.replace('"/new", "Start over"', '"/vim", "Start over"'), "listed twice"),
        (GOOD.replace('"/vim" =', '"/gone" ='), "which builtins lacks"),
        (GOOD.replace('"only changes', '"""only\nchanges').replace('text"', 'text"""'), "one line"),
        (GOOD.replace('"only changes how the terminal edits text"', '""'), "one line"),
    ],
)
def test_a_malformed_table_is_a_typed_error_naming_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str | None, says: str
) -> None:
    package = write_package(tmp_path, monkeypatch, text)
    with pytest.raises(CommandTableError, match=says) as caught:
        command_table(package, "/new")
    assert f"{package}/{COMMAND_TABLE}" in str(caught.value)
    assert isinstance(caught.value, ValueError)


def test_a_package_that_does_not_exist_is_a_typed_error() -> None:
    with pytest.raises(CommandTableError, match="cannot be read"):
        command_table("lab_widget.provider.no_such_provider", "/new")


@pytest.mark.parametrize(
    ("name", "clear", "unsafe", "safe"),
    [
        ("codex", "/new", "/model", "/compact"),
        ("copilot", "/clear", "/model", "/compact"),
        ("mistral_vibe", "/clear", "/model", "/compact"),
    ],
)
def test_a_builtins_only_cli_offers_its_table_and_reads_no_folder(
    name: str, clear: str, unsafe: str, safe: str, tmp_path: Path
) -> None:
    commands = importlib.import_module(f"lab_widget.provider.{name}._commands")
    (tmp_path / ".claude" / "commands").mkdir(parents=True)
    (tmp_path / ".claude" / "commands" / "mine.md").write_text("a custom command")
    specs = commands.catalog(tmp_path)
    assert specs == list(commands.BUILTIN_COMMANDS)
    assert commands.command_sources(tmp_path) == []
    by_name = {c.name: c for c in specs}
    assert by_name[clear].role == "clear"
    assert (by_name[unsafe].chat_safe, by_name[safe].chat_safe) == (False, True)
