"""The slash commands a Gemini CLI run offers: pinned builtins and custom TOML commands.

Custom commands are ``.toml`` files under ``.gemini/commands`` in the run's folder
(project) and in the user's global dir (user); a file ``a/b.toml`` is ``/a:b``. A project
command of the same name as a user one wins.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from ...schema import CommandSpec
from ..kit import builtin_table, merge_commands
from . import _compat
from ._config import user_dir

__all__ = ["BUILTIN_COMMANDS", "CURATED_OUT", "catalog", "command_sources"]

CURATED_OUT: dict[str, str] = {
    "/about": "prints into the terminal only",
    "/agents": "opens the agents manager",
    "/auth": "opens the sign-in dialog",
    "/bug": "opens a bug report in a browser",
    "/chat": "opens the saved-conversation browser",
    "/resume": "opens the saved-conversation browser",
    "/copy": "copies into the terminal's clipboard, not the notebook's",
    "/docs": "opens the documentation in a browser",
    "/directory": "changes the workspace folders of the run",
    "/editor": "opens the editor picker",
    "/extensions": "manages extensions outside the run",
    "/footer": "opens the footer panel",
    "/help": "prints into the terminal only",
    "/shortcuts": "toggles a panel in the terminal",
    "/rewind": "opens the rewind picker",
    "/hooks": "manages the hooks the run relies on",
    "/mcp": "prints into the terminal only",
    "/memory": "prints into the terminal only",
    "/model": "opens the model dialog",
    "/permissions": "opens the trust dialog",
    "/plan": "switches to Plan Mode, whose questions the chat cannot answer",
    "/policies": "prints into the terminal only",
    "/privacy": "opens the privacy notice",
    "/quit": "quits the agent, which ends the run",
    "/stats": "prints into the terminal only",
    "/theme": "opens the theme picker",
    "/tools": "prints into the terminal only",
    "/skills": "prints into the terminal only",
    "/settings": "opens the settings panel",
    "/tasks": "toggles a panel in the terminal",
    "/vim": "only changes how the terminal's prompt edits text",
    "/setup-github": "sets up a repository outside the run",
    "/terminal-setup": "changes the terminal's keybindings",
    "/export-session": "writes a file chosen in the terminal",
    "/commands": "prints into the terminal only",
}
"""Builtins a chat must not offer, each with why."""


BUILTIN_COMMANDS = builtin_table(
    _compat.CLEAR_COMMAND,
    CURATED_OUT,
    ("/about", "Show version info"),
    ("/agents", "Manage agents"),
    ("/auth", "Manage authentication"),
    ("/bug", "Submit a bug report"),
    ("/chat", "Browse auto-saved conversations and manage chat checkpoints"),
    ("/clear", "Clear the screen and start a new session"),
    ("/commands", "Manage custom slash commands. Usage: /commands [list|reload]"),
    ("/compress", "Compresses the context by replacing it with a summary"),
    ("/copy", "Copy the last result or code snippet to clipboard"),
    ("/docs", "Open full Gemini CLI documentation in your browser"),
    ("/directory", "Manage workspace directories"),
    ("/editor", "Set external editor preference"),
    ("/export-session", "Export the current session to a JSON file"),
    ("/extensions", "Manage extensions"),
    ("/footer", "Configure which items appear in the footer (statusline)"),
    ("/help", "For help on gemini-cli"),
    ("/shortcuts", "Toggle the shortcuts panel above the input"),
    ("/rewind", "Jump back to a specific message and restart the conversation"),
    ("/hooks", "Manage hooks"),
    ("/init", "Analyzes the project and creates a tailored GEMINI.md file"),
    ("/mcp", "Manage configured Model Context Protocol (MCP) servers"),
    ("/memory", "Commands for interacting with memory"),
    ("/model", "Manage model configuration"),
    ("/permissions", "Manage folder trust settings and other permissions"),
    ("/plan", "Switch to Plan Mode and view current plan"),
    ("/policies", "Manage policies"),
    ("/privacy", "Display the privacy notice"),
    ("/quit", "Exit the cli"),
    ("/resume", "Browse auto-saved conversations and manage chat checkpoints"),
    ("/stats", "Check session stats. Usage: /stats [session|model|tools]"),
    ("/theme", "Change the theme"),
    ("/tools", "List available Gemini CLI tools."),
    ("/skills", "List, enable, disable, or reload Gemini CLI agent skills"),
    ("/settings", "View and edit Gemini CLI settings"),
    ("/tasks", "Toggle background tasks view"),
    ("/vim", "Toggle vim mode on/off"),
    ("/setup-github", "Set up GitHub Actions"),
    ("/terminal-setup", "Configure terminal keybindings for multiline input"),
)
"""The 0.61.0 builtins (``BuiltinCommandLoader`` in ``bundle/chunk-4GP6HFBO.js``, names and
descriptions as written there). Commands it adds only in some setups (``/upgrade``,
``/gemma``, ``/voice``, ``/oncall``, ``/profile``, ``/bug-memory``, hidden ``/corgi``) are
left out."""


def command_sources(cwd: Path) -> list[Path]:
    """The folders whose ``.toml`` files define commands (user first, then project)."""
    return [user_dir() / "commands", Path(cwd) / _compat.CUSTOM_COMMANDS_DIR]


def _custom(folder: Path, source: str) -> list[CommandSpec]:
    specs = []
    try:
        files = sorted(folder.rglob("*.toml"))
    except OSError:
        return []
    for path in files:
        try:
            data = tomllib.loads(path.read_text())
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
            continue
        if not isinstance(data.get("prompt"), str):
            continue  # Gemini CLI skips a command without a prompt
        name = "/" + ":".join(path.relative_to(folder).with_suffix("").parts)
        description = data.get("description")
        specs.append(
            CommandSpec(
                name=name,
                description=description if isinstance(description, str) else "",
                source="project" if source == "project" else "user",
            )
        )
    return specs


def catalog(cwd: Path) -> list[CommandSpec]:
    """The builtins (chat-unsafe ones marked) and the custom commands.

    Examples
    --------
    >>> specs = {c.name: c for c in catalog(Path("/nonexistent"))}
    >>> specs["/clear"].role, specs["/model"].chat_safe
    ('clear', False)
    """
    user, project = command_sources(cwd)
    custom = (*_custom(user, "user"), *_custom(project, "project"))
    return merge_commands(BUILTIN_COMMANDS, custom)
