"""How each MCP-capable agent names the kernel server's tools, and how the scripted model
calls them as that agent's real model would (the live and browser kernel tests share these)."""

from __future__ import annotations

import json
from typing import Any

from lab_widget.scripted import ToolUse

__all__ = ["CALLED_IN_CODE", "RUN_PYTHON", "model_call"]

RUN_PYTHON = {
    "claude-code": "mcp__kernel__run_python",
    "codex": "mcp__kernel__run_python",
    "copilot": "kernel-run_python",
    "gemini": "mcp_kernel_run_python",
    "kilo": "kernel_run_python",
    "mistral-vibe": "mcp_kernel.run_python",
    "opencode": "kernel_run_python",
    "qwen-code": "mcp__kernel__run_python",
}
"""Each MCP-capable provider's name for the server's tool, as its CLI offers it."""

CALLED_IN_CODE = {"mistral-vibe": "run_typescript"}
"""Providers whose CLI offers MCP tools to the model only inside a code tool, as
``tools.<group>.<tool>(input)`` in that tool's TypeScript."""


def model_call(provider_id: str, name: str, tool_input: dict[str, Any]) -> ToolUse:
    """The model's call of ``name``, directly or through the provider's code tool."""
    caller = CALLED_IN_CODE.get(provider_id)
    if caller is None:
        return ToolUse(name, tool_input)
    call = f"tools.{name}({json.dumps(tool_input)})"
    return ToolUse(caller, {"code": f"async function main() {{\n  return await {call};\n}}"})
