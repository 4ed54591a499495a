"""Unit: a Codex run given tool servers registers them for itself alone, asks before every
call of an asking tool, and refuses an approval policy that never asks."""

from __future__ import annotations

import itertools
import json
import tomllib
from dataclasses import replace
from pathlib import Path

import pytest

from lab_widget import read_transcript
from lab_widget.errors import KernelToolsError
from lab_widget.provider import Endpoint, RunContext, SpawnRequest, ToolServer, get_provider
from lab_widget.provider.codex._config import RUN_STATE
from lab_widget.provider.codex._signals import CodexSignals
from tests.support.paths import FIXTURES

CODEX = FIXTURES / "codex"
RUN_PYTHON = "mcp__kernel__run_python"

SERVER = ToolServer(
    "kernel",
    ["python", "-m", "tools"],
    env={"PYTHONPATH": "/somewhere"},
    asking=("run_python",),
    reading=("describe",),
)


def request(tmp_path: Path, **options: object) -> SpawnRequest:
    return SpawnRequest(
        context=RunContext(run_id="r", cwd=tmp_path, runtime_dir=tmp_path / "rt"),
        binary=Path("codex"),
        endpoint=Endpoint("http://127.0.0.1:1", "k"),
        options=options,
        tool_servers=(SERVER,),
    )


def overrides(argv: list[str]) -> dict[str, object]:
    """The ``-c key=value`` options of ``argv``, read as TOML as the CLI reads them."""
    found: dict[str, object] = {}
    for flag, value in itertools.pairwise(argv):
        if flag == "-c" and not value.startswith("hooks."):
            found.update(tomllib.loads(value.replace("=", " = ", 1)))
    return found


def test_the_servers_are_given_for_this_run_alone_and_ask_every_call(tmp_path: Path) -> None:
    plan = get_provider("codex").plan_spawn(request(tmp_path))
    given = overrides(list(plan.argv))
    assert given["approvals_reviewer"] == "user"
    kernel = given["mcp_servers"]["kernel"]  # type: ignore[index]
    assert kernel == {
        "command": "python",
        "args": ["-m", "tools"],
        "env": {"PYTHONPATH": "/somewhere"},
        "required": True,
        "startup_timeout_sec": 60,
        "default_tools_approval_mode": "prompt",
        "tools": {"describe": {"approval_mode": "approve"}},
    }
    # Nothing of it is written where another run (or the user's own Codex) would read it.
    config = (tmp_path / "rt").rglob("config.toml")
    assert not any("mcp_servers" in path.read_text() for path in config)


def test_a_run_without_servers_has_none(tmp_path: Path) -> None:
    plan = get_provider("codex").plan_spawn(replace(request(tmp_path), tool_servers=()))
    assert not any(a.startswith(("mcp_servers.", "approvals_reviewer")) for a in plan.argv)


def test_a_policy_that_never_asks_is_refused_with_tool_servers(tmp_path: Path) -> None:
    with pytest.raises(KernelToolsError, match="approval_policy='never'"):
        get_provider("codex").plan_spawn(request(tmp_path, approval_policy="never"))
    get_provider("codex").plan_spawn(request(tmp_path, approval_policy="on-request"))
    # Without the kernel's tools the policy is the user's choice.
    plain = replace(request(tmp_path, approval_policy="never"), tool_servers=())
    get_provider("codex").plan_spawn(plain)


def context_with(tmp_path: Path, hooks: str, keep: int, asking: list[str]) -> RunContext:
    """A run whose spool holds the first ``keep`` hook records of the fixture ``hooks``,
    spawned with ``asking`` as its own servers' asking tools."""
    context = RunContext(run_id="r", cwd=Path("/fixture/work"), runtime_dir=tmp_path / "rt")
    spool = context.runtime_dir / "signals"
    spool.mkdir(parents=True)
    for index, line in enumerate((CODEX / hooks).read_text().splitlines()[:keep]):
        (spool / f"{index:04d}.json").write_text(line)
    RUN_STATE.note_spawn(context, isolated=True, codex_home="/x", asking_tools=asking)
    return context


def test_the_prompt_of_an_asking_tool_is_an_approval_with_the_code(tmp_path: Path) -> None:
    events = [
        json.loads(line)["hook_event_name"]
        for line in (CODEX / "kernel_approve.hooks.jsonl").read_text().splitlines()
    ]
    assert events[2:4] == ["PreToolUse", "PermissionRequest"]
    context = context_with(tmp_path, "kernel_approve.hooks.jsonl", 4, [RUN_PYTHON])
    dialog = CodexSignals().pending_dialog(context)
    assert dialog is not None and dialog.kind == "approval"
    assert (dialog.tool_name, dialog.tool_id) == (RUN_PYTHON, "call_scripted_000001")
    assert dialog.body == "```python\nx = len(df)\n```"
    assert [o.label for o in dialog.questions[0].options] == ["Approve", "Reject"]
    # Answered, the call closes (PostToolUse, then the turn's end).
    answered = context_with(tmp_path / "2", "kernel_approve.hooks.jsonl", 6, [RUN_PYTHON])
    assert CodexSignals().pending_dialog(answered) is None


def test_another_servers_prompt_is_left_to_the_terminal(tmp_path: Path) -> None:
    context = context_with(tmp_path, "kernel_approve.hooks.jsonl", 4, [])
    signals = CodexSignals()
    assert signals.pending_dialog(context) is None
    assert signals.blocked(context) == (
        f"Codex asks for permission to use {RUN_PYTHON}; answer it in the terminal."
    )


@pytest.mark.parametrize(
    ("fixture", "code", "status", "outcome"),
    [
        ("kernel_approve.jsonl", "x = len(df)", "ok", "approved"),
        ("kernel_reject.jsonl", "x = len(df)", "error", "rejected"),
        ("kernel_error.jsonl", "df['missing']", "error", "approved"),
    ],
)
def test_the_call_reads_back_under_its_hook_name(
    fixture: str, code: str, status: str, outcome: str
) -> None:
    chat = read_transcript(CODEX / fixture, provider="codex")
    [card] = [m for m in chat.messages if m.tool is not None]
    assert card.tool is not None and card.tool.name == RUN_PYTHON
    assert card.tool.input == {"code": code}
    assert card.tool.status == status
    assert get_provider("codex").approval_outcome(card.tool) == outcome
    if outcome == "rejected":
        assert card.tool.output == "user cancelled MCP tool call (rejected)"


@pytest.mark.parametrize("output_first", [False, True])
def test_a_failed_mcp_call_reads_failed_in_either_order(tmp_path: Path, output_first: bool) -> None:
    # Codex says an MCP call failed only in its item_completed event; its output is text.
    lines = (CODEX / "kernel_error.jsonl").read_text().splitlines()
    [done] = [i for i, line in enumerate(lines) if '"McpToolCall"' in line]
    [output] = [i for i, line in enumerate(lines) if '"function_call_output"' in line]
    assert done < output  # as 0.171.0 writes them
    if output_first:
        lines[done], lines[output] = lines[output], lines[done]
    rollout = tmp_path / "rollout.jsonl"
    rollout.write_text("\n".join(lines) + "\n")
    chat = read_transcript(rollout, provider="codex")
    [card] = [m for m in chat.messages if m.tool is not None]
    assert card.tool is not None and card.tool.status == "error"
    assert "KeyError: 'missing'" in (card.tool.output or "")
    assert get_provider("codex").approval_outcome(card.tool) == "approved"
