"""A Kilo session's tokens counted without building its messages: OpenCode's scans of the
store's rows, which Kilo keeps in the same shape (``tests/unit/providers/kilo/``).
"""

from __future__ import annotations

from ..opencode import usage_summaries, usage_summary

__all__ = ["usage_summaries", "usage_summary"]
