"""Kilo's permission prompt is OpenCode's: the same request on the same server, answered
once, always or rejected through ``POST /permission/{id}/reply`` (the family's dialogs).
Only the scope of "Allow always" names Kilo ("This will allow <permission> until Kilo is
restarted.", read from the 7.7.7 binary): :attr:`OpenCodeFamily.always_scope
<lab_widget.provider.opencode.OpenCodeFamily.always_scope>` of :data:`~._compat.KILO`.
"""

from __future__ import annotations

from ._compat import KILO

__all__ = ["ALWAYS_SCOPE"]

ALWAYS_SCOPE = KILO.always_scope
"""What "Allow always" covers, as Kilo's TUI says it (``{what}`` to fill in)."""
