"""Unit: an ACP run's own MCP servers: the approval of a tool that asks every call, and the
gate that refuses such a call no approval allows."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from lab_widget._acp._reader import AcpTranscriptReader
from lab_widget.provider import TranscriptRef

SERVERS = {"ev": "tool_servers", "servers": [{"name": "kernel", "asking": ["run_python"]}]}
ASK = {
    "ev": "permission",
    "request_id": "p1",
    "tool_call": {"toolCallId": "c1", "title": "kernel_run_python", "rawInput": {}},
    "options": [
        {"optionId": "once", "name": "Allow once", "kind": "allow_once"},
        {"optionId": "always", "name": "Always allow", "kind": "allow_always"},
        {"optionId": "reject", "name": "Reject", "kind": "reject_once"},
    ],
}


def _log(path: Path, *events: dict[str, Any]) -> None:
    with path.open("a") as log:
        for event in events:
            log.write(json.dumps({"t": 1.0, **event}) + "\n")


def test_the_approval_offers_no_always_and_shows_the_code_that_came_after(
    tmp_path: Path,
) -> None:
    log = tmp_path / "acp.jsonl"
    _log(log, SERVERS, {"ev": "prompt", "id": "1", "text": "go"}, ASK)
    reader = AcpTranscriptReader(TranscriptRef("t", log))
    reader.read()
    dialog = reader.pending_dialog
    assert dialog is not None and dialog.body == ""
    assert [o.label for o in dialog.questions[0].options] == ["Approve", "Reject"]
    update = {
        "sessionUpdate": "tool_call_update",
        "toolCallId": "c1",
        "status": "in_progress",
        "title": "kernel_run_python",
        "rawInput": {"code": "x = 1"},
    }
    _log(log, {"ev": "update", "update": update})
    reader.read()
    dialog = reader.pending_dialog
    assert dialog is not None and dialog.body == "```python\nx = 1\n```"


def test_another_tools_approval_keeps_its_always(tmp_path: Path) -> None:
    log = tmp_path / "acp.jsonl"
    other = {**ASK, "tool_call": {"toolCallId": "c2", "title": "bash", "rawInput": {"a": 1}}}
    _log(log, SERVERS, other)
    reader = AcpTranscriptReader(TranscriptRef("t", log))
    reader.read()
    dialog = reader.pending_dialog
    assert dialog is not None
    assert [o.label for o in dialog.questions[0].options] == ["Approve", "Approve always", "Reject"]


SERVER = """
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    print(json.dumps({"id": message["id"], "result": "ran " + message["params"]["name"]}),
          flush=True)
"""


def _through_gate(log: Path, *names: str) -> list[dict[str, Any]]:
    calls = "".join(
        json.dumps({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": n}})
        + "\n"
        for i, n in enumerate(names)
    )
    gate = [sys.executable, "-m", "lab_widget._acp._gate", "--log", str(log)]
    gate += ["--server", "kernel", "--asking", "run_python", "--", sys.executable, "-c", SERVER]
    out = subprocess.run(gate, input=calls, capture_output=True, text=True, timeout=60, check=True)
    # By id: a refusal is answered at once, a passed call when the server answers.
    return sorted((json.loads(line) for line in out.stdout.splitlines()), key=lambda m: m["id"])


def test_the_gate_lets_one_call_through_per_approval_and_refuses_the_rest(
    tmp_path: Path,
) -> None:
    log = tmp_path / "acp.jsonl"
    _log(log, ASK, {"ev": "permission_answer", "request_id": "p1", "option_id": "once"})
    first, second, reading = _through_gate(log, "run_python", "run_python", "describe")
    assert first["result"] == "ran run_python"
    assert second["result"]["isError"] is True
    assert "without the user's approval" in second["result"]["content"][0]["text"]
    assert reading["result"] == "ran describe"
    warnings = [json.loads(x) for x in log.read_text().splitlines() if '"warning"' in x]
    assert len(warnings) == 1 and "refused" in warnings[0]["text"]


def test_the_gate_refuses_a_rejected_call(tmp_path: Path) -> None:
    log = tmp_path / "acp.jsonl"
    _log(log, ASK, {"ev": "permission_answer", "request_id": "p1", "option_id": "reject"})
    [refused] = _through_gate(log, "run_python")
    assert refused["result"]["isError"] is True
