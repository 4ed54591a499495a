"""Kilo Code CLI behind the provider seam: a fork of OpenCode, run by OpenCode's family code."""

from ._provider import KiloProvider

__all__ = ["KiloProvider"]
