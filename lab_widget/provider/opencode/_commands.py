"""The slash commands an OpenCode run offers: pinned builtins and custom Markdown commands.

Custom commands are ``.md`` files under ``.opencode/command(s)`` in the run's folder
(project) and under the user's ``$XDG_CONFIG_HOME/opencode/command(s)`` (user), described by
their frontmatter ``description``; a project command of the same name as a user one wins.
"""

from __future__ import annotations

import re
from pathlib import Path

from ...schema import CommandSpec
from .. import merge_commands
from . import _compat
from ._config import config_home

__all__ = ["catalog", "command_sources"]


def catalog(cwd: Path) -> list[CommandSpec]:
    """The builtins (chat-unsafe ones marked) and the custom Markdown commands; a builtin
    keeps its name.
    """
    custom = [
        spec
        for source, folders in (
            ("user", [config_home() / d for d in _compat.USER_COMMAND_DIRS]),
            ("project", [Path(cwd) / d for d in _compat.COMMAND_DIRS]),
        )
        for folder in folders
        for spec in _custom_commands(folder, source)
    ]
    return merge_commands(_compat.BUILTIN_COMMANDS, custom)


def command_sources(cwd: Path) -> list[Path]:
    """The folders whose ``.md`` files define commands (user first, then project)."""
    return [
        *(config_home() / d for d in _compat.USER_COMMAND_DIRS),
        *(Path(cwd) / d for d in _compat.COMMAND_DIRS),
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
