"""The slash commands a Codex run offers: the pinned builtins.

Codex 0.171.0 has no file-defined slash commands: custom prompts (``~/.codex/prompts``)
were removed in 0.117 and nothing in 0.171.0 reads that folder; presets live in the TUI's
own settings, and skills are invoked with ``$name`` or the ``/skills`` picker, not as slash
commands. So the catalog is the pinned builtin table alone: ``BUILTIN_COMMANDS`` in the
order of the TUI's own ``/`` menu, and ``CURATED_OUT``, what the chat must not offer and why,
both read from ``commands.toml`` (which says how the menu was walked and the rest judged).
"""

from __future__ import annotations

from ..kit import command_table
from . import _compat

__all__ = ["BUILTIN_COMMANDS", "CURATED_OUT", "catalog", "command_sources"]

_TABLE = command_table(__package__, _compat.CLEAR_COMMAND)
BUILTIN_COMMANDS, CURATED_OUT = _TABLE.builtins, _TABLE.curated_out

catalog = _TABLE.catalog
command_sources = _TABLE.command_sources
