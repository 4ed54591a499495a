"""The slash commands a Qwen Code run offers: pinned builtins and custom TOML commands
(Gemini CLI's layout under ``.qwen/commands``, read by ``kit.toml_commands``). The
builtins with a fixed description (``BUILTIN_COMMANDS``) and those curated out of the chat
(``CURATED_OUT``) are read from ``commands.toml``.
"""

from __future__ import annotations

from pathlib import Path

from ...schema import CommandSpec
from ..kit import command_table, toml_catalog
from . import _compat
from ._config import user_dir

__all__ = ["BUILTIN_COMMANDS", "CURATED_OUT", "catalog", "command_sources"]

_TABLE = command_table(__package__, _compat.CLEAR_COMMAND)
BUILTIN_COMMANDS, CURATED_OUT = _TABLE.builtins, _TABLE.curated_out


def command_sources(cwd: Path) -> list[Path]:
    """Where ``.toml`` commands are read: the user's ``~/.qwen/commands``, then the
    project's ``.qwen/commands``.
    """
    return [user_dir() / "commands", Path(cwd) / _compat.CUSTOM_COMMANDS_DIR]


def catalog(cwd: Path) -> list[CommandSpec]:
    """Qwen Code's builtins, chat-unsafe ones marked, then its custom commands.

    Examples
    --------
    >>> specs = {c.name: c for c in catalog(Path("/nonexistent"))}
    >>> specs["/clear"].role, specs["/model"].chat_safe, specs["/compress"].chat_safe
    ('clear', False, True)
    """
    return toml_catalog(BUILTIN_COMMANDS, *command_sources(cwd))
