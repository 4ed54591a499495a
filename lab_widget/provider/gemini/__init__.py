"""Gemini CLI behind the provider seam."""

from ._provider import GeminiProvider

__all__ = ["GeminiProvider"]
