"""OpenCode behind the provider seam."""

from ._provider import OpenCodeProvider

__all__ = ["OpenCodeProvider"]
