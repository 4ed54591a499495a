"""The slash commands a run of the new CLI offers: its pinned builtins (each curated out of
the chat with its reason where it would strand the TUI in a picker), merged with the custom
commands found where the CLI itself looks for them (``kit.merge_commands``).
"""

from __future__ import annotations

from pathlib import Path

from ...schema import CommandSpec
from ._compat import todo

__all__ = ["BUILTIN_COMMANDS", "CURATED_OUT", "catalog", "command_sources"]

CURATED_OUT: dict[str, str] = {}
"""Builtins a chat must not offer, each with why."""

BUILTIN_COMMANDS: tuple[CommandSpec, ...] = ()
"""Every builtin the pinned TUI offers, in the order of its own ``/`` menu."""


def catalog(cwd: Path) -> list[CommandSpec]:
    """The builtins and the custom commands of a run in ``cwd``."""
    raise todo(
        "_commands.py catalog",
        "the pinned builtin table (kit.builtin_table; its clear command among them) "
        "merged with the CLI's custom commands",
    )


def command_sources(cwd: Path) -> list[Path]:
    """The folders whose files define commands (none until the CLI's are named)."""
    return []
