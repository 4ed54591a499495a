"""The new CLI's dialogs: its permission prompt (``kit.approval_dialog``), questions or plan
approvals as the live signals or the transcript show them. The keys that answer a prompt are
``_compat.APPROVAL``; a CLI with a reply endpoint answers there instead.
"""

from __future__ import annotations

from typing import Any

from ...schema import Dialog
from ._compat import todo

__all__ = ["approval_dialog"]


def approval_dialog(signal: Any) -> Dialog:
    """The permission prompt a live signal reports, as a dialog."""
    raise todo("_dialogs.py approval_dialog", "the prompt's question, options and body")
