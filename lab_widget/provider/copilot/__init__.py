"""GitHub Copilot CLI, pinned to 1.0.102 (``docs/compat/copilot.md``): its TUI under tmux,
its session log (``<COPILOT_HOME>/session-state/<id>/events.jsonl``) read into the schema.
"""

from ._provider import CopilotProvider

__all__ = ["CopilotProvider"]
