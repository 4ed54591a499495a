"""Unit: an OpenCode run given MCP servers (``Run(..., kernel=...)``) gets them in its own
inline config, with its asking tools asked before every call whatever rules come before, and
shows such a call's approval with its code and no "Allow always"."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from lab_widget.provider import Endpoint, RunContext, SpawnRequest, ToolServer, get_provider
from lab_widget.provider.opencode._dialogs import tool_server_dialog
from lab_widget.provider.opencode._server import STATE

SERVER = ToolServer(
    "kernel", ("python", "-m", "k"), {"K": "1"}, asking=("run_python",), reading=("describe",)
)


def spawned(tmp_path: Path, **options: object) -> tuple[dict[str, Any], dict[str, Any]]:
    context = RunContext(run_id="r", cwd=tmp_path, runtime_dir=tmp_path / "run")
    request = SpawnRequest(
        context=context,
        binary=Path("opencode"),
        endpoint=Endpoint("http://127.0.0.1:1", "k"),
        options=options,
        tool_servers=(SERVER,),
    )
    plan = get_provider("opencode").plan_spawn(request)
    return json.loads(plan.env["OPENCODE_CONFIG_CONTENT"]), STATE.read(context)


def test_the_servers_go_in_the_run_s_inline_config_with_their_rules_last(
    tmp_path: Path,
) -> None:
    config, state = spawned(tmp_path, permission="allow")
    assert config["mcp"] == {
        "kernel": {
            "type": "local",
            "command": ["python", "-m", "k"],
            "environment": {"K": "1"},
            "enabled": True,
        }
    }
    # A run that allows every tool still asks for the kernel's code: the last rule decides.
    assert list(config["permission"].items()) == [
        ("*", "allow"),
        ("kernel_run_python", "ask"),
        ("kernel_describe", "allow"),
    ]
    assert state["asking"] == ["kernel_run_python"]
    isolated = json.loads((tmp_path / "run/home/.config/opencode/opencode.json").read_text())
    assert "permission" not in isolated and "mcp" not in isolated


def test_a_rule_of_the_option_naming_the_tool_is_overridden(tmp_path: Path) -> None:
    config, _ = spawned(tmp_path, permission={"kernel_run_python": "allow", "*": "allow"})
    assert list(config["permission"])[-2:] == ["kernel_run_python", "kernel_describe"]
    assert config["permission"]["kernel_run_python"] == "ask"


def test_the_user_s_own_inline_config_and_rules_are_kept_before_the_run_s(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENCODE_CONFIG_CONTENT", '{"theme": "x", "permission": {"bash": "ask"}}')
    # Merged after every config, these rules would come after the run's: they go before.
    monkeypatch.setenv("OPENCODE_PERMISSION", '"allow"')
    context = RunContext(run_id="r", cwd=tmp_path, runtime_dir=tmp_path / "run")
    request = SpawnRequest(context=context, binary=Path("opencode"), tool_servers=(SERVER,))
    plan = get_provider("opencode").plan_spawn(request)
    config = json.loads(plan.env["OPENCODE_CONFIG_CONTENT"])
    assert config["theme"] == "x"
    assert list(config["permission"].items()) == [
        ("bash", "ask"),
        ("*", "allow"),
        ("kernel_run_python", "ask"),
        ("kernel_describe", "allow"),
    ]
    assert "OPENCODE_PERMISSION" in plan.unset_env


def test_the_approval_shows_the_code_and_offers_no_always() -> None:
    request = {
        "id": "per_1",
        "permission": "kernel_run_python",
        "patterns": ["*"],
        "always": ["*"],
        "metadata": {},
        "tool": {"messageID": "msg_1", "callID": "call_1"},
    }
    dialog = tool_server_dialog(request, {"code": "x = len(df)"})
    assert dialog.kind == "approval" and dialog.tool_id == "call_1"
    assert [o.label for o in dialog.questions[0].options] == ["Approve", "Reject"]
    assert dialog.body == "```python\nx = len(df)\n```"
    # Its arguments not listed yet: the dialog still asks, with no body to show.
    assert tool_server_dialog(request, None).body == ""
