"""A deterministic model server for running real agent CLIs offline."""

from ._script import ApiError, Reply, Rule, Script, Thinking, ToolUse
from ._server import RecordedRequest, ScriptedModel

__all__ = [
    "ApiError",
    "RecordedRequest",
    "Reply",
    "Rule",
    "Script",
    "ScriptedModel",
    "Thinking",
    "ToolUse",
]
