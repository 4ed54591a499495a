"""Copilot CLI's config: where the user's own is, and the config of an isolated run's home
that trusts the run's folder and carries the run's hooks, so nothing is written into the
user's repository (``.github/hooks``) or their own ``~/.copilot``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .. import ToolServer
from . import _compat

__all__ = ["isolated_config", "tool_server_args", "user_dir"]


def user_dir() -> Path:
    """The user's own ``COPILOT_HOME`` (``$HOME/.copilot`` unless set)."""
    return Path(os.environ.get(_compat.ENV_HOME) or Path.home() / _compat.USER_HOME)


def isolated_config(home: Path, cwd: Path, hooks: dict[str, Any]) -> None:
    """Write an isolated run's ``home``: ``cwd`` trusted (no trust screen) and ``hooks``
    (the run's spool) in its settings, where the CLI reads them for every folder.
    """
    home.mkdir(parents=True, exist_ok=True)
    (home / _compat.CONFIG_FILE).write_text(
        json.dumps({_compat.TRUSTED_FOLDERS: [str(cwd)]}, indent=2)
    )
    (home / _compat.SETTINGS_FILE).write_text(json.dumps({_compat.HOOKS_KEY: hooks}, indent=2))


def tool_server_args(servers: Sequence[ToolServer], runtime_dir: Path) -> list[str]:
    """The options that give the CLI ``servers`` over stdio for this run alone (their
    config written in ``runtime_dir``): reading tools run without asking, the others ask.

    Examples
    --------
    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> server = ToolServer("kernel", ["py", "-m", "k"], asking=("run",), reading=("ls",))
    >>> args = tool_server_args([server], folder)
    >>> args[0], args[1] == f"@{folder / 'copilot-mcp.json'}", args[2:]
    ('--additional-mcp-config', True, ['--allow-tool=kernel(ls)'])
    >>> json.loads((folder / "copilot-mcp.json").read_text())["mcpServers"]["kernel"]["args"]
    ['-m', 'k']
    >>> tool_server_args([], folder)
    []
    """
    if not servers:
        return []
    config = {
        _compat.MCP_SERVERS_KEY: {
            s.name: {
                "type": "local",
                "command": s.command[0],
                "args": list(s.command[1:]),
                "env": dict(s.env),
                "tools": ["*"],
            }
            for s in servers
        }
    }
    path = runtime_dir / "copilot-mcp.json"
    path.write_text(json.dumps(config, indent=2))
    args = [_compat.MCP_CONFIG_FLAG, f"@{path}"]
    for server in servers:
        args += [f"{_compat.ALLOW_TOOL_FLAG}={server.name}({tool})" for tool in server.reading]
    return args
