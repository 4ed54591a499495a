"""The process that hosts one ACP agent under tmux (``python -m lab_widget._acp._host``).

It starts the agent, shakes hands, opens a session and then serves the kernel: commands
arrive as files in the inbox (a prompt, a permission answer, a cancel), everything that
happens goes to the event log (:mod:`lab_widget._acp._log`), which the kernel reads as the
run's transcript. Living in its own tmux session, the host (and the agent under it)
outlives the kernel; an interrupt pressed in its pane cancels the current prompt. When
the agent exits, the host logs its exit code and the tail of its stderr, prints them in
the pane, and exits with the agent's code.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import sys
from pathlib import Path
from typing import Any

from acp import RequestError
from acp.connection import StreamDirection, StreamEvent
from acp.schema import (
    AcceptElicitationResponse,
    AllowedOutcome,
    CancelElicitationResponse,
    DeclineElicitationResponse,
    DeniedOutcome,
    EnvVariable,
    McpServerStdio,
    PermissionOption,
    RequestPermissionResponse,
    TextContentBlock,
    ToolCallUpdate,
)

from ..errors import AcpHandshakeError
from ._log import INBOX, EventLog
from ._wire import Refusing, Wire, handshake, spawn

__all__ = ["main"]

POLL = 0.05
"""Seconds between looks into the inbox."""


def _dump(model: Any) -> Any:
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


def stdio_servers(path: str | None) -> list[McpServerStdio]:
    """The run's own MCP servers (the spec file the provider wrote), as ``session/new``
    takes them: each started by the agent over stdio.

    Examples
    --------
    >>> import tempfile
    >>> spec = Path(tempfile.mkdtemp()) / "servers.json"
    >>> _ = spec.write_text(json.dumps([{"name": "kernel", "command": ["py", "-m", "k"],
    ...                                  "env": {"A": "1"}}]))
    >>> [server] = stdio_servers(str(spec))
    >>> server.name, server.command, server.args, [e.name for e in server.env]
    ('kernel', 'py', ['-m', 'k'], ['A'])
    >>> stdio_servers(None)
    []
    """
    if path is None:
        return []
    return [
        McpServerStdio(
            name=str(s["name"]),
            command=str(s["command"][0]),
            args=[str(a) for a in s["command"][1:]],
            env=[EnvVariable(name=k, value=str(v)) for k, v in (s.get("env") or {}).items()],
        )
        for s in json.loads(Path(path).read_text())
    ]


class _Client(Refusing):
    """The client half the agent calls back: permissions are asked through the log and
    answered from the inbox; files and terminals are not offered (``initialize`` says so).
    """

    def __init__(self, host: Host) -> None:
        self.host = host

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        return None  # logged raw, kinds this SDK does not know included (see Host.observe)

    async def request_permission(
        self,
        session_id: str,
        tool_call: ToolCallUpdate,
        options: list[PermissionOption],
        **kwargs: Any,
    ) -> RequestPermissionResponse:
        chosen = await self.host.ask(_dump(tool_call), [_dump(o) for o in options])
        if chosen is None:
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return RequestPermissionResponse(
            outcome=AllowedOutcome(option_id=chosen, outcome="selected")
        )

    async def create_elicitation(self, message: str, mode: Any, **kwargs: Any) -> Any:
        schema = getattr(mode, "requested_schema", None)
        if schema is None:  # a URL to open: no browser here to open it in
            self.host.warn("the agent asked to open a URL (URL elicitation), which is declined")
            return DeclineElicitationResponse(action="decline")
        tool_id = getattr(mode, "tool_call_id", None)
        content = await self.host.elicit(message, _dump(schema), tool_id)
        if content is None:
            return CancelElicitationResponse(action="cancel")
        return AcceptElicitationResponse(action="accept", content=content)

    def refused(self, name: str) -> None:
        self.host.log.write("warning", text=f"the agent called {name}, which is not offered")


class Host:
    """One agent's session, served from the inbox into the log."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.folder = Path(args.folder)
        self.log = EventLog(self.folder / "acp.jsonl")
        self.inbox = self.folder / INBOX
        self.inbox.mkdir(exist_ok=True)
        self.session_id = ""
        self.wire: Wire | None = None
        self.permissions: dict[str, asyncio.Future[Any]] = {}
        """Pending permission requests and elicitations, by the host's request id."""
        self.prompt_task: asyncio.Task[None] | None = None
        self._asked = 0
        self._tasks: set[asyncio.Task[None]] = set()
        """Cancels in flight, held so none is collected before it ran."""

    def warn(self, text: str) -> None:
        self.log.write("warning", text=text)
        print(f"warning: {text}", file=sys.stderr, flush=True)

    def observe(self, event: StreamEvent) -> None:
        message = event.message
        if event.direction is StreamDirection.INCOMING and message.get("method") == (
            "session/update"
        ):
            params = message.get("params") or {}
            self.log.write("update", update=params.get("update") or {})

    async def ask(self, tool_call: dict[str, Any], options: list[dict[str, Any]]) -> str | None:
        self._asked += 1
        request_id = f"p{self._asked}"
        future: asyncio.Future[str | None] = asyncio.get_running_loop().create_future()
        self.permissions[request_id] = future
        self.log.write("permission", request_id=request_id, tool_call=tool_call, options=options)
        try:
            chosen = await future
        finally:
            self.permissions.pop(request_id, None)
        self.log.write("permission_answer", request_id=request_id, option_id=chosen)
        return chosen

    async def elicit(
        self, message: str, schema: dict[str, Any], tool_id: str | None
    ) -> dict[str, Any] | None:
        self._asked += 1
        request_id = f"e{self._asked}"
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.permissions[request_id] = future
        self.log.write(
            "elicitation", request_id=request_id, message=message, schema=schema, tool_id=tool_id
        )
        try:
            content = await future
        finally:
            self.permissions.pop(request_id, None)
        self.log.write("elicitation_answer", request_id=request_id, content=content)
        return content if isinstance(content, dict) else None

    async def run(self) -> int:
        command = self.args.command
        self.log.write("started", command=command)
        print(
            f"{' '.join(command)}\nThis agent speaks the Agent Client Protocol: it has no "
            "terminal UI here. The chat shows its conversation; its stderr follows.",
            flush=True,
        )
        self.wire = wire = await spawn(
            command,
            lambda _agent: _Client(self),
            env=None,
            cwd=self.args.cwd,
            warn=self.warn,
            observe=self.observe,
            echo_stderr=True,
        )
        self.log.write("spawned", pid=wire.process.pid)
        try:
            answer, latency = await handshake(wire, command, self.args.init_timeout)
            self.log.write("initialized", answer=_dump(answer), latency=latency)
            servers: list[Any] = list(stdio_servers(self.args.mcp_servers))
            if self.args.mcp_servers:
                # Which of their tools ask every call: the reader's approvals say so.
                spec = json.loads(Path(self.args.mcp_servers).read_text())
                named = [{k: s.get(k) for k in ("name", "asking", "reading")} for s in spec]
                self.log.write("tool_servers", servers=named)
            session = await wire.connection.new_session(cwd=self.args.cwd, mcp_servers=servers)
            self.session_id = session.session_id
            self.log.write("session", session=_dump(session))
            print(f"ACP session {self.session_id} open", flush=True)
        except (AcpHandshakeError, RequestError, ConnectionError) as exc:
            self.log.write("error", text=str(exc))
            print(f"error: {exc}", file=sys.stderr, flush=True)
            await wire.close()
            await self._exited(wire)
            return 2
        loop = asyncio.get_running_loop()
        loop.add_signal_handler(signal.SIGINT, lambda: self.command({"op": "cancel"}))
        for ending in (signal.SIGTERM, signal.SIGHUP):
            # The run stopped (its tmux session killed): the agent and its children end too.
            loop.add_signal_handler(ending, wire.signal_all, signal.SIGTERM)
        while wire.process.returncode is None:
            for path in sorted(self.inbox.glob("*.json")):
                try:
                    command_body = json.loads(path.read_text())
                except ValueError:
                    self.warn(f"an unreadable command was dropped: {path.name}")
                    command_body = {}
                path.unlink(missing_ok=True)
                if command_body:
                    self.command(command_body)
            await asyncio.sleep(POLL)
        for future in self.permissions.values():
            if not future.done():
                future.set_result(None)
        code = await self._exited(wire)
        await wire.close()
        return code

    async def _exited(self, wire: Wire) -> int:
        code = await wire.exited()
        assert code is not None
        for task in wire.pumps:
            try:
                await asyncio.wait_for(task, 2)
            except (TimeoutError, asyncio.CancelledError):
                pass  # a child still holds the agent's stderr: the tail read so far
        tail = list(wire.stderr_tail)
        self.log.write("exit", code=code, stderr_tail=tail)
        print(f"the agent exited with code {code}", flush=True)
        return code if 0 <= code < 256 else 128 + abs(code) % 128

    def command(self, body: dict[str, Any]) -> None:
        op = body.get("op")
        if op == "prompt":
            if self.prompt_task is not None and not self.prompt_task.done():
                self.warn("a prompt arrived while one is in flight; it was dropped")
                self.log.write("prompt_dropped", id=body.get("id"))
                return
            self.prompt_task = asyncio.create_task(self.prompt(str(body.get("id")), body))
        elif op == "answer":
            future = self.permissions.get(str(body.get("request_id")))
            if future is None or future.done():
                self.warn(f"an answer to no pending request was dropped: {body}")
                return
            if "content" in body:
                future.set_result(body["content"])  # an elicitation's form
            else:
                future.set_result(str(body.get("option_id")))
        elif op == "cancel":
            self.log.write("cancel")
            for future in self.permissions.values():
                if not future.done():
                    future.set_result(None)
            if self.wire is not None and self.session_id:
                cancel = self.wire.connection.cancel(session_id=self.session_id)
                self._tasks.add(asyncio.create_task(cancel))
        else:
            self.warn(f"an unknown command was dropped: {body}")

    async def prompt(self, ident: str, body: dict[str, Any]) -> None:
        assert self.wire is not None
        text = str(body.get("text", ""))
        self.log.write("prompt", id=ident, text=text)
        try:
            answer = await self.wire.connection.prompt(
                session_id=self.session_id, prompt=[TextContentBlock(type="text", text=text)]
            )
        except Exception as exc:  # the turn fails, the host and the session live on
            self.log.write("turn_end", id=ident, stop_reason="error", error=str(exc))
            return
        self.log.write("turn_end", id=ident, **_dump(answer))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m lab_widget._acp._host")
    parser.add_argument("--folder", required=True, help="the run's runtime folder")
    parser.add_argument("--cwd", required=True, help="the folder the agent works in")
    parser.add_argument("--init-timeout", type=float, default=60.0)
    parser.add_argument("--mcp-servers", help="a JSON file of the run's own MCP servers")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- then the agent's command")
    args = parser.parse_args(argv)
    if args.command[:1] == ["--"]:
        args.command = args.command[1:]
    host = Host(args)
    try:
        return asyncio.run(host.run())
    finally:
        host.log.close()
        # The agent's pipes are collected after the loop closed; their complaint about it
        # would be the last lines of the pane, where the agent's exit must be.
        sys.unraisablehook = _quiet_closed_loop


def _quiet_closed_loop(unraisable: Any) -> None:
    if isinstance(unraisable.exc_value, RuntimeError) and "loop is closed" in str(
        unraisable.exc_value
    ):
        return
    sys.__unraisablehook__(unraisable)


if __name__ == "__main__":
    sys.exit(main())
