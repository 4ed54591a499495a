"""The slash commands a Copilot CLI run offers: its pinned builtins, each curated out of the
chat with its reason where it would strand the TUI in a picker or act outside the run.

Copilot CLI 1.0.102 has no custom slash commands of its own: its skills
(``.github/skills/``) and agents come in through ``/skills`` and ``/agent``, pickers the chat
curates out. So the catalog is the builtin table (``BUILTIN_COMMANDS``, as ``copilot help
commands`` lists them, and ``CURATED_OUT``, both read from ``commands.toml``), and no folder
defines commands.
"""

from __future__ import annotations

from ..kit import command_table
from . import _compat

__all__ = ["BUILTIN_COMMANDS", "CURATED_OUT", "catalog", "command_sources"]

_TABLE = command_table(__package__, _compat.CLEAR_COMMAND)
BUILTIN_COMMANDS, CURATED_OUT = _TABLE.builtins, _TABLE.curated_out

catalog = _TABLE.catalog
command_sources = _TABLE.command_sources
