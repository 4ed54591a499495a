"""Unit: Qwen Code given the run's own tool servers (the kernel's): its isolated settings,
the refusal of a run with the user's own settings, and the dialog."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from lab_widget.errors import KernelToolsError
from lab_widget.provider import get_provider
from lab_widget.provider.qwen_code import _compat
from lab_widget.provider.qwen_code._signals import QwenCodeSignals
from tests.support.kernels import tool_server_request


def _settings(tmp_path: Path) -> dict[str, object]:
    loaded = json.loads((tmp_path / "rt" / "home" / ".qwen" / "settings.json").read_text())
    assert isinstance(loaded, dict)
    return loaded


def test_the_servers_go_in_the_runs_own_settings_with_their_rules(tmp_path: Path) -> None:
    plan = get_provider("qwen-code").plan_spawn(tool_server_request(tmp_path, "qwen"))
    settings = _settings(tmp_path)
    assert settings["mcpServers"] == {
        "kernel": {
            "command": "python",
            "args": ["-m", "k"],
            "env": {"K": "1"},
            "trust": False,
            "alwaysLoadTools": True,
        }
    }
    assert settings["permissions"] == {
        "ask": ["mcp__kernel__run_python"],
        "allow": ["mcp__kernel__describe"],
    }
    assert settings["tools"] == {"approvalMode": "default"}
    assert dict(_compat.MCP_BLOCKING_ENV).items() <= dict(plan.env).items()


def test_a_run_without_servers_keeps_its_settings(tmp_path: Path) -> None:
    plan = get_provider("qwen-code").plan_spawn(
        replace(tool_server_request(tmp_path, "qwen"), tool_servers=())
    )
    settings = _settings(tmp_path)
    assert "mcpServers" not in settings and "permissions" not in settings
    assert not set(_compat.MCP_BLOCKING_ENV) & set(plan.env)


def test_the_users_own_settings_are_refused_with_the_servers(tmp_path: Path) -> None:
    request = replace(tool_server_request(tmp_path, "qwen"), endpoint=None)
    with pytest.raises(KernelToolsError, match="own settings"):
        get_provider("qwen-code").plan_spawn(request)


def test_the_dialog_shows_the_code_and_offers_no_always(tmp_path: Path) -> None:
    request = tool_server_request(tmp_path, "qwen")
    get_provider("qwen-code").plan_spawn(request)
    spool = QwenCodeSignals().spool(request.context)
    call = {"tool_name": "mcp__kernel__run_python", "tool_input": {"code": "x = 1"}}
    record = {"hook_event_name": "PermissionRequest", "session_id": "s", "timestamp": "t"}
    (spool / "1.json").write_text(json.dumps({**record, **call}))
    dialog = QwenCodeSignals().pending_dialog(request.context)
    assert dialog is not None and dialog.tool_name == "mcp__kernel__run_python"
    assert dialog.body == "```python\nx = 1\n```"
    assert [o.label for o in dialog.questions[0].options] == ["Approve", "Reject"]
