"""Codex's config: the user's ``CODEX_HOME`` and its ``config.toml``, and the ``config.toml``
an isolated run (a scripted model or an endpoint) gets.
"""

from __future__ import annotations

import json
import os
import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .. import ToolServer
from ..kit import RunFile, api_base_url
from . import _compat

__all__ = [
    "RUN_STATE",
    "isolated_config",
    "toml_string",
    "tool_server_overrides",
    "user_codex_home",
    "user_config",
]

RUN_STATE = RunFile("codex.json")
"""What the spawn decided: the run's ``CODEX_HOME``, when, whether it is isolated, and the
tools of the run's own servers that ask before every call."""


def user_codex_home() -> Path:
    return Path(os.environ.get("CODEX_HOME") or Path.home() / ".codex")


def toml_string(value: str) -> str:
    r"""A TOML basic string (JSON's escaping is valid TOML).

    Examples
    --------
    >>> toml_string('a "b" \\ c')
    '"a \\"b\\" \\\\ c"'
    """
    return json.dumps(value)


def isolated_config(cwd: Path, base_url: str, model: str | None) -> str:
    lines = [
        f"model_provider = {toml_string(_compat.PROVIDER_ID)}",
        *([f"model = {toml_string(model)}"] if model else []),
        f"check_for_update_on_startup = {_compat.ISOLATED_SETTINGS['check_for_update_on_startup']}",
        "",
        f"[model_providers.{_compat.PROVIDER_ID}]",
        'name = "lab_widget endpoint"',
        f"base_url = {toml_string(api_base_url(base_url))}",
        'wire_api = "responses"',
        f"env_key = {toml_string(_compat.ENV_KEY)}",
        "",
        "[analytics]",
        f"enabled = {_compat.ISOLATED_SETTINGS['analytics.enabled']}",
        "",
        "[features]",
        f"daemon_auto_start = {_compat.ISOLATED_SETTINGS['features.daemon_auto_start']}",
        f"plugins = {_compat.ISOLATED_SETTINGS['features.plugins']}",
        f"apps = {_compat.ISOLATED_SETTINGS['features.apps']}",
        "",
        f"[projects.{toml_string(str(cwd))}]",
        'trust_level = "trusted"',
        "",
    ]
    return "\n".join(lines)


def user_config(codex_home: Path) -> dict[str, Any]:
    """The user's ``config.toml`` (empty when missing or unreadable)."""
    try:
        return tomllib.loads((codex_home / "config.toml").read_text())
    except (OSError, tomllib.TOMLDecodeError):
        return {}


def _toml_key(key: str) -> str:
    return key if key.replace("-", "_").isidentifier() else toml_string(key)


def toml_inline(value: object) -> str:
    """``value`` (strings, booleans, numbers, lists and tables of them) as one TOML inline
    value.

    Examples
    --------
    >>> toml_inline({"command": "py", "args": ["-m", "k"], "env": {}, "required": True, "n": 6})
    '{command = "py", args = ["-m", "k"], env = {}, required = true, n = 6}'
    >>> toml_inline({"tool_timeout_sec": 5.0})
    '{tool_timeout_sec = 5.0}'
    """
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, dict):
        pairs = (f"{_toml_key(str(k))} = {toml_inline(v)}" for k, v in value.items())
        return "{" + ", ".join(pairs) + "}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(toml_inline(v) for v in value) + "]"
    return toml_string(str(value))


def tool_server_overrides(servers: Sequence[ToolServer]) -> list[str]:
    r"""The ``-c`` options that give the CLI ``servers`` over stdio for this run alone:
    asking tools ask before every call, reading tools run without asking.

    Examples
    --------
    >>> server = ToolServer("kernel", ["py", "-m", "k"], asking=("run",), reading=("ls",))
    >>> settings, table = tool_server_overrides([server])[1:4:2]
    >>> settings
    'approvals_reviewer="user"'
    >>> print(table.replace(", ", ",\n"))
    mcp_servers.kernel={command = "py",
    args = ["-m",
    "k"],
    env = {},
    required = true,
    startup_timeout_sec = 60,
    default_tools_approval_mode = "prompt",
    tools = {ls = {approval_mode = "approve"}}}
    >>> tool_server_overrides([])
    []
    """
    asking, reading = _compat.MCP_APPROVAL_MODES
    args: list[str] = []
    if servers:
        for key, value in _compat.MCP_RUN_SETTINGS.items():
            args += ["-c", f"{key}={value}"]
    for server in servers:
        table = {
            "command": server.command[0],
            "args": list(server.command[1:]),
            "env": dict(server.env),
            **_compat.MCP_STARTUP,
            **(
                {}
                if server.call_timeout is None
                else {_compat.MCP_CALL_TIMEOUT: server.call_timeout}
            ),
            # Every tool asks unless named below, so a tool the server adds later asks too.
            "default_tools_approval_mode": asking,
            "tools": {tool: {"approval_mode": reading} for tool in server.reading},
        }
        args += ["-c", f"mcp_servers.{server.name}={toml_inline(table)}"]
    return args
