"""The slash commands a Mistral Vibe run offers: its pinned builtins, each curated out of the
chat with its reason where it would strand the TUI in a picker or act outside the run.

Vibe 3.0.2's own prompts (``.vibe/prompts/*.md``) and skills are not slash commands it
lists: skills are invoked by name in the prompt. So the catalog is the builtin table, and no
folder defines commands: ``BUILTIN_COMMANDS`` as Vibe's bundled skill lists them and
``CURATED_OUT``, read from ``commands.toml``.
"""

from __future__ import annotations

from ..kit import command_table
from . import _compat

__all__ = ["BUILTIN_COMMANDS", "CURATED_OUT", "catalog", "command_sources"]

_TABLE = command_table(__package__, _compat.CLEAR_COMMAND)
BUILTIN_COMMANDS, CURATED_OUT = _TABLE.builtins, _TABLE.curated_out

catalog = _TABLE.catalog
command_sources = _TABLE.command_sources
