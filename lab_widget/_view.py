"""The chat view of a run; it lives in :mod:`lab_widget._widgets._view`."""

from ._widgets._view import ChatSource, RunView, _dump

__all__ = ["ChatSource", "RunView", "_dump"]
