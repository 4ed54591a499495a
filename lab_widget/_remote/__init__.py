"""Runs on other hosts: the worker, its protocol, the transports and the remote backend.

Nothing is imported here: :class:`~lab_widget.Run` picks
:class:`~lab_widget._remote._backend.RemoteBackend` for ``Run(..., host=...)``.
"""
