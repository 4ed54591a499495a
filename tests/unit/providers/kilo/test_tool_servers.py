"""Unit: a Kilo run given MCP servers gets them, and their rules, in Kilo's own inline config
variable (OpenCode's family code, Kilo's names and pins)."""

from __future__ import annotations

import json
from pathlib import Path

from lab_widget.provider import Endpoint, RunContext, SpawnRequest, ToolServer, get_provider
from lab_widget.provider.opencode._server import STATE


def test_the_servers_go_in_kilo_s_inline_config(tmp_path: Path) -> None:
    server = ToolServer("kernel", ("python", "-m", "k"), asking=("run_python",))
    context = RunContext(run_id="r", cwd=tmp_path, runtime_dir=tmp_path / "run")
    request = SpawnRequest(
        context=context,
        binary=Path("kilo"),
        endpoint=Endpoint("http://127.0.0.1:1", "k"),
        tool_servers=(server,),
    )
    plan = get_provider("kilo").plan_spawn(request)
    assert "OPENCODE_CONFIG_CONTENT" not in plan.env
    config = json.loads(plan.env["KILO_CONFIG_CONTENT"])
    assert config["mcp"]["kernel"]["command"] == ["python", "-m", "k"]
    assert config["permission"] == {"kernel_run_python": "ask"}
    assert "KILO_CONFIG_CONTENT" not in plan.unset_env
    assert STATE.read(context)["asking"] == ["kernel_run_python"]
