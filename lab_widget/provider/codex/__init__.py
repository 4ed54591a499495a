"""Codex CLI behind the provider seam."""

from ._provider import CodexProvider

__all__ = ["CodexProvider"]
