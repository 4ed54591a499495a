"""The runs dashboard; it lives in :mod:`lab_widget._widgets._dashboard`."""

from ._widgets._dashboard import RunList, RunsDashboard, RunsTable

__all__ = ["RunList", "RunsDashboard", "RunsTable"]
