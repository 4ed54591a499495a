"""Unit: a Copilot CLI run given tool servers registers them for itself alone (reading
tools allowed), reads their prompts as Approve/Reject dialogs with the code (recorded from
the pinned CLI), and refuses to start while ``COPILOT_ALLOW_ALL`` would approve them."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from lab_widget.errors import KernelToolsError
from lab_widget.provider import (
    Endpoint,
    RunContext,
    SpawnRequest,
    ToolServer,
    TranscriptRef,
    get_provider,
)
from lab_widget.provider.copilot._transcript import CopilotTranscriptReader
from tests.support.paths import FIXTURES

RUN_PYTHON = "kernel-run_python"
SERVER = ToolServer(
    "kernel", ["python", "-m", "tools"], asking=("run_python",), reading=("describe",)
)


def request(tmp_path: Path, endpoint: Endpoint | None = None) -> SpawnRequest:
    return SpawnRequest(
        context=RunContext(run_id="r", cwd=tmp_path, runtime_dir=tmp_path / "rt"),
        binary=Path("copilot"),
        endpoint=endpoint,
        tool_servers=(SERVER,),
    )


def test_the_servers_are_given_for_this_run_alone(tmp_path: Path) -> None:
    plan = get_provider("copilot").plan_spawn(request(tmp_path, Endpoint("http://h:1", "k")))
    argv = list(plan.argv)
    config = argv[argv.index("--additional-mcp-config") + 1]
    assert config == f"@{tmp_path / 'rt' / 'copilot-mcp.json'}"
    servers = json.loads(Path(config[1:]).read_text())["mcpServers"]
    assert servers["kernel"]["command"] == "python" and servers["kernel"]["type"] == "local"
    # The reading tool runs without a prompt; run_python is named by no rule: it asks.
    assert [a for a in argv if a.startswith("--allow-tool")] == ["--allow-tool=kernel(describe)"]
    assert "mcp-config.json" not in {p.name for p in (tmp_path / "rt" / "home").iterdir()}


def test_allow_all_is_refused_with_tool_servers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COPILOT_ALLOW_ALL", " Yes ")
    with pytest.raises(KernelToolsError, match="COPILOT_ALLOW_ALL=yes"):
        get_provider("copilot").plan_spawn(request(tmp_path))
    # Without the kernel's tools it is the user's choice; an isolated run unsets it.
    get_provider("copilot").plan_spawn(replace(request(tmp_path), tool_servers=()))
    get_provider("copilot").plan_spawn(request(tmp_path, Endpoint("http://h:1", "k")))
    monkeypatch.setenv("COPILOT_ALLOW_ALL", "off")
    get_provider("copilot").plan_spawn(request(tmp_path))


def test_recorded_prompts_read_as_approve_reject_with_the_code() -> None:
    path = FIXTURES / "copilot" / "kernel.jsonl"
    reader = CopilotTranscriptReader(TranscriptRef(transcript_id="k", path=path))
    reader.read()
    cards = [m for m in reader.messages if m.tool is not None and m.tool.name == RUN_PYTHON]
    tools = [m.tool for m in cards if m.tool is not None]
    assert [t.status for t in tools] == ["ok", "error"]
    assert "rows: 7" in (tools[0].output or "")
    dialogs = [m.dialog for m in cards if m.dialog is not None]
    assert [m.kind for m in cards] == ["dialog", "dialog"]  # shown as the dialogs they were
    assert [(d.status, d.outcome) for d in dialogs] == [("answered", "approved"), ("rejected", "")]
    for dialog, name in zip(dialogs, "xy", strict=True):
        assert dialog.tool_name == RUN_PYTHON
        assert [o.label for o in dialog.questions[0].options] == ["Approve", "Reject"]
        assert dialog.body == f"```python\n{name} = len(df)\nprint('rows:', {name})\n```"


def test_a_failed_call_reads_failed_with_what_went_wrong() -> None:
    # A failed call has no result: its error's message is what the model was told.
    path = FIXTURES / "copilot" / "kernel_error.jsonl"
    reader = CopilotTranscriptReader(TranscriptRef(transcript_id="k", path=path))
    reader.read()
    [card] = [m for m in reader.messages if m.tool is not None and m.tool.name == RUN_PYTHON]
    assert card.tool is not None and card.tool.status == "error"
    assert "KeyError: 'missing'" in (card.tool.output or "")
    assert card.dialog is not None and (card.dialog.status, card.dialog.outcome) == (
        "answered",
        "approved",
    )
