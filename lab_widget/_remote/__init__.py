"""Runs on other hosts: the worker, its protocol, the transports and the kernel-side proxy.

Nothing is imported here: `lab_widget` imports `_proxy` (which registers the remote `Run`),
and `_run` imports `_transports` only.
"""
