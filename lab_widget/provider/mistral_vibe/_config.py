"""Mistral Vibe's config: where the user's own home is, and the ``config.toml`` of an
isolated run's home that points the CLI at an endpoint, and nothing else of the user's.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path

from .. import ToolServer
from . import _compat

__all__ = ["isolated_config", "tool_server_env", "user_dir"]


def user_dir() -> Path:
    """The user's own Vibe home (``$VIBE_HOME``, else ``~/.vibe``)."""
    return Path(os.environ.get(_compat.ENV_HOME) or Path.home() / _compat.USER_HOME)


def _toml(value: str) -> str:
    """A TOML basic string (JSON's escapes are TOML's).

    Examples
    --------
    >>> print(_toml("say 'hi'"))
    "say 'hi'"
    """
    return json.dumps(value)


def isolated_config(home: Path, base_url: str, model: str | None) -> None:
    """Write an isolated run's ``home``: one provider at ``base_url`` (chat completions,
    its key in :data:`~._compat.ENV_KEY`), one model on it, made active; no update check,
    banner animation or greeting, and no background title requests.
    """
    home.mkdir(parents=True, exist_ok=True)
    lines = [
        f"active_model = {_toml(_compat.ENDPOINT_ALIAS)}",
        "enable_update_checks = false",
        "disable_welcome_banner_animation = true",
        "show_greeting = false",
        "",
        "[[providers]]",
        f"name = {_toml(_compat.ENDPOINT_PROVIDER)}",
        f"api_base = {_toml(base_url)}",
        f"api_key_env_var = {_toml(_compat.ENV_KEY)}",
        f"api_style = {_toml(_compat.API_STYLE)}",
        "",
        "[[models]]",
        f"name = {_toml(model or _compat.ENDPOINT_MODEL)}",
        f"provider = {_toml(_compat.ENDPOINT_PROVIDER)}",
        f"alias = {_toml(_compat.ENDPOINT_ALIAS)}",
        "input_price = 0.0",
        "output_price = 0.0",
        "",
        "[session_logging]",
        "generate_titles = false",
        "",
    ]
    (home / _compat.CONFIG_FILE).write_text("\n".join(lines))


def tool_server_env(servers: Sequence[ToolServer]) -> dict[str, str]:
    """The run's ``VIBE_*`` variables that give the CLI ``servers`` over stdio, for this
    process alone (the environment layer sits over the user's and the project's
    ``config.toml``, so nothing of the user's is written or can widen it): each asking
    tool asks before every call, each reading tool runs without asking, and no agent
    profile or setting may run tools unasked.

    Examples
    --------
    >>> env = tool_server_env([ToolServer("kernel", ["py", "-m", "k"], asking=("run",),
    ...                                   reading=("ls",))])
    >>> json.loads(env["VIBE_MCP_SERVERS"])[0]["command"], env["VIBE_ENABLE_AUTO_APPROVE"]
    ('py', 'false')
    >>> json.loads(env["VIBE_TOOLS"])
    {'kernel_run': {'permission': 'ask'}, 'kernel_ls': {'permission': 'always'}}
    >>> slow = ToolServer("kernel", ["k"], call_timeout=360)
    >>> json.loads(tool_server_env([slow])["VIBE_MCP_SERVERS"])[0]["tool_timeout_sec"]
    360
    """
    name = _compat.MCP_PERMISSIONS.tool
    tools: dict[str, dict[str, str]] = {}
    for server in servers:
        tools |= {name(server.name, t): {"permission": "ask"} for t in server.asking}
        tools |= {name(server.name, t): {"permission": "always"} for t in server.reading}
    entries = [
        {
            "name": s.name,
            "transport": "stdio",
            "command": s.command[0],
            "args": list(s.command[1:]),
            "env": dict(s.env),
            **({} if s.call_timeout is None else {_compat.MCP_CALL_TIMEOUT: s.call_timeout}),
        }
        for s in servers
    ]
    return {
        _compat.ENV_MCP_SERVERS: json.dumps(entries),
        _compat.ENV_TOOLS: json.dumps(tools),
        **_compat.ASKING_ENV,
    }
