"""The slash commands a Copilot CLI run offers: its pinned builtins, each curated out of the
chat with its reason where it would strand the TUI in a picker or act outside the run.

Copilot CLI 1.0.102 has no custom slash commands of its own: its skills
(``.github/skills/``) and agents come in through ``/skills`` and ``/agent``, pickers the chat
curates out. So the catalog is the builtin table, and no folder defines commands.
"""

from __future__ import annotations

from pathlib import Path

from ...schema import CommandSpec
from ..kit import builtin_table, merge_commands
from . import _compat

__all__ = ["BUILTIN_COMMANDS", "CURATED_OUT", "catalog", "command_sources"]

CURATED_OUT: dict[str, str] = {
    "/agent": "opens the agent picker",
    "/skills": "opens the skills manager",
    "/mcp": "opens the MCP server manager",
    "/plugin": "opens the plugin manager",
    "/model": "opens the model picker",
    "/delegate": "sends the session to GitHub, outside the run",
    "/fleet": "changes how the run's sub-agents run, shown in the terminal only",
    "/autopilot": "lets the agent go on unasked, past the chat's approvals",
    "/tasks": "opens the tasks panel",
    "/ide": "connects to an IDE outside the run",
    "/diff": "opens the diff view in the terminal",
    "/pr": "acts on GitHub, outside the run",
    "/lsp": "opens the language server configuration",
    "/terminal-setup": "changes the terminal's keybindings",
    "/permissions": "opens the permission mode picker",
    "/allow-all": "turns off the approvals the chat answers",
    "/sandbox": "opens the sandbox settings",
    "/add-dir": "grants folders outside the run",
    "/list-dirs": "prints into the terminal only",
    "/cwd": "moves the run to another folder",
    "/reset-allowed-tools": "prints into the terminal only",
    "/resume": "switches to another session through a picker",
    "/rename": "prints into the terminal only",
    "/fork": "forks into another session the run does not follow",
    "/worktree": "moves the run into another worktree",
    "/move": "moves the run into another worktree",
    "/context": "prints into the terminal only",
    "/usage": "prints into the terminal only",
    "/session": "prints into the terminal only",
    "/share": "opens the sharing actions",
    "/remote": "shares the session outside the run",
    "/copy": "copies into the terminal's clipboard, not the notebook's",
    "/rewind": "opens the rewind picker",
    "/help": "prints into the terminal only",
    "/changelog": "prints into the terminal only",
    "/feedback": "opens the feedback form",
    "/diagnose": "prints into the terminal only",
    "/theme": "opens the theme picker",
    "/statusline": "opens the status line settings",
    "/footer": "opens the status line settings",
    "/update": "updates the pinned CLI",
    "/version": "prints into the terminal only",
    "/experimental": "prints into the terminal only",
    "/memory": "prints into the terminal only",
    "/instructions": "opens the instruction files picker",
    "/app": "points at a desktop app",
    "/ask": "answers in the terminal only, outside the history",
    "/chronicle": "prints into the terminal only",
    "/collect-debug-logs": "collects logs outside the run",
    "/computer": "toggles Computer Use, outside the chat",
    "/env": "prints into the terminal only",
    "/exit": "quits the agent, which ends the run",
    "/keep-alive": "changes the machine's sleep, not the run",
    "/limits": "opens the limits editor",
    "/login": "opens the GitHub device login",
    "/logout": "logs the user out of GitHub",
    "/new": "starts a new conversation like /clear, without its echo; the chat clears with /clear",
    "/plan": "switches to plan mode, whose questions the chat cannot answer",
    "/refine": "rewrites the prompt box in the terminal",
    "/research": "needs GitHub search, off in an offline run",
    "/restart": "restarts the CLI under the run",
    "/search": "opens the timeline search",
    "/settings": "opens the settings panel",
    "/subagents": "opens the sub-agent model settings",
    "/user": "opens the account manager",
    "/vim": "only changes how the terminal's prompt edits text",
    "/voice": "opens voice mode",
}
"""Builtins a chat must not offer, each with why."""

