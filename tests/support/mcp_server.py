"""A tiny MCP server over stdio for live tests: one tool, ``lookup``, that answers a fixed
line (``lookup: <query> -> found``) and appends each call to the file named by
``LAB_WIDGET_TEST_MCP_LOG`` (if set), so a test can tell whether the tool really ran.

Run as ``python tests/support/mcp_server.py``; it speaks newline-delimited JSON-RPC 2.0 as the MCP
stdio transport does.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

TOOL = "lookup"
SERVER = "labtools"

_TOOLS = [
    {
        "name": TOOL,
        "description": "Look a word up in the lab's glossary.",
        "inputSchema": {
            "type": "object",
            "properties": {"query": {"type": "string", "description": "The word."}},
            "required": ["query"],
        },
    }
]


def _result(request: dict[str, Any]) -> dict[str, Any] | None:
    method = request.get("method")
    params = request.get("params") or {}
    if method == "initialize":
        return {
            "protocolVersion": params.get("protocolVersion", "2024-11-05"),
            "capabilities": {"tools": {}},
            "serverInfo": {"name": SERVER, "version": "1.0.0"},
        }
    if method == "tools/list":
        return {"tools": _TOOLS}
    if method == "tools/call":
        query = str((params.get("arguments") or {}).get("query", ""))
        log = os.environ.get("LAB_WIDGET_TEST_MCP_LOG")
        if log:
            with Path(log).open("a") as f:
                f.write(json.dumps({"tool": params.get("name"), "query": query}) + "\n")
        return {"content": [{"type": "text", "text": f"lookup: {query} -> found"}]}
    if method in ("ping", "resources/list", "prompts/list"):
        return (
            {"resources": []}
            if method == "resources/list"
            else ({"prompts": []} if method == "prompts/list" else {})
        )
    return None


def main() -> None:
    for line in sys.stdin:
        try:
            request = json.loads(line)
        except ValueError:
            continue
        if not isinstance(request, dict) or "id" not in request:
            continue  # a notification: nothing to answer
        result = _result(request)
        if result is None:
            reply = {
                "jsonrpc": "2.0",
                "id": request["id"],
                "error": {"code": -32601, "message": "method not found"},
            }
        else:
            reply = {"jsonrpc": "2.0", "id": request["id"], "result": result}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
