"""Claude Code's slash-command catalog: the pinned builtins merged with custom commands
and skills found where the CLI itself looks for them.

Every rule below was checked against the pinned 2.1.332 binary (its headless
``initialize`` answer, its ``/`` menu, and which file's body reached the model when a
name was typed); ``tests/live/claude_code/test_commands.py`` keeps the main ones honest.
``BUILTIN_COMMANDS`` (80 rows in the order of the TUI's own ``/`` menu) and ``CURATED_OUT``
(the builtins that open a picker, form or panel the chat cannot see, each with why) are read
from ``commands.toml``, whose comments say how they were taken from the binary.

Where
    Project definitions live in ``.claude/commands/`` and ``.claude/skills/`` of the
    run's folder and of every folder above it, up to the git repository's root when
    inside one, else up to ``/``; the home folder itself is never a project folder (its
    ``.claude`` is the user's). User definitions live in ``commands/`` and ``skills/`` of
    the user config folder (``$CLAUDE_CONFIG_DIR``, else ``~/.claude``).
Names
    A command is named by its path below ``commands/`` without ``.md`` (lower case only),
    folders joined by ``:`` (``a/b/c.md`` is ``/a:b:c``; hidden folders count too). A
    skill is ``<name>/SKILL.md`` one level down and is named by its folder; its
    frontmatter ``name`` is only a display alias. ``user-invocable: false`` hides either.
Descriptions
    The frontmatter ``description``, else the first non-empty body line without its
    heading marks, cut to :data:`~._compat.DESCRIPTION_LIMIT` characters.
Clashes
    For one name the CLI runs exactly one definition, and the catalog offers that one: a
    user skill, then a project skill, then a user command, then a project command, then
    the builtin; among project folders the one nearest the run's folder wins. Every loser
    is dropped with a :class:`~lab_widget._chat._commands.CommandFileWarning` naming both,
    because a file that hides a builtin (a project ``clear.md`` runs instead of
    ``/clear``) is rarely meant.
Malformed files
    Files that cannot be read, are larger than the CLI's limit, hold binary data or carry
    frontmatter that does not parse are skipped with a ``CommandFileWarning``; a scan
    never raises. (The CLI itself still offers a file whose frontmatter it cannot parse,
    describing it by its first line; the catalog leaves it out so the warning gets
    noticed.)
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from pathlib import Path

from ...errors import CommandFileWarning
from ...schema import CommandSpec
from ..kit import command_table
from . import _compat
from ._command_files import Found, folders, scan

__all__ = [
    "BUILTIN_COMMANDS",
    "CURATED_OUT",
    "HEADLESS_HIDDEN",
    "INTERACTIVE_ONLY",
    "catalog",
    "command_sources",
]

_TABLE = command_table(__package__, _compat.CLEAR_COMMAND)
BUILTIN_COMMANDS, CURATED_OUT = _TABLE.builtins, _TABLE.curated_out


INTERACTIVE_ONLY = frozenset(
    {
        "/add-dir", "/background", "/branch", "/btw", "/bug", "/cd", "/copy", "/diff",
        "/exit", "/export", "/feedback", "/fork", "/help", "/hooks", "/ide", "/keybindings",
        "/login", "/logout", "/memory", "/mobile", "/permissions", "/plan", "/plugin",
        "/powerup", "/radio", "/release-notes", "/resume", "/rewind", "/sandbox",
        "/scroll-speed", "/skills", "/status", "/stickers", "/statusline", "/subtask",
        "/tasks", "/terminal-setup", "/theme", "/tui", "/workflows",
    }
)  # fmt: skip
"""Pinned builtins that the headless ``system/init`` event's ``slash_commands`` omits:
they need the TUI (``claude -p`` does not support them)."""

HEADLESS_HIDDEN = frozenset({"/agents", "/heapdump", "/__remote-workflow", "/workflow-launch-exec"})
"""Names the headless ``slash_commands`` lists that the TUI hides from its menu (removed,
diagnostic or server-only); never offered."""


def command_sources(cwd: Path) -> list[Path]:
    """The folders whose files define the commands of a run in ``cwd``."""
    return [folder.path for folder in folders(cwd)]


def _merge(builtins: Iterable[CommandSpec], found: Iterable[Found]) -> list[CommandSpec]:
    """One command per name: the first found wins, and a found name hides a builtin."""
    winners: dict[str, Found] = {}
    for item in found:
        winner = winners.setdefault(item.spec.name, item)
        if winner is not item:
            warnings.warn(
                f"{item.spec.name}: {winner.label} wins over {item.label}, "
                "as in Claude Code; the second is not offered",
                CommandFileWarning,
                stacklevel=3,
            )
    kept: list[CommandSpec] = []
    for builtin in builtins:
        hider = winners.get(builtin.name)
        if hider is None:
            kept.append(builtin)
            continue
        warnings.warn(
            f"{builtin.name}: {hider.label} hides the builtin {builtin.name}; "
            "Claude Code runs the file instead",
            CommandFileWarning,
            stacklevel=3,
        )
    custom = sorted((w.spec for w in winners.values()), key=lambda s: (s.source, s.name))
    return kept + custom


def catalog(cwd: Path) -> list[CommandSpec]:
    """Every slash command a Claude Code run in ``cwd`` offers.

    The pinned builtins in the TUI's own order, then project commands and skills, then
    user ones, each sorted by name. Never raises for a bad file (see the module notes).
    """
    found = [item for folder in folders(cwd) for item in scan(folder)]
    return _merge(BUILTIN_COMMANDS, found)
