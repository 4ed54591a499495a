"""The config of OpenCode and its family: the XDG folders each keeps its config and store
in, and the config file (``opencode.json``, a fork's own) an isolated run gets.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path

from .. import ToolServer
from ..kit import ToolServerNames, api_base_url
from . import _compat
from ._family import OPENCODE, OpenCodeFamily

__all__ = [
    "asking_tools",
    "config_home",
    "data_home",
    "database",
    "isolated_config",
    "tool_server_config",
]


def data_home(env: dict[str, str] | os._Environ[str] = os.environ) -> Path:
    """``$XDG_DATA_HOME`` or ``~/.local/share``."""
    return Path(env.get("XDG_DATA_HOME") or Path(env.get("HOME") or Path.home()) / ".local/share")


def config_home(env: dict[str, str] | os._Environ[str] = os.environ) -> Path:
    """``$XDG_CONFIG_HOME`` or ``~/.config``."""
    return Path(env.get("XDG_CONFIG_HOME") or Path(env.get("HOME") or Path.home()) / ".config")


def database(
    env: dict[str, str] | os._Environ[str] = os.environ, family: OpenCodeFamily = OPENCODE
) -> Path:
    """Where the CLI keeps its store for this environment."""
    override = env.get(family.database_env)
    return Path(override) if override else data_home(env) / family.database_file


def isolated_config(
    base_url: str, model: str, permission: object, family: OpenCodeFamily = OPENCODE
) -> dict[str, object]:
    """The config of an isolated run: one provider, the endpoint's, and its model.

    Examples
    --------
    >>> c = isolated_config("http://127.0.0.1:9", "m", {"bash": "ask"})
    >>> c["model"], c["permission"], c["provider"]["lab_widget"]["options"]["baseURL"]
    ('lab_widget/m', {'bash': 'ask'}, 'http://127.0.0.1:9/v1')
    """
    config: dict[str, object] = {
        "$schema": family.config_schema,
        "provider": {
            _compat.PROVIDER_ID: {
                "npm": _compat.PROVIDER_NPM,
                "name": "lab_widget endpoint",
                "options": {
                    "baseURL": api_base_url(base_url),
                    "apiKey": "{env:" + family.api_key_env + "}",
                },
                "models": {model: {"name": model}},
            }
        },
        "model": f"{_compat.PROVIDER_ID}/{model}",
        **family.extra_config,
    }
    if permission is not None:
        config["permission"] = permission
    return config


def asking_tools(servers: Sequence[ToolServer], names: ToolServerNames) -> list[str]:
    """The names the CLI gives the servers' tools that ask before every call.

    Examples
    --------
    >>> asking_tools([ToolServer("kernel", ["k"], asking=("run",))], _compat.MCP_TOOLS)
    ['kernel_run']
    """
    return [names.tool(s.name, tool) for s in servers for tool in s.asking]


def tool_server_config(
    servers: Sequence[ToolServer],
    names: ToolServerNames,
    inline: str | None = None,
    permission: object = None,
    timeout_key: str = _compat.MCP_CALL_TIMEOUT,
) -> dict[str, object]:
    """The inline config (the family's ``*_CONFIG_CONTENT``) that gives the CLI ``servers``
    over stdio, each asking tool asked before every call and each reading one allowed, merged
    over ``inline``, the user's own inline config if any (kept where it is valid JSON), and
    after the rules ``permission`` (a run's ``permission`` option, or the user's rules from
    the environment), kept. A server's ``call_timeout`` goes in as ``timeout_key`` (ms).

    Examples
    --------
    >>> server = ToolServer("kernel", ["python", "-m", "k"], {"A": "1"}, ("run",), ("ls",))
    >>> config = tool_server_config([server], _compat.MCP_TOOLS, '{"permission": {"*": "ask"}}')
    >>> config["mcp"]["kernel"]["command"], config["permission"]
    (['python', '-m', 'k'], {'*': 'ask', 'kernel_run': 'ask', 'kernel_ls': 'allow'})
    >>> slow = ToolServer("kernel", ["k"], call_timeout=360)
    >>> tool_server_config([slow], _compat.MCP_TOOLS)["mcp"]["kernel"]["timeout"]
    360000
    """
    try:
        config = json.loads(inline) if inline else {}
    except ValueError:
        config = {}
    if not isinstance(config, dict):
        config = {}
    given_mcp = config.get("mcp")
    mcp: dict[str, object] = dict(given_mcp) if isinstance(given_mcp, dict) else {}
    for s in servers:
        entry: dict[str, object] = {
            "type": "local",
            "command": list(s.command),
            "environment": dict(s.env),
            "enabled": True,
        }
        if s.call_timeout is not None:
            entry[timeout_key] = round(s.call_timeout * 1000)
        mcp[s.name] = entry
    # Rules given as one word cover every tool; the run's rules must come after them.
    rules = {**_rules(config.get("permission")), **_rules(permission)}
    for s in servers:
        for tools, action in ((s.asking, _compat.MCP_ASK), (s.reading, _compat.MCP_ALLOW)):
            for tool in tools:
                name = names.tool(s.name, tool)
                rules.pop(name, None)  # re-added last: the last matching rule decides
                rules[name] = action
    return {**config, "mcp": mcp, "permission": rules}


def _rules(given: object) -> dict[str, object]:
    """Permission rules as an object: a word is the rule for every tool (``"*"``)."""
    if isinstance(given, dict):
        return dict(given)
    return {"*": given} if isinstance(given, str) and given else {}
