"""Unit: Gemini CLI given the run's own tool servers (the kernel's): its isolated settings,
its policy file, the refusal of a mode that never asks, and the dialog's arguments."""

from __future__ import annotations

import json
import tomllib
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

import pytest

from lab_widget.errors import KernelToolsError
from lab_widget.provider import SpawnRequest, get_provider
from lab_widget.provider.gemini import _compat
from lab_widget.provider.gemini._config import RUN_STATE
from lab_widget.provider.gemini._signals import GeminiSignals
from tests.support.kernels import tool_server_request


def test_the_servers_go_in_the_runs_own_settings_with_a_policy(tmp_path: Path) -> None:
    request = tool_server_request(tmp_path, "gemini")
    plan = get_provider("gemini").plan_spawn(request)
    home = tmp_path / "rt" / "home" / ".gemini"
    settings = json.loads((home / "settings.json").read_text())
    assert settings["mcpServers"] == {
        "kernel": {"command": "python", "args": ["-m", "k"], "env": {"K": "1"}, "trust": False}
    }
    [hook] = settings["hooks"][_compat.TOOL_ARGS_HOOK]
    assert hook["matcher"] == "^(?:mcp_kernel_)"
    flag = list(plan.argv).index(_compat.POLICY_FLAG)
    rules = tomllib.loads(Path(plan.argv[flag + 1]).read_text())["rule"]
    assert [(r["toolName"], r["decision"]) for r in rules] == [
        ("mcp_kernel_run_python", "ask_user"),
        ("mcp_kernel_describe", "allow"),
    ]
    assert RUN_STATE.read(request.context)["asking_tools"] == ["mcp_kernel_run_python"]


def test_a_run_without_servers_has_no_policy_nor_tool_hook(tmp_path: Path) -> None:
    plan = get_provider("gemini").plan_spawn(
        replace(tool_server_request(tmp_path, "gemini"), tool_servers=())
    )
    assert _compat.POLICY_FLAG not in plan.argv
    settings = json.loads((tmp_path / "rt" / "home" / ".gemini" / "settings.json").read_text())
    assert "mcpServers" not in settings and _compat.TOOL_ARGS_HOOK not in settings["hooks"]


def test_yolo_is_refused_with_the_servers(tmp_path: Path) -> None:
    request = tool_server_request(tmp_path, "gemini", approval_mode="yolo")
    with pytest.raises(KernelToolsError, match="yolo"):
        get_provider("gemini").plan_spawn(request)
    # Without the kernel's tools it is the user's choice.
    get_provider("gemini").plan_spawn(replace(request, tool_servers=()))


def _spool(request: SpawnRequest, *records: Mapping[str, object]) -> None:
    spool = GeminiSignals().spool(request.context)
    for i, record in enumerate(records):
        (spool / f"{i:04d}.json").write_text(json.dumps({"session_id": "s", **record}))


def test_the_dialog_shows_the_code_its_before_tool_record_carries(tmp_path: Path) -> None:
    request = tool_server_request(tmp_path, "gemini")
    get_provider("gemini").plan_spawn(request)
    confirm = {
        "hook_event_name": "Notification",
        "notification_type": "ToolPermission",
        "details": {"type": "mcp", "serverName": "kernel", "toolName": "run_python"},
    }
    before = {
        "hook_event_name": "BeforeTool",
        "tool_name": "mcp_kernel_run_python",
        "tool_input": {"code": "x = 1"},
    }
    _spool(request, before, confirm)
    dialog = GeminiSignals().pending_dialog(request.context)
    assert dialog is not None and dialog.tool_name == "mcp_kernel_run_python"
    assert dialog.body == "```python\nx = 1\n```"
    assert [o.label for o in dialog.questions[0].options] == ["Approve", "Reject"]


def test_another_servers_tool_keeps_its_session_choice(tmp_path: Path) -> None:
    request = tool_server_request(tmp_path, "gemini")
    get_provider("gemini").plan_spawn(request)
    details = {"type": "mcp", "serverName": "lab", "toolName": "lookup"}
    _spool(
        request,
        {
            "hook_event_name": "Notification",
            "notification_type": "ToolPermission",
            "details": details,
        },
    )
    dialog = GeminiSignals().pending_dialog(request.context)
    assert dialog is not None and "terminal only" in dialog.body
    assert [o.label for o in dialog.questions[0].options] == ["Approve", "Approve always", "Reject"]


def test_the_users_own_config_needs_a_settings_file_the_cli_reads(tmp_path: Path) -> None:
    # tmp_path lies under /tmp, which others may write to: the CLI would skip a system
    # settings file there, so the servers could not be given without the user's settings.
    request = replace(tool_server_request(tmp_path, "gemini"), endpoint=None)
    with pytest.raises(KernelToolsError, match="writable by others"):
        get_provider("gemini").plan_spawn(request)
