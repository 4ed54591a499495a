"""Kilo's live signals: OpenCode's (the permission requests its embedded server holds),
asked with the run's login and worded with Kilo's name.
"""

from __future__ import annotations

from ..opencode import OpenCodeSignals
from ._compat import KILO

__all__ = ["KiloSignals"]


class KiloSignals(OpenCodeSignals):
    """Pending permission requests of a Kilo run's server."""

    def __init__(self) -> None:
        super().__init__(KILO)
