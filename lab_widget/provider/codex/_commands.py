"""The slash commands a Codex run offers: the pinned builtins.

Codex 0.171.0 has no file-defined slash commands: custom prompts (``~/.codex/prompts``)
were removed in 0.117 and nothing in 0.171.0 reads that folder; presets live in the TUI's
own settings, and skills are invoked with ``$name`` or the ``/skills`` picker, not as slash
commands. So the catalog is the pinned builtin table alone.
"""

from __future__ import annotations

from pathlib import Path

from ...schema import CommandSpec
from ..kit import builtin_table
from . import _compat

__all__ = ["BUILTIN_COMMANDS", "CURATED_OUT", "catalog", "command_sources"]

CURATED_OUT: dict[str, str] = {
    # Run live in the pinned TUI (scripted model): /status and /recap print only into the
    # terminal (the rollout keeps nothing); /plan switches to Plan mode, whose question
    # picker (request_user_input) the chat answers; /new, /init (a prompt), /compact
    # (a compaction in the rollout) and /stop return to the prompt. The rest judged from
    # their descriptions in the TUI's own "/" menu: the chat must not offer what opens a
    # picker, panel or field it cannot see, or ends, moves or replaces the conversation.
    "/model": "opens the model and reasoning-effort picker",
    "/presets": "opens the presets picker",
    "/ide": "connects the terminal to an IDE",
    "/permissions": "opens the permissions picker",
    "/keymap": "opens the shortcut editor",
    "/vim": "only changes how the terminal's composer edits text",
    "/experimental": "opens the experimental-features picker",
    "/approve": "acts on an auto-review denial shown only in the terminal",
    "/memories": "opens the memory settings panel",
    "/skills": "opens the skills picker",
    "/import": "opens an import flow in the terminal",
    "/hooks": "opens the hooks browser",
    "/review": "opens the review-target picker",
    "/rename": "asks for the name in a field inside the terminal",
    "/archive": "archives the session, which ends the run's conversation",
    "/delete": "deletes the session",
    "/resume": "opens the session picker",
    "/fork": "switches the terminal to a forked thread",
    "/worktree": "moves the conversation to another folder than the run's",
    "/config": "opens the settings panel",
    "/recap": "prints the recap only into the terminal; the rollout keeps nothing",
    "/voice": "starts voice input on the agent's machine",
    "/goal": "without an argument it opens the goal panel",
    "/agents": "opens the agent command center",
    "/side": "opens a side conversation in the terminal",
    "/copy": "copies into the terminal's clipboard, not the notebook's",
    "/export": "asks where to write in the terminal",
    "/raw": "only changes the terminal's scrollback mode",
    "/tui": "changes the TUI for the next launch",
    "/diff": "shows the diff in the terminal only",
    "/mention": "opens a file picker",
    "/status": "prints only into the terminal; the rollout keeps nothing",
    "/daemon": "manages a background server outside the run",
    "/rc": "manages remote control of a background server",
    "/warnings": "opens the warnings panel",
    "/cd": "moves the session to another folder than the run's",
    "/pwd": "prints into the terminal only",
    "/title": "opens the terminal-title panel",
    "/statusline": "opens the status-line panel",
    "/theme": "opens the theme picker",
    "/pets": "opens the pet picker",
    "/mcp": "prints into the terminal only",
    "/logout": "signs the agent out; the run cannot continue",
    "/exit": "quits the agent, which ends the run",
    "/feedback": "opens the feedback flow",
    "/ps": "prints into the terminal only",
    "/clear": "also clears the terminal; /new is the clear command the chat follows",
    "/subagents": "opens the subagent switcher",
}
"""Builtins a chat must not offer, each with why."""


BUILTIN_COMMANDS = builtin_table(
    _compat.CLEAR_COMMAND,
    CURATED_OUT,
    ("/model", "choose what model and reasoning effort to use"),
    ("/presets", "run or save reusable prompts and slash commands"),
    ("/ide", "include current selection, open files, and other context from your IDE"),
    ("/permissions", "choose what Codex is allowed to do"),
    ("/keymap", "remap TUI shortcuts"),
    ("/vim", "toggle Vim mode for the composer"),
    ("/experimental", "toggle experimental features"),
    ("/approve", "approve one retry of a recent auto-review denial"),
    ("/memories", "configure memory use and generation"),
    ("/skills", "use skills to improve how Codex performs specific tasks"),
    ("/import", "import setup, this project, and recent chats from Claude Code"),
    ("/hooks", "view and manage lifecycle hooks"),
    ("/review", "review my current changes and find issues"),
    ("/rename", "rename the current thread"),
    ("/new", "start a new chat during a conversation"),
    ("/archive", "archive this session"),
    ("/delete", "permanently delete this session"),
    ("/resume", "resume a saved chat"),
    ("/fork", "fork the current chat"),
    ("/worktree", "start or continue a conversation in a new worktree"),
    ("/init", "create an AGENTS.md file with instructions for Codex"),
    ("/compact", "summarize conversation to prevent hitting the context limit"),
    ("/config", "configure Codex preferences"),
    ("/recap", "summarize the current conversation now"),
    ("/plan", "switch to Plan mode"),
    ("/voice", "start or stop voice; use /voice settings to choose a voice"),
    ("/goal", "set or view the goal for a long-running task"),
    ("/agents", "open the agent command center"),
    ("/side", "start a side conversation"),
    ("/copy", "copy the last response or part of it"),
    ("/export", "export the conversation as markdown"),
    ("/raw", "toggle raw scrollback mode for copy-friendly terminal selection"),
    ("/tui", "choose the TUI mode for the next launch"),
    ("/diff", "show git diff (including untracked files)"),
    ("/mention", "mention a file"),
    ("/status", "show current session configuration and token usage"),
    ("/daemon", "Manage the local background server"),
    ("/rc", "manage remote control for the local background server"),
    ("/warnings", "view retained warnings and diagnostic details"),
    ("/cd", "change the current working directory"),
    ("/pwd", "show the current working directory"),
    ("/title", "configure which items appear in the terminal title"),
    ("/statusline", "configure which items appear in the status line"),
    ("/theme", "choose a syntax highlighting theme"),
    ("/pets", "choose or hide the terminal pet"),
    ("/mcp", "list MCP tools; /mcp verbose or /mcp login <name> [--environment <id>]"),
    ("/logout", "log out of Codex"),
    ("/exit", "exit Codex"),
    ("/feedback", "send logs to maintainers or save a ZIP"),
    ("/ps", "list background terminals"),
    ("/stop", "stop all background terminals"),
    ("/clear", "clear the terminal and start a new chat"),
    ("/subagents", "switch between this session's subagents"),
)
"""Every builtin the 0.171.0 TUI offers, in the order of its own ``/`` menu.

Where it came from: the TUI itself under tmux with an isolated ``CODEX_HOME`` (plugins and
apps off) and the scripted model, typing ``/`` and walking the menu with Down; the live
test ``test_pinned_builtins_match_the_tui_menu`` repeats the walk and fails on drift. The
same descriptions are in the binary's strings."""


def catalog(cwd: Path) -> list[CommandSpec]:
    """The builtins, chat-unsafe ones marked (``chat_safe=False``).

    Examples
    --------
    >>> specs = {c.name: c for c in catalog(Path("."))}
    >>> specs["/new"].role, specs["/model"].chat_safe
    ('clear', False)
    """
    return list(BUILTIN_COMMANDS)


def command_sources(cwd: Path) -> list[Path]:
    """No folder defines Codex commands."""
    return []
