"""The new CLI's live signals, if it has a verified structured channel beside its transcript
(a hook spool, ``kit.HookSignals``; an embedded server): pending dialogs and blocked reasons.

A provider without one leaves ``live_signals`` unset; its blocked states then show as
``needs_input`` with the attach command.
"""

from __future__ import annotations

from ... import provider as kit
from ...schema import Dialog
from ._compat import todo

__all__ = ["CopilotSignals"]


class CopilotSignals(kit.HookSignals):
    """Hook records spooled per run (see ``_compat``)."""

    def pending_dialog(self, context: kit.RunContext) -> Dialog | None:
        raise todo("_signals.py pending_dialog", "the dialog the agent waits on, from the records")

    def blocked(self, context: kit.RunContext) -> str | None:
        raise todo("_signals.py blocked", "why the agent waits on something no dialog answers")
