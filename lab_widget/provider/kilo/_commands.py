"""The slash commands a Kilo run offers: Kilo's pinned builtins, and custom Markdown commands
found as OpenCode finds them, in Kilo's folders (``.kilo/command(s)`` in the run's folder,
``$XDG_CONFIG_HOME/kilo/command(s)`` for the user's own).
"""

from __future__ import annotations

from pathlib import Path

from ...schema import CommandSpec
from ..kit import builtin_table, command_table
from ..opencode import BUILTIN_COMMANDS as OPENCODE_BUILTINS
from ..opencode import CURATED_OUT as OPENCODE_CURATED_OUT
from ..opencode import family_catalog, family_sources
from . import _compat

__all__ = ["BUILTIN_COMMANDS", "CURATED_OUT", "catalog", "command_sources"]

_OWN = command_table(__package__, _compat.CLEAR_COMMAND)
"""Kilo's rows that OpenCode's menu does not have, or words its own way (``commands.toml``);
every other row of OpenCode's menu is in Kilo's as it is."""

CURATED_OUT = {**OPENCODE_CURATED_OUT, **_OWN.curated_out}
"""Builtins a chat must not offer, each with why: Kilo's own, and OpenCode's (every one of
them is in Kilo's menu too, for the same reason)."""

_ROWS = {c.name: (c.name, c.description, c.arg_hint) for c in (*OPENCODE_BUILTINS, *_OWN.builtins)}

BUILTIN_COMMANDS = builtin_table(_compat.CLEAR_COMMAND, CURATED_OUT, *sorted(_ROWS.values()))
"""The pinned TUI's ``/`` menu once a session exists, in its order (by name): OpenCode's
rows with Kilo's own over them (``commands.toml`` says where they came from)."""


def catalog(cwd: Path) -> list[CommandSpec]:
    """The builtins (chat-unsafe ones marked) and the custom Markdown commands; a builtin
    keeps its name.
    """
    return family_catalog(_compat.KILO, BUILTIN_COMMANDS, cwd)


def command_sources(cwd: Path) -> list[Path]:
    """The folders whose ``.md`` files define commands (user first, then project)."""
    return family_sources(_compat.KILO, cwd)
