"""The gate between an ACP agent and a server of the run's own whose tools ask every call
(``python -m lab_widget._acp._gate``).

An ACP agent decides by its own rules whether to ask before an MCP tool: one may call it
unasked. The host therefore gives the agent this gate as the server's command: it starts
the real server and passes MCP's newline-delimited JSON-RPC through both ways, except a
``tools/call`` of an asking tool that no approval in the run's event log allows. That call
never reaches the server: the agent gets a tool error saying why, and the chat a warning.
Each approval (an ``allow`` option chosen for a permission request about the tool) lets
one call through.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import threading
from collections import Counter
from pathlib import Path
from typing import IO, Any

from ._reader import asks_every_call

__all__ = ["approvals", "main"]


def approvals(log: Path, server: str, tool: str) -> int:
    """How many permission requests about ``server``'s ``tool`` the log shows answered with
    an ``allow`` option.

    Examples
    --------
    >>> import tempfile
    >>> log = Path(tempfile.mkdtemp()) / "acp.jsonl"
    >>> ask = {"ev": "permission", "request_id": "p1", "tool_call": {"title": "kernel_run"},
    ...        "options": [{"optionId": "o", "kind": "allow_once"},
    ...                    {"optionId": "r", "kind": "reject_once"}]}
    >>> answer = {"ev": "permission_answer", "request_id": "p1", "option_id": "o"}
    >>> _ = log.write_text("".join(json.dumps(e) + chr(10) for e in (ask, answer)))
    >>> approvals(log, "kernel", "run"), approvals(log, "kernel", "other")
    (1, 0)
    """
    servers = [{"name": server, "asking": [tool]}]
    allowed: dict[str, set[str]] = {}
    count = 0
    try:
        lines = log.read_text(encoding="utf-8", errors="replace").splitlines()
    except FileNotFoundError:
        return 0
    for line in lines:
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if not isinstance(event, dict):
            continue
        if event.get("ev") == "permission":
            title = str((event.get("tool_call") or {}).get("title") or "")
            if asks_every_call(title, servers):
                allowed[str(event.get("request_id"))] = {
                    str(o.get("optionId"))
                    for o in event.get("options") or []
                    if str(o.get("kind", "")).startswith("allow")
                }
        elif event.get("ev") == "permission_answer" and str(event.get("option_id")) in (
            allowed.get(str(event.get("request_id")), ())
        ):
            count += 1
    return count


class _Gate:
    def __init__(self, args: argparse.Namespace) -> None:
        self.log = Path(args.log)
        self.server = args.server
        self.asking = set(filter(None, args.asking.split(",")))
        self.passed: Counter[str] = Counter()
        self.lock = threading.Lock()

    def write(self, out: IO[bytes], line: bytes) -> None:
        with self.lock:
            out.write(line)
            out.flush()

    def refusal(self, message: dict[str, Any], tool: str) -> bytes:
        text = (
            f"{self.server}.{tool} was called without the user's approval: this agent did not "
            "ask before it, so the call was refused and nothing ran."
        )
        with self.log.open("a", encoding="utf-8") as log:
            log.write(json.dumps({"ev": "warning", "text": text}) + "\n")
        answer = {
            "jsonrpc": "2.0",
            "id": message.get("id"),
            "result": {"content": [{"type": "text", "text": text}], "isError": True},
        }
        return (json.dumps(answer) + "\n").encode()

    def let_through(self, line: bytes) -> str | None:
        """``None`` to pass ``line`` on, else the asking tool it calls unapproved."""
        try:
            message = json.loads(line)
        except ValueError:
            return None
        if not isinstance(message, dict) or message.get("method") != "tools/call":
            return None
        tool = str((message.get("params") or {}).get("name"))
        if tool not in self.asking:
            return None
        if approvals(self.log, self.server, tool) <= self.passed[tool]:
            return tool
        self.passed[tool] += 1
        return None

    def run(self, command: list[str]) -> int:
        child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        assert child.stdin is not None and child.stdout is not None
        out = sys.stdout.buffer
        source = child.stdout

        def pump() -> None:
            for line in iter(source.readline, b""):
                self.write(out, line)

        thread = threading.Thread(target=pump, daemon=True)
        thread.start()
        for line in iter(sys.stdin.buffer.readline, b""):
            refused = self.let_through(line)
            if refused is None:
                child.stdin.write(line)
                child.stdin.flush()
            else:
                self.write(out, self.refusal(json.loads(line), refused))
        child.stdin.close()
        code = child.wait()
        thread.join(timeout=2)
        return code


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m lab_widget._acp._gate")
    parser.add_argument("--log", required=True, help="the run's event log")
    parser.add_argument("--server", required=True, help="the server's name")
    parser.add_argument("--asking", default="", help="its tools that ask, comma-separated")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- then the server's argv")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    return _Gate(args).run(command)


if __name__ == "__main__":
    sys.exit(main())
