"""The slash commands a run of the new CLI offers: its pinned builtins (each curated out of
the chat with its reason where it would strand the TUI in a picker), merged with the custom
commands found where the CLI itself looks for them (``kit.merge_commands``).

The builtin table is data, not code: ``commands.toml`` in this package holds the pinned
version it was taken from, the rows in the TUI's menu order, the ``[chat_unsafe]`` reasons
and, in its comments, the evidence; ``kit.command_table`` reads it into ``BUILTIN_COMMANDS``
and ``CURATED_OUT``.
"""

from __future__ import annotations

from pathlib import Path

from ...schema import CommandSpec
from ..kit import command_table
from . import _compat
from ._compat import todo

__all__ = ["BUILTIN_COMMANDS", "CURATED_OUT", "catalog", "command_sources"]

_TABLE = command_table(__package__, _compat.CLEAR_COMMAND)
BUILTIN_COMMANDS, CURATED_OUT = _TABLE.builtins, _TABLE.curated_out


def catalog(cwd: Path) -> list[CommandSpec]:
    """The builtins and the custom commands of a run in ``cwd``."""
    raise todo(
        "_commands.py catalog",
        "the pinned builtin table (commands.toml, read into BUILTIN_COMMANDS; its clear "
        "command among them) merged with the CLI's custom commands",
    )


def command_sources(cwd: Path) -> list[Path]:
    """The folders whose files define commands (none until the CLI's are named)."""
    return []