BUILTIN_COMMANDS = builtin_table(
    _compat.CLEAR_COMMAND,
    CURATED_OUT,
    ("/init", "Initialize Copilot instructions for this repository"),
    ("/agent", "Browse and select agents: /agent [name]"),
    ("/skills", "Manage skills for enhanced capabilities"),
    ("/mcp", "Manage MCP server configuration"),
    ("/plugin", "Manage plugins and plugin marketplaces"),
    (
        "/model",
        "Select the AI model for this session (use 'auto' to let Copilot pick "
        "automatically). Use /config model to set the user default, '--repo'/'--local' to"
        " set the repo default, or 'plan'/'--plan' to set the plan-mode model.",
    ),
    (
        "/delegate",
        "Send this session to GitHub and Copilot will create a PR; use --base to choose "
        "the PR target branch",
    ),
    ("/fleet", "Enable fleet mode for parallel subagent execution"),
    (
        "/autopilot",
        "Toggle autopilot mode, or set an autopilot objective with an optional AI-credit "
        "limit (--max-ai-credits)",
    ),
    ("/tasks", "View and manage tasks (subagents and shell commands)"),
    ("/ide", "Connect to an IDE workspace"),
    ("/diff", "Review the changes made in the current directory"),
    ("/pr", "Operate on pull requests for the current branch"),
    ("/review", "Run code review agent to analyze changes"),
    ("/security-review", "Analyze staged and unstaged changes for security vulnerabilities."),
    (
        "/rubber-duck",
        "Get an independent critique of your current work from the rubber duck agent",
    ),
    ("/lsp", "Manage language server configuration"),
    ("/terminal-setup", "Configure terminal for multiline input support (shift+enter)"),
    ("/permissions", "Switch between permission modes"),
    ("/allow-all", "Enable all permissions (tools, paths, and URLs)"),
    (
        "/sandbox",
        "Manage sandbox settings, including file path permissions, network permissions, and more",
    ),
    (
        "/add-dir",
        "Allow file access to a directory and load its .github skills and agents as "
        "trusted configuration",
    ),
    ("/list-dirs", "Display allowed directories and exact session path grants"),
    ("/cwd", "Change working directory or show current directory"),
    ("/reset-allowed-tools", "Reset session tool and exact-path approvals"),
    ("/resume", "Switch sessions by local or cloud history ID, task ID, or name"),
    ("/rename", "Rename the current session, or auto-generate a name from conversation"),
    (
        "/fork",
        "Fork the current session into a new session, optionally with a name. Use `/fork "
        "worktree` to fork into a new worktree based on the current branch.",
    ),
    (
        "/worktree",
        "Create a new git worktree from your configured base ref and switch into it, "
        "leaving your uncommitted changes behind. Use `/new worktree` for an empty "
        "session or `/fork worktree` to preserve the current context. The deprecated "
        "`/worktree new` command still works for now.",
    ),
    (
        "/move",
        "Move your uncommitted changes into a new git worktree and switch into it. Pass a"
        " branch name, a task to start, or nothing to auto-name.",
    ),
    ("/context", "Show context window token usage and visualization"),
    ("/usage", "Display session usage metrics and statistics"),
    ("/session", "View and manage sessions. Use subcommands for details."),
    (
        "/compact",
        "Summarize conversation history to reduce context window usage. Optionally "
        "provide focus instructions.",
    ),
    (
        "/share",
        "Open sharing actions for this session, or export with file, html, gist, research, or link",
    ),
    (
        "/remote",
        "Share this session: remote control from GitHub web and mobile, or directly with "
        "another CLI",
    ),
    ("/copy", "Copy the last response to the clipboard"),
    ("/rewind", "Rewind the last turn and revert file changes"),
    ("/help", "Show help for interactive commands"),
    ("/changelog", "Display changelog for CLI versions. Add 'summarize' to get an AI summary."),
    ("/feedback", "Provide feedback about the CLI"),
    ("/diagnose", "Analyze session logs, including why a permission request needed approval"),
    ("/theme", "View or set color mode"),
    ("/statusline", "Configure status line items"),
    ("/footer", "Configure status line items"),
    ("/update", "Update the CLI to the latest version"),
    ("/version", "Display version information and check for updates"),
    ("/experimental", "Show available experimental features, or enable/disable experimental mode"),
    ("/memory", "Show memory status, or enable/disable memory across sessions"),
    ("/clear", "Abandon this session and start fresh"),
    ("/instructions", "View and toggle custom instruction files"),
    ("/app", "Prefer a visual workspace? Try out the GitHub Copilot desktop app"),
    ("/ask", "Ask a side question or reopen a recently cached answer without adding to history"),
    ("/chronicle", "Session history tools and insights"),
    (
        "/collect-debug-logs",
        "Collect debug logs to a local .tgz file, share with GitHub after consent, or "
        "create a secret GitHub gist",
    ),
    ("/computer", "Show or toggle Computer Use"),
    (
        "/env",
        "Show loaded environment details (instructions, MCP servers, skills, agents, "
        "hooks, plugins, LSPs, extensions)",
    ),
    ("/exit", "Exit the CLI; use 'print' to print the session after exiting alt screen"),
    ("/keep-alive", "Manage keep-alive mode (prevents system sleep)."),
    ("/limits", "View or edit session limits; the AI Credit limit is a soft cap"),
    ("/login", "Log in to Copilot"),
    ("/logout", "Log out of an OAuth login session"),
    ("/new", "Start a new conversation"),
    ("/plan", "Create an implementation plan before coding"),
    (
        "/refine",
        "Rewrite a rough, stream-of-consciousness prompt into a clear one for review "
        "(Ctrl+X / then /refine cleans up your current input)",
    ),
    ("/research", "Run deep research investigation using GitHub search and web sources"),
    ("/restart", "Restart the CLI, restoring supported live sessions in this process"),
    ("/search", "Search the conversation timeline (experimental)"),
    (
        "/settings",
        "Open the settings UI, show, set, or unset a single value ('/settings unset "
        "<key>' removes it). Use '--repo'/'--local' to target repo settings.",
    ),
    ("/subagents", "Configure default and per-agent subagent models"),
    ("/user", "Manage signed-in accounts"),
    (
        "/vim",
        "Toggle Vim mode for the input (hjkl/w/b/e/ge/0/^/$/gg/G motions, f/F/t/T/;/, "
        "char search, i/a/o insert, r/~/J/x/D/C edit, d/c/y operators, y/p/P yank & put, "
        ". repeat, u/ctrl+r undo & redo, counts, esc for normal mode)",
    ),
    ("/voice", "Manage voice mode (dictation transcription via Foundry Local)"),
)
"""The 1.0.102 builtins as ``copilot help commands`` lists them (names and descriptions as
written there, in its order)."""


def catalog(cwd: Path) -> list[CommandSpec]:
    """The builtins, the chat-unsafe ones marked.

    Examples
    --------
    >>> specs = {c.name: c for c in catalog(Path("/nonexistent"))}
    >>> specs["/clear"].role, specs["/model"].chat_safe, specs["/compact"].chat_safe
    ('clear', False, True)
    """
    return merge_commands(BUILTIN_COMMANDS, ())


def command_sources(cwd: Path) -> list[Path]:
    """No folder defines Copilot CLI slash commands."""
    return []
