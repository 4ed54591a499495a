"""The check every provider's usage-only scan is held to on its recorded sessions: the
totals, the rows per model and scope, and the model of a full read."""

from __future__ import annotations

from lab_widget.provider import TranscriptRef, get_provider
from lab_widget.schema import SessionSummary

__all__ = ["assert_scan_counts_as_read"]


def assert_scan_counts_as_read(provider_id: str, ref: TranscriptRef) -> SessionSummary:
    """Assert ``ref``'s usage-only summary equals its full read's; return the summary."""
    provider = get_provider(provider_id)
    reader = provider.open_reader(ref)
    reader.read()
    full = reader.summary
    fast = provider.usage_summary(ref)
    assert fast.usage == full.usage
    assert fast.models == full.models
    assert fast.model == full.model
    return fast
