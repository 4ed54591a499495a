"""Qwen Code's config: its global dir, and the settings of an isolated run that point it at
an OpenAI-compatible endpoint.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .. import ToolServer
from ..kit import RunFile
from . import _compat

__all__ = ["RUN_STATE", "isolated_settings", "tool_server_settings", "user_dir", "write_settings"]

RUN_STATE = RunFile("qwen-code.json")
"""What the spawn decided: the run's global dir, when, whether it is isolated, and which
tools of its own servers ask at every call (``asking_tools``)."""


def user_dir() -> Path:
    """The user's global dir: ``$QWEN_HOME`` itself, else ``~/.qwen``."""
    home = os.environ.get(_compat.HOME_ENV)
    return Path(home) if home else Path.home() / _compat.GLOBAL_DIR


def isolated_settings(base_url: str, model: str | None, hooks: dict[str, Any]) -> dict[str, Any]:
    """The ``settings.json`` of an isolated run: the endpoint as the one OpenAI-compatible
    provider (its key read from :data:`_compat.ENV_KEY`), the run's hooks.

    Examples
    --------
    >>> s = isolated_settings("http://127.0.0.1:9/v1", "m", {})
    >>> s["modelProviders"]["openai"][0]["baseUrl"], s["model"]["name"]
    ('http://127.0.0.1:9/v1', 'm')
    >>> s["security"]["auth"]["selectedType"], s["tools"]["approvalMode"]
    ('openai', 'default')
    """
    name = model or _compat.PROVIDER_ID
    provider = {"id": name, "baseUrl": base_url, "envKey": _compat.ENV_KEY}
    return {
        **_compat.SETTINGS,
        "modelProviders": {"openai": [provider]},
        "model": {"name": name},
        _compat.HOOK_SETTINGS_KEY: hooks,
    }


def write_settings(global_dir: Path, settings: dict[str, Any]) -> None:
    global_dir.mkdir(parents=True, exist_ok=True)
    (global_dir / "settings.json").write_text(json.dumps(settings, indent=2))


def tool_server_settings(servers: Sequence[ToolServer]) -> dict[str, Any]:
    """The settings that give the CLI ``servers`` over stdio (untrusted), each asking tool
    asked before every call and each reading tool allowed.

    Examples
    --------
    >>> s = tool_server_settings([ToolServer("k", ["k"], asking=("run",), reading=("ls",))])
    >>> s["mcpServers"]["k"]["trust"], s["permissions"]
    (False, {'ask': ['mcp__k__run'], 'allow': ['mcp__k__ls']})
    """
    rules: dict[str, list[str]] = {"ask": [], "allow": []}
    for server in servers:
        rules["ask"] += [_compat.MCP_TOOLS.tool(server.name, t) for t in server.asking]
        rules["allow"] += [_compat.MCP_TOOLS.tool(server.name, t) for t in server.reading]
    return {
        "mcpServers": {
            s.name: {**s.stdio(), "trust": False, "alwaysLoadTools": True} for s in servers
        },
        "permissions": rules,
    }
