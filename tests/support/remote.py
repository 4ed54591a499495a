"""Helpers for runs on other hosts: a local worker host, waiting for a connection."""

from __future__ import annotations

import sys
from pathlib import Path

from lab_widget import Host, LocalHost
from lab_widget._remote import _connection

from .paths import ROOT

FAKE = {"fake": "tests.support.fake_provider:FakeProvider"}
"""The fake provider, registered in workers the tests start."""


def local_host(lab_home: Path, **env: str) -> LocalHost:
    """A worker on this machine, as a subprocess, on the test's lab home."""
    return LocalHost(
        python=sys.executable,
        env={"LAB_WIDGET_HOME": str(lab_home), "PYTHONPATH": str(ROOT), **env},
        providers=FAKE,
    )


def close_connections() -> None:
    """Let every worker the test started go (their agents are the lab home's to end)."""
    for connection in list(_connection._connections.values()):
        connection.close()


def host_kwargs(host: Host) -> dict[str, object]:
    """An SSH host's arguments, to build the same host again in a notebook."""
    assert hasattr(host, "destination")
    return {
        "destination": host.destination,
        "config": host.config,  # type: ignore[attr-defined]
        "python": host.python,
        "env": dict(host.env),
        "providers": dict(host.providers),
    }
