"""The slash commands a Gemini CLI run offers: pinned builtins and custom TOML commands.

Custom commands are ``.toml`` files under ``.gemini/commands`` in the run's folder
(project) and in the user's global dir (user); a file ``a/b.toml`` is ``/a:b``. A project
command of the same name as a user one wins. The builtins (``BUILTIN_COMMANDS``, as
``BuiltinCommandLoader`` registers them) and ``CURATED_OUT`` are read from ``commands.toml``.
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
    """The folders whose ``.toml`` files define commands (user first, then project)."""
    return [user_dir() / "commands", Path(cwd) / _compat.CUSTOM_COMMANDS_DIR]


def catalog(cwd: Path) -> list[CommandSpec]:
    """The builtins (chat-unsafe ones marked) and the custom commands.

    Examples
    --------
    >>> specs = {c.name: c for c in catalog(Path("/nonexistent"))}
    >>> specs["/clear"].role, specs["/model"].chat_safe
    ('clear', False)
    """
    return toml_catalog(BUILTIN_COMMANDS, *command_sources(cwd))
