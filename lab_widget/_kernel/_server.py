"""The ``kernel`` MCP server: the notebook's live kernel as tools for the agent.

It runs as its own process, started by the agent's CLI over stdio, and reaches the kernel
through the kernel's connection file (:class:`~._link.KernelLink`), so the agent's code runs
on the kernel's main thread, queued behind the user's cells, never in a thread of ours.
Each ``run_python`` is approved by the user first: the CLI asks before every call of it (the
run's configuration says so), and the chat shows that question as its approval dialog.
"""

from __future__ import annotations

import argparse
import ast
import base64
import json
import os
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path

from mcp.server.mcpserver import MCPServer
from mcp_types import CallToolResult, ContentBlock, ImageContent, TextContent, ToolAnnotations

from .._chat._begun import BegunCalls
from ..errors import KernelToolsError
from ..provider import ToolServer
from ._inkernel import expression
from ._link import KernelLink
from ._notebook import cells_text
from ._spec import SERVER_NAME

__all__ = ["build_server", "main"]

DEFAULT_WAIT = 30.0
"""Seconds a call waits for a user's running cell before it gives up (running nothing)."""

DEFAULT_TIMEOUT = 300.0
"""Seconds the output of one ``run_python`` is collected for."""

LIST_VARIABLES = (
    "List the user's variables in the notebook kernel: name, type, and shape or length. "
    "Secret-looking names are listed without details."
)
"""What the agent is told ``list_variables`` does."""

DESCRIBE = (
    "Describe one of the user's variables compactly (a DataFrame's shape, dtypes and first "
    "rows; an array's shape and dtype; a short repr). Secrets are not shown."
)
"""What the agent is told ``describe`` does."""

NOTEBOOK_CELLS = (
    "The cells of the user's notebook as last saved: source, and output text where cheap. "
    "Not available when the kernel serves no notebook (a console)."
)
"""What the agent is told ``notebook_cells`` does."""

_READ_ONLY = ToolAnnotations(read_only_hint=True)


def _text(text: str, *, error: bool = False) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=text)], is_error=error)


def build_server(
    link: KernelLink,
    *,
    notebook: Path | None = None,
    run_id: str | None = None,
    calls: Path | None = None,
    wait: float = DEFAULT_WAIT,
    timeout: float = DEFAULT_TIMEOUT,
) -> MCPServer:
    """The server over ``link``; ``notebook`` is the file the kernel serves, if known,
    ``run_id`` the run whose chat takes the inserted cells, and ``calls`` the folder where
    that run reads which approved calls began (:mod:`lab_widget._chat._begun`).
    """
    begun = BegunCalls(calls) if calls is not None else None

    def running(tool: str, **arguments: str) -> AbstractContextManager[None]:
        # Only approved calls reach the server: one that runs answers its approval.
        return begun.running(SERVER_NAME, tool, arguments) if begun is not None else nullcontext()

    server = MCPServer(
        SERVER_NAME,
        instructions=(
            "The user's live Jupyter kernel: run Python in their namespace (each call is "
            "approved by the user first) and look at their variables."
        ),
    )

    @server.tool(
        description=(
            "Run Python code in the user's live notebook kernel, in their namespace, as if "
            "they ran a cell (variables you set stay for them). The user approves each call. "
            f"If one of their cells is running, the call waits up to {wait:g} s for it, then "
            "returns without running anything. Returns stdout, stderr, the value of the last "
            f"expression, errors with their traceback, and PNG images; output is collected "
            f"for {timeout:g} s."
        ),
        annotations=ToolAnnotations(destructive_hint=True, open_world_hint=False),
    )
    def run_python(code: str) -> CallToolResult:
        try:
            with running("run_python", code=code):
                done = link.execute(code, wait=wait, timeout=timeout)
        except KernelToolsError as exc:
            return _text(str(exc), error=True)
        content: list[ContentBlock] = [TextContent(type="text", text=done.summary())]
        content += [
            ImageContent(type="image", data=_b64(png), mime_type="image/png") for png in done.images
        ]
        return CallToolResult(content=content, is_error=done.error is not None)

    @server.tool(description=LIST_VARIABLES, annotations=_READ_ONLY)
    def list_variables() -> CallToolResult:
        return _evaluated(link, expression("variables_json"), wait, _variables_text)

    @server.tool(description=DESCRIBE, annotations=_READ_ONLY)
    def describe(name: str) -> CallToolResult:
        return _evaluated(link, expression("describe_json", name), wait, str)

    @server.tool(description=NOTEBOOK_CELLS, annotations=_READ_ONLY)
    def notebook_cells() -> CallToolResult:
        if notebook is None or not notebook.is_file():
            return _text("No notebook: this kernel serves no notebook file.", error=True)
        return _text(cells_text(notebook))

    @server.tool(
        description=(
            "Insert a new code cell with this code below the chat in the user's notebook, "
            "for the user to read and run (it is not run). The user approves each call."
        ),
        annotations=ToolAnnotations(destructive_hint=False),
    )
    def insert_cell(code: str) -> CallToolResult:
        if run_id is None:
            return _text(
                "Not available: this server does not know its run's chat. Show the code in "
                "your answer instead; the user can insert it from the chat.",
                error=True,
            )
        with running("insert_cell", code=code):
            return _evaluated(link, expression("insert_cell_json", run_id, code), wait, str)

    return server


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def _variables_text(listed: object) -> str:
    if not isinstance(listed, list) or not listed:
        return "(no variables)"
    lines = []
    for entry in listed:
        if entry.get("secret"):
            lines.append(f"{entry['name']}: {entry['type']} (secret-looking name: not described)")
        else:
            size = f", {entry['size']}" if entry.get("size") else ""
            lines.append(f"{entry['name']}: {entry['type']}{size}")
    return "\n".join(lines)


def _evaluated(
    link: KernelLink, code: str, wait: float, render: Callable[[object], str]
) -> CallToolResult:
    try:
        text = link.evaluate(code, wait=wait)
    except KernelToolsError as exc:
        return _text(str(exc), error=True)
    value = json.loads(ast.literal_eval(text))
    # The expression's repr is a Python string literal holding JSON.
    return _text(render(value))


def main(argv: list[str] | None = None) -> int:
    """``python -m lab_widget kernel-tools --connection-file FILE``: serve over stdio."""
    parser = argparse.ArgumentParser(prog="lab_widget kernel-tools")
    parser.add_argument("--connection-file", required=True, type=Path)
    parser.add_argument("--notebook", type=Path, default=None)
    parser.add_argument("--wait", type=float, default=DEFAULT_WAIT)
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT)
    args = parser.parse_args(argv)
    link = KernelLink(args.connection_file)
    try:
        build_server(
            link,
            notebook=args.notebook,
            run_id=os.environ.get(ToolServer.RUN_ID_ENV),
            calls=Path(os.environ[ToolServer.CALLS_ENV])
            if ToolServer.CALLS_ENV in os.environ
            else None,
            wait=args.wait,
            timeout=args.timeout,
        ).run()
    finally:
        link.close()
    return 0
