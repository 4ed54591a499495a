"""The slash commands an OpenCode run offers: pinned builtins and custom Markdown commands
(a fork of OpenCode pins its own builtins and finds its commands in its own folders).

Custom commands are ``.md`` files under ``.opencode/command(s)`` in the run's folder
(project) and under the user's ``$XDG_CONFIG_HOME/opencode/command(s)`` (user), described by
their frontmatter ``description``; a project command of the same name as a user one wins.
``BUILTIN_COMMANDS``, the TUI's ``/`` menu once a session exists, and ``CURATED_OUT``, what
the chat must not offer and why, are read from ``commands.toml``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from ...schema import CommandSpec
from ..kit import command_table, merge_commands
from . import _compat
from ._config import config_home
from ._family import OPENCODE, OpenCodeFamily

__all__ = [
    "BUILTIN_COMMANDS",
    "CURATED_OUT",
    "catalog",
    "command_sources",
    "family_catalog",
    "family_sources",
]

_TABLE = command_table(__package__, _compat.CLEAR_COMMAND)
BUILTIN_COMMANDS, CURATED_OUT = _TABLE.builtins, _TABLE.curated_out


def catalog(cwd: Path) -> list[CommandSpec]:
    """The builtins (chat-unsafe ones marked) and the custom Markdown commands; a builtin
    keeps its name.
    """
    return family_catalog(OPENCODE, BUILTIN_COMMANDS, cwd)


def command_sources(cwd: Path) -> list[Path]:
    """The folders whose ``.md`` files define commands (user first, then project)."""
    return family_sources(OPENCODE, cwd)


def family_catalog(
    family: OpenCodeFamily, builtins: Iterable[CommandSpec], cwd: Path
) -> list[CommandSpec]:
    """A CLI of the family's ``builtins`` and its custom Markdown commands (its folders)."""
    custom = [
        spec
        for source, folders in (
            ("user", [config_home() / d for d in family.user_command_dirs]),
            ("project", [Path(cwd) / d for d in family.command_dirs]),
        )
        for folder in folders
        for spec in _custom_commands(folder, source)
    ]
    return merge_commands(builtins, custom)


def family_sources(family: OpenCodeFamily, cwd: Path) -> list[Path]:
    """The folders whose ``.md`` files define a CLI of the family's commands."""
    return [
        *(config_home() / d for d in family.user_command_dirs),
        *(Path(cwd) / d for d in family.command_dirs),
    ]


_FRONTMATTER = re.compile(r"\A---\s*\n(.*?)\n---\s*\n", re.DOTALL)


def _custom_commands(folder: Path, source: str) -> list[CommandSpec]:
    try:
        files = sorted(folder.rglob("*.md"))
    except OSError:
        return []
    specs = []
    for path in files:
        try:
            text = path.read_text(errors="replace")
        except OSError:
            continue
        description = ""
        match = _FRONTMATTER.match(text)
        if match:
            for line in match.group(1).splitlines():
                key, _, value = line.partition(":")
                if key.strip() == "description":
                    description = value.strip().strip("\"'")
        name = "/" + path.relative_to(folder).with_suffix("").as_posix()
        if " " in name:
            continue
        specs.append(
            CommandSpec(
                name=name,
                description=description or f"{source} command",
                arg_hint="$ARGUMENTS" if "$ARGUMENTS" in text else "",
                source="user" if source == "user" else "project",
            )
        )
    return specs
