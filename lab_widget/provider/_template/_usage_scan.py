"""A session's tokens without its messages: the usage-only fast path for history and
session summaries over many sessions.

Where the CLI's files let the API responses be counted without building messages, scan
them here and test the scan equal to the reader's summary on every fixture of every version
(``tests/unit/providers/<id>/test_usage_scan.py``). Where they do not, delete this module
and the provider's ``usage_summary``: the seam's default reads the transcript whole.
"""

from __future__ import annotations

from ...schema import SessionSummary
from .. import TranscriptRef
from ._compat import todo

__all__ = ["usage_summary"]


def usage_summary(ref: TranscriptRef) -> SessionSummary:
    """The session's usage and models, equal to its reader's summary."""
    raise todo(
        "_usage_scan.py usage_summary",
        "the session's tokens counted from its files without building messages",
    )
