"""Claude Code's config: the user's config folder and global state file, and the state an
isolated run's home starts with (onboarded, its key approved, its folder trusted).
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path

from .. import ToolServer, kit
from . import _compat

RUN_STATE = kit.RunFile("claude-code.json")
"""What the spawn decided: the session id it passed, the config folder the CLI uses, and
the tools of the run's own servers that ask before every call."""

__all__ = [
    "RUN_STATE",
    "global_state_file",
    "prepare_isolated_home",
    "tool_server_config",
    "tool_server_permissions",
    "user_config_dir",
]


def user_config_dir() -> Path:
    """``$CLAUDE_CONFIG_DIR``, else ``~/.claude``."""
    return Path(os.environ.get("CLAUDE_CONFIG_DIR") or Path.home() / ".claude")


def global_state_file(config_dir: Path | None) -> Path:
    """``.claude.json``: beside the config dir when it is set, else in HOME."""
    if os.environ.get("CLAUDE_CONFIG_DIR") and config_dir is not None:
        return config_dir / ".claude.json"
    return Path.home() / ".claude.json"


def prepare_isolated_home(home: Path, cwd: Path, api_key: str) -> None:
    """Write the global state an isolated run's CLI starts from: no first-run screen."""
    state = {
        "hasCompletedOnboarding": True,
        "theme": "dark",
        "customApiKeyResponses": {"approved": [api_key.strip()[-20:]], "rejected": []},
        "projects": {str(cwd): {"hasTrustDialogAccepted": True}},
    }
    (home / ".claude.json").write_text(json.dumps(state, indent=2))


def tool_server_config(servers: Sequence[ToolServer]) -> dict[str, object]:
    """The ``--mcp-config`` file's content that gives the CLI ``servers`` over stdio.

    Examples
    --------
    >>> config = tool_server_config([ToolServer("kernel", ["python", "-m", "k"], {"A": "1"})])
    >>> config["mcpServers"]["kernel"]["args"]
    ['-m', 'k']
    """
    return {
        "mcpServers": {
            s.name: {
                "type": "stdio",
                "command": s.command[0],
                "args": list(s.command[1:]),
                "env": dict(s.env),
            }
            for s in servers
        }
    }


def tool_server_permissions(servers: Sequence[ToolServer]) -> dict[str, list[str]]:
    """The settings' ``permissions``: each asking tool asks before every call, whatever
    the permission mode allows; reading tools are allowed.

    Examples
    --------
    >>> tool_server_permissions([ToolServer("kernel", ["k"], asking=("run",), reading=("ls",))])
    {'ask': ['mcp__kernel__run'], 'allow': ['mcp__kernel__ls']}
    """
    name = _compat.MCP_TOOLS.tool
    return {
        "ask": [name(s.name, tool) for s in servers for tool in s.asking],
        "allow": [name(s.name, tool) for s in servers for tool in s.reading],
    }
