"""The slash commands an OpenCode run offers: pinned builtins and custom Markdown commands.

Custom commands are ``.md`` files under ``.opencode/command(s)`` in the run's folder
(project) and under the user's ``$XDG_CONFIG_HOME/opencode/command(s)`` (user), described by
their frontmatter ``description``; a project command of the same name as a user one wins.
"""

from __future__ import annotations

import re
from pathlib import Path

from ...schema import CommandSpec
from ..kit import builtin_table, merge_commands
from . import _compat
from ._config import config_home

__all__ = ["BUILTIN_COMMANDS", "CURATED_OUT", "catalog", "command_sources"]

CURATED_OUT: dict[str, str] = {
    "/agents": "opens the agent picker",
    "/connect": "opens the provider sign-in dialog",
    "/copy": "copies into the terminal's clipboard, not the notebook's",
    "/debug": "shows debug info in the terminal only",
    "/diff": "opens the diff viewer in the terminal",
    "/editor": "opens an editor in the terminal",
    "/exit": "quits the agent, which ends the run",
    "/export": "opens an export dialog in the terminal",
    "/fork": "switches the terminal to a forked session",
    "/help": "opens the help dialog",
    "/mcps": "opens the MCP picker",
    "/models": "opens the model picker",
    "/move": "moves the session to another folder than the run's",
    "/rename": "asks for the name in a dialog in the terminal",
    "/sessions": "opens the session picker",
    "/skills": "opens the skills picker",
    "/status": "shows status in the terminal only",
    "/themes": "opens the theme picker",
    "/thinking": "only changes what the terminal shows",
    "/timeline": "opens the message picker",
    "/timestamps": "only changes what the terminal shows",
    "/undo": "rewrites the session in place",
}
"""Builtins a chat must not offer, each with why."""


BUILTIN_COMMANDS = builtin_table(
    _compat.CLEAR_COMMAND,
    CURATED_OUT,
    ("/agents", "Switch agent"),
    ("/compact", "Compact session"),
    ("/connect", "Connect provider"),
    ("/copy", "Copy session transcript"),
    ("/debug", "View debug info"),
    ("/diff", "Open diff viewer"),
    ("/editor", "Open editor"),
    ("/exit", "Exit the app"),
    ("/export", "Export session transcript"),
    ("/fork", "Fork session"),
    ("/help", "Help"),
    ("/init", "guided AGENTS.md setup"),
    ("/mcps", "Toggle MCPs"),
    ("/models", "Switch model"),
    ("/move", "Move to another project dir"),
    ("/new", "New session"),
    ("/rename", "Rename session"),
    ("/review", "review changes [commit|branch|pr], defaults to uncommitted"),
    ("/sessions", "Switch session"),
    ("/skills", "Skills"),
    ("/status", "View status"),
    ("/themes", "Switch theme"),
    ("/thinking", "Expand thinking"),
    ("/timeline", "Jump to message"),
    ("/timestamps", "Show timestamps"),
    ("/undo", "Undo previous message"),
)
"""The 1.18.33 TUI's ``/`` menu once a session exists (isolated config, no custom
commands), walked with Down under tmux (``test_pinned_builtins_match_the_tui_menu``);
``/init`` and ``/review`` are the server's own commands (``GET /command``)."""


def catalog(cwd: Path) -> list[CommandSpec]:
    """The builtins (chat-unsafe ones marked) and the custom Markdown commands; a builtin
    keeps its name.
    """
    custom = [
        spec
        for source, folders in (
            ("user", [config_home() / d for d in _compat.USER_COMMAND_DIRS]),
            ("project", [Path(cwd) / d for d in _compat.COMMAND_DIRS]),
        )
        for folder in folders
        for spec in _custom_commands(folder, source)
    ]
    return merge_commands(BUILTIN_COMMANDS, custom)


def command_sources(cwd: Path) -> list[Path]:
    """The folders whose ``.md`` files define commands (user first, then project)."""
    return [
        *(config_home() / d for d in _compat.USER_COMMAND_DIRS),
        *(Path(cwd) / d for d in _compat.COMMAND_DIRS),
    ]


_FRONTMATTER = re.compile(r"\A---\s*\n(.*?)\n---\s*\n", re.DOTALL)


def _custom_commands(folder: Path, source: str) -> list[CommandSpec]:
    try:
        files = sorted(folder.rglob("*.md"))
    except OSError:
        return []
    specs = []
    for path in files:
        try:
            text = path.read_text(errors="replace")
        except OSError:
            continue
        description = ""
        match = _FRONTMATTER.match(text)
        if match:
            for line in match.group(1).splitlines():
                key, _, value = line.partition(":")
                if key.strip() == "description":
                    description = value.strip().strip("\"'")
        name = "/" + path.relative_to(folder).with_suffix("").as_posix()
        if " " in name:
            continue
        specs.append(
            CommandSpec(
                name=name,
                description=description or f"{source} command",
                arg_hint="$ARGUMENTS" if "$ARGUMENTS" in text else "",
                source="user" if source == "user" else "project",
            )
        )
    return specs
