"""Mistral Vibe given the run's own MCP servers: they reach the CLI through its ``VIBE_*``
variables only, asking tools ask, reading tools run, and no mode runs tools unasked."""

from __future__ import annotations

import json
from pathlib import Path

from lab_widget.provider import Endpoint, RunContext, SpawnRequest, ToolServer, get_provider
from lab_widget.provider.mistral_vibe import _compat

SERVER = ToolServer(
    "kernel", ["python", "-m", "k"], {"A": "1"}, asking=("run_python",), reading=("describe",)
)


def test_the_servers_go_in_the_run_environment_and_nothing_is_written(tmp_path: Path) -> None:
    context = RunContext(run_id="r", cwd=tmp_path, runtime_dir=tmp_path / "rt")
    request = SpawnRequest(
        context=context,
        binary=Path("vibe"),
        endpoint=Endpoint("http://127.0.0.1:1", "k"),
        tool_servers=(SERVER,),
    )
    plan = get_provider("mistral-vibe").plan_spawn(request)
    [entry] = json.loads(plan.env[_compat.ENV_MCP_SERVERS])
    assert entry == {
        "name": "kernel",
        "transport": "stdio",
        "command": "python",
        "args": ["-m", "k"],
        "env": {"A": "1"},
    }
    assert json.loads(plan.env[_compat.ENV_TOOLS]) == {
        "kernel_run_python": {"permission": "ask"},
        "kernel_describe": {"permission": "always"},
    }
    assert plan.env["VIBE_ENABLE_AUTO_APPROVE"] == "false"
    configs = list(tmp_path.rglob(_compat.CONFIG_FILE))
    assert configs and not any("mcp" in p.read_text() for p in configs)


def test_a_run_without_servers_has_none(tmp_path: Path) -> None:
    context = RunContext(run_id="r", cwd=tmp_path, runtime_dir=tmp_path / "rt")
    request = SpawnRequest(
        context=context, binary=Path("vibe"), endpoint=Endpoint("http://127.0.0.1:1", "k")
    )
    plan = get_provider("mistral-vibe").plan_spawn(request)
    assert _compat.ENV_MCP_SERVERS not in plan.env
    assert "VIBE_ENABLE_AUTO_APPROVE" not in plan.env
