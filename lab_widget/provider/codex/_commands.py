"""The slash commands a Codex run offers: the pinned builtins.

Codex 0.171.0 has no file-defined slash commands: custom prompts (``~/.codex/prompts``)
were removed in 0.117 and nothing in 0.171.0 reads that folder; presets live in the TUI's
own settings, and skills are invoked with ``$name`` or the ``/skills`` picker, not as slash
commands. So the catalog is the pinned builtin table alone.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

from ...schema import CommandSpec
from .. import builtin_command
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


_builtin = partial(builtin_command, clear_command=_compat.CLEAR_COMMAND, curated_out=CURATED_OUT)


BUILTIN_COMMANDS: tuple[CommandSpec, ...] = (
    _builtin("/model", "choose what model and reasoning effort to use"),
    _builtin("/presets", "run or save reusable prompts and slash commands"),
    _builtin("/ide", "include current selection, open files, and other context from your IDE"),
    _builtin("/permissions", "choose what Codex is allowed to do"),
    _builtin("/keymap", "remap TUI shortcuts"),
    _builtin("/vim", "toggle Vim mode for the composer"),
    _builtin("/experimental", "toggle experimental features"),
    _builtin("/approve", "approve one retry of a recent auto-review denial"),
    _builtin("/memories", "configure memory use and generation"),
    _builtin("/skills", "use skills to improve how Codex performs specific tasks"),
    _builtin("/import", "import setup, this project, and recent chats from Claude Code"),
    _builtin("/hooks", "view and manage lifecycle hooks"),
    _builtin("/review", "review my current changes and find issues"),
    _builtin("/rename", "rename the current thread"),
    _builtin("/new", "start a new chat during a conversation"),
    _builtin("/archive", "archive this session"),
    _builtin("/delete", "permanently delete this session"),
    _builtin("/resume", "resume a saved chat"),
    _builtin("/fork", "fork the current chat"),
    _builtin("/worktree", "start or continue a conversation in a new worktree"),
    _builtin("/init", "create an AGENTS.md file with instructions for Codex"),
    _builtin("/compact", "summarize conversation to prevent hitting the context limit"),
    _builtin("/config", "configure Codex preferences"),
    _builtin("/recap", "summarize the current conversation now"),
    _builtin("/plan", "switch to Plan mode"),
    _builtin("/voice", "start or stop voice; use /voice settings to choose a voice"),
    _builtin("/goal", "set or view the goal for a long-running task"),
    _builtin("/agents", "open the agent command center"),
    _builtin("/side", "start a side conversation"),
    _builtin("/copy", "copy the last response or part of it"),
    _builtin("/export", "export the conversation as markdown"),
    _builtin("/raw", "toggle raw scrollback mode for copy-friendly terminal selection"),
    _builtin("/tui", "choose the TUI mode for the next launch"),
    _builtin("/diff", "show git diff (including untracked files)"),
    _builtin("/mention", "mention a file"),
    _builtin("/status", "show current session configuration and token usage"),
    _builtin("/daemon", "Manage the local background server"),
    _builtin("/rc", "manage remote control for the local background server"),
    _builtin("/warnings", "view retained warnings and diagnostic details"),
    _builtin("/cd", "change the current working directory"),
    _builtin("/pwd", "show the current working directory"),
    _builtin("/title", "configure which items appear in the terminal title"),
    _builtin("/statusline", "configure which items appear in the status line"),
    _builtin("/theme", "choose a syntax highlighting theme"),
    _builtin("/pets", "choose or hide the terminal pet"),
    _builtin("/mcp", "list MCP tools; /mcp verbose or /mcp login <name> [--environment <id>]"),
    _builtin("/logout", "log out of Codex"),
    _builtin("/exit", "exit Codex"),
    _builtin("/feedback", "send logs to maintainers or save a ZIP"),
    _builtin("/ps", "list background terminals"),
    _builtin("/stop", "stop all background terminals"),
    _builtin("/clear", "clear the terminal and start a new chat"),
    _builtin("/subagents", "switch between this session's subagents"),
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
