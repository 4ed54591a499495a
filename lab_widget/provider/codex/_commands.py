"""The slash commands a Codex run offers: the pinned builtins.

Codex 0.171.0 has no file-defined slash commands: custom prompts (``~/.codex/prompts``)
were removed in 0.117 and nothing in 0.171.0 reads that folder; presets live in the TUI's
own settings, and skills are invoked with ``$name`` or the ``/skills`` picker, not as slash
commands. So the catalog is the pinned builtin table alone.
"""

from __future__ import annotations

from pathlib import Path

from ...schema import CommandSpec
from . import _compat

__all__ = ["catalog", "command_sources"]


def catalog(cwd: Path) -> list[CommandSpec]:
    """The builtins, chat-unsafe ones marked (``chat_safe=False``).

    Examples
    --------
    >>> specs = {c.name: c for c in catalog(Path("."))}
    >>> specs["/new"].role, specs["/model"].chat_safe
    ('clear', False)
    """
    return list(_compat.BUILTIN_COMMANDS)


def command_sources(cwd: Path) -> list[Path]:
    """No folder defines Codex commands."""
    return []
