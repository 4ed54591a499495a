"""The ACP wire against misbehaving agents (small Python scripts): bad lines are warnings,
a silent agent is a typed error naming its command, and nothing blocks.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from lab_widget._acp._host import main
from lab_widget._acp._probe import probe
from lab_widget._acp._wire import Refusing, handshake, spawn
from lab_widget.errors import AcpHandshakeError

# Answers initialize after three bad lines: not JSON, JSON that is no message, and an answer
# to a request never sent.
NOISY = r"""
import json, sys
print("Starting server...", flush=True)
print("[1, 2]", flush=True)
print(json.dumps({"jsonrpc": "2.0", "id": 999, "result": {}}), flush=True)
request = json.loads(sys.stdin.readline())
print(json.dumps({"jsonrpc": "2.0", "id": request["id"], "result": {
    "protocolVersion": 1, "agentCapabilities": {"loadSession": True},
    "agentInfo": {"name": "noisy", "version": "1.0"}}}), flush=True)
sys.stdin.readline()
"""

SILENT = "import time; time.sleep(30)"

# Answers initialize, then asks the client to read a file and writes the client's answer to
# the file named by its argument.
READER = r"""
import json, sys
request = json.loads(sys.stdin.readline())
print(json.dumps({"jsonrpc": "2.0", "id": request["id"], "result": {
    "protocolVersion": 1, "agentCapabilities": {}}}), flush=True)
print(json.dumps({"jsonrpc": "2.0", "id": 7, "method": "fs/read_text_file",
                  "params": {"sessionId": "s", "path": "/etc/passwd"}}), flush=True)
with open(sys.argv[1], "w") as out:
    out.write(sys.stdin.readline())
sys.stdin.readline()
"""


def _command(script: str) -> list[str]:
    return [sys.executable, "-c", script]


async def _shake(script: str, timeout: float) -> tuple[Any, list[str]]:
    warnings: list[str] = []

    class Client:
        def on_connect(self, conn: Any) -> None:
            return None

    wire = await spawn(
        _command(script), lambda _a: Client(), env=None, cwd=".", warn=warnings.append
    )
    try:
        answer, _latency = await handshake(wire, _command(script), timeout)
    finally:
        await wire.close()
    return answer, warnings


def test_bad_lines_are_warnings_and_the_handshake_goes_on() -> None:
    answer, warnings = asyncio.run(_shake(NOISY, 10))
    assert answer.agent_info.name == "noisy"
    assert warnings == [
        "the agent wrote a line that is not JSON-RPC: 'Starting server...'",
        "the agent wrote JSON that is not a JSON-RPC message: [1, 2]",
        "the agent answered a request never sent (id 999); ignored",
    ]


def test_an_agent_that_never_answers_initialize_is_a_typed_error() -> None:
    started = time.monotonic()
    with pytest.raises(AcpHandshakeError, match=r"did not answer initialize within 1 s") as info:
        asyncio.run(_shake(SILENT, 1))
    assert "time.sleep(30)" in str(info.value)  # it names the command
    assert time.monotonic() - started < 10


def test_the_probe_reports_latency_and_declared_capabilities() -> None:
    found = probe(_command(NOISY), {}, timeout=10)
    assert found.ok and found.agent == "noisy 1.0"
    assert found.capabilities == ["loadSession"]
    assert found.latency_ms is not None
    silent = probe(_command(SILENT), {}, timeout=1)
    assert not silent.ok and "did not answer initialize" in silent.problem


def test_the_host_logs_a_silent_agent_and_exits(tmp_path: Path) -> None:
    code = main(
        [
            "--folder",
            str(tmp_path),
            "--cwd",
            str(tmp_path),
            "--init-timeout",
            "1",
            "--",
            *_command(SILENT),
        ]
    )
    assert code == 2
    log = (tmp_path / "acp.jsonl").read_text()
    assert '"ev": "error"' in log and "did not answer initialize within 1 s" in log
    assert '"ev": "exit"' in log


def test_a_method_the_client_does_not_offer_is_refused_and_heard_of(tmp_path: Path) -> None:
    heard: list[str] = []
    answer = tmp_path / "answer.json"
    command = [*_command(READER), str(answer)]

    class Client(Refusing):
        def refused(self, name: str) -> None:
            heard.append(name)

    async def serve() -> None:
        wire = await spawn(command, lambda _a: Client(), env=None, cwd=".", warn=lambda _w: None)
        try:
            await handshake(wire, command, 10)
            for _ in range(200):
                if answer.exists() and answer.read_text().endswith("\n"):
                    break
                await asyncio.sleep(0.05)
        finally:
            await wire.close()

    asyncio.run(serve())
    assert heard == ["read_text_file"]
    reply = json.loads(answer.read_text())
    assert reply["id"] == 7 and reply["error"]["code"] == -32601  # method not found
