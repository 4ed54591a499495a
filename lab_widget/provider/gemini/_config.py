"""Gemini CLI's config: its global dir, the folders it trusts, and where a settings file may
live for the CLI to read it.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from pathlib import Path

from .. import ToolServer
from ..kit import RunFile, load_json
from . import _compat

__all__ = [
    "RUN_STATE",
    "secure",
    "tool_server_hook",
    "tool_server_policy",
    "tool_server_settings",
    "trusted",
    "user_dir",
]

RUN_STATE = RunFile("gemini.json")
"""What the spawn decided: the run's global dir, when, whether it is isolated, and which
tools of its own servers ask at every call (``asking_tools``)."""


def user_dir() -> Path:
    """The user's global dir (``$GEMINI_CLI_HOME`` or ``$HOME``, then ``.gemini``)."""
    return Path(os.environ.get(_compat.HOME_ENV) or Path.home()) / _compat.GLOBAL_DIR


def secure(folder: Path) -> bool:
    """Whether neither ``folder`` nor a folder above it is writable by group or others."""
    try:
        return not any(p.stat().st_mode & 0o022 for p in (folder, *folder.parents))
    except OSError:
        return False


def trusted(cwd: Path) -> bool:
    if os.environ.get("GEMINI_CLI_TRUST_WORKSPACE", "").lower() == "true":
        return True
    trusted = load_json(user_dir() / "trustedFolders.json")
    folder = Path(cwd).resolve()
    if trusted.get(str(folder)) == "TRUST_FOLDER":
        return True
    return any(trusted.get(str(f)) in ("TRUST_FOLDER", "TRUST_PARENT") for f in folder.parents)


def tool_server_settings(servers: Sequence[ToolServer]) -> dict[str, object]:
    """The settings' ``mcpServers`` that give the CLI ``servers`` over stdio, untrusted (a
    trusted server's tools would run without asking).

    Examples
    --------
    >>> settings = tool_server_settings([ToolServer("kernel", ["python", "-m", "k"], {"A": "1"})])
    >>> settings["kernel"]["args"], settings["kernel"]["trust"]
    (['-m', 'k'], False)
    """
    return {s.name: {**s.stdio(), "trust": False} for s in servers}


def tool_server_policy(servers: Sequence[ToolServer]) -> str:
    """The ``--policy`` file: each asking tool asks before every call, whatever else
    allows it; reading tools are allowed.

    Examples
    --------
    >>> print(tool_server_policy([ToolServer("k", ["k"], asking=("run",), reading=("ls",))]))
    [[rule]]
    toolName = "mcp_k_run"
    decision = "ask_user"
    priority = 999
    <BLANKLINE>
    [[rule]]
    toolName = "mcp_k_ls"
    decision = "allow"
    priority = 999
    <BLANKLINE>
    """
    name = _compat.MCP_TOOLS.tool
    rules = [(name(s.name, t), "ask_user") for s in servers for t in s.asking]
    rules += [(name(s.name, t), "allow") for s in servers for t in s.reading]
    return "\n".join(
        f"[[rule]]\ntoolName = {json.dumps(tool)}\ndecision = {json.dumps(decision)}\n"
        f"priority = {_compat.POLICY_PRIORITY}\n"
        for tool, decision in rules
    )


def tool_server_hook(servers: Sequence[ToolServer], command: str) -> list[dict[str, object]]:
    """The ``BeforeTool`` hook that spools the calls of ``servers``' tools (their arguments,
    for the dialog) and no other tool's.

    Examples
    --------
    >>> tool_server_hook([ToolServer("kernel", ["k"])], "spool")[0]["matcher"]
    '^(?:mcp_kernel_)'
    """
    prefixes = "|".join(re.escape(_compat.MCP_TOOLS.tool(s.name, "")) for s in servers)
    matcher = f"^(?:{prefixes})"
    return [{"matcher": matcher, "hooks": [{"type": "command", "command": command}]}]
