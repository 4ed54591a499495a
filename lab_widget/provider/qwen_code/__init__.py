"""Qwen Code behind the provider seam: a fork of Gemini CLI, built on the family's kit base."""

from ._provider import QwenCodeProvider

__all__ = ["QwenCodeProvider"]
