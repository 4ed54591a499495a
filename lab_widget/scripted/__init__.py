"""A deterministic model server for running real agent CLIs offline."""

from ._script import Reply, Rule, Script, Thinking, ToolUse
from ._server import RecordedRequest, ScriptedModel

__all__ = ["RecordedRequest", "Reply", "Rule", "Script", "ScriptedModel", "Thinking", "ToolUse"]
