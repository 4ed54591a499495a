"""Claude Code: the adapter for Anthropic's agent CLI."""

from ._provider import ClaudeCodeProvider
from ._transcript import ClaudeTranscriptReader, project_slug

__all__ = ["ClaudeCodeProvider", "ClaudeTranscriptReader", "project_slug"]
