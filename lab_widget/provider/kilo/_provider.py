"""Kilo Code CLI behind the seam: OpenCode's provider with Kilo's names and pins.

Everything Kilo does as OpenCode does (spawn with an isolated home and a port for the
embedded server, the SQLite store and its reader, readiness, the confirmed submit, the
permission requests answered through the server, ``/new`` epochs) is inherited; this class
only says which CLI it is: its ``meta``, its pins (``_compat``), its builtins
(``_commands``) and its names (:data:`~._compat.KILO`).
"""

from __future__ import annotations

from typing import ClassVar

from ...schema import ProviderCapabilities
from .. import ProviderMeta
from ..opencode import OpenCodeFamily, OpenCodeProvider
from . import _commands, _compat
from ._signals import KiloSignals

__all__ = ["KiloProvider"]


class KiloProvider(OpenCodeProvider):
    """Kilo Code CLI, pinned to the version in :data:`lab_widget.compat.PINS`."""

    meta = ProviderMeta(
        id="kilo", display_name="Kilo Code", binary="kilo", clear_command=_compat.CLEAR_COMMAND
    )
    live_signals = KiloSignals()
    couplings = _compat
    commands_from = _commands
    declared = ProviderCapabilities(
        dialog_kinds=list(_compat.DIALOG_KINDS), model_selection=True, tool_servers=True
    )
    family: ClassVar[OpenCodeFamily] = _compat.KILO
