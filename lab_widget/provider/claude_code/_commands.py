"""Claude Code's slash-command catalog: the pinned builtins merged with custom commands
and skills found where the CLI itself looks for them.

Every rule below was checked against the pinned 2.1.332 binary (its headless
``initialize`` answer, its ``/`` menu, and which file's body reached the model when a
name was typed); ``tests/live/claude_code/test_commands.py`` keeps the main ones honest.

Where
    Project definitions live in ``.claude/commands/`` and ``.claude/skills/`` of the
    run's folder and of every folder above it, up to the git repository's root when
    inside one, else up to ``/``; the home folder itself is never a project folder (its
    ``.claude`` is the user's). User definitions live in ``commands/`` and ``skills/`` of
    the user config folder (``$CLAUDE_CONFIG_DIR``, else ``~/.claude``).
Names
    A command is named by its path below ``commands/`` without ``.md`` (lower case only),
    folders joined by ``:`` (``a/b/c.md`` is ``/a:b:c``; hidden folders count too). A
    skill is ``<name>/SKILL.md`` one level down and is named by its folder; its
    frontmatter ``name`` is only a display alias. ``user-invocable: false`` hides either.
Descriptions
    The frontmatter ``description``, else the first non-empty body line without its
    heading marks, cut to :data:`~._compat.DESCRIPTION_LIMIT` characters.
Clashes
    For one name the CLI runs exactly one definition, and the catalog offers that one: a
    user skill, then a project skill, then a user command, then a project command, then
    the builtin; among project folders the one nearest the run's folder wins. Every loser
    is dropped with a :class:`~lab_widget._chat._commands.CommandFileWarning` naming both,
    because a file that hides a builtin (a project ``clear.md`` runs instead of
    ``/clear``) is rarely meant.
Malformed files
    Files that cannot be read, are larger than the CLI's limit, hold binary data or carry
    frontmatter that does not parse are skipped with a ``CommandFileWarning``; a scan
    never raises. (The CLI itself still offers a file whose frontmatter it cannot parse,
    describing it by its first line; the catalog leaves it out so the warning gets
    noticed.)
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from pathlib import Path

from ...errors import CommandFileWarning
from ...schema import CommandSpec
from .. import builtin_table
from . import _compat
from ._command_files import Found, folders, scan

__all__ = [
    "BUILTIN_COMMANDS",
    "CURATED_OUT",
    "HEADLESS_HIDDEN",
    "INTERACTIVE_ONLY",
    "catalog",
    "command_sources",
]

CURATED_OUT: dict[str, str] = {
    # Run without arguments from the prompt of a live 2.1.332 TUI (tmux, API key, scripted
    # model): "panel", "picker", "form" and "slider" mean the TUI then waited for keys.
    # Judged from their definitions in the binary instead, because running them ends,
    # signs out or hands over the session: /background, /bug, /exit, /feedback,
    # /keybindings, /login, /logout, /memory, /resume; /btw and /mcp were run only in
    # their argument-less or server-less form, which just prints usage or a notice.
    "/add-dir": "asks for the folder in a form inside the terminal",
    "/auto-mode-setup": "opens a setup wizard in the terminal",
    "/autocompact": "without an argument it opens a slider in the terminal",
    "/background": "sends the session to the background and frees the run's terminal",
    "/branch": "switches the terminal to a new branched session",
    "/btw": "answers in an overlay of the terminal (without a question it prints usage)",
    "/bug": "opens a bug-report form in the terminal",
    "/cd": "moves the session to another folder than the run's",
    "/color": "only recolours the terminal's prompt bar",
    "/config": "opens the settings panel",
    "/copy": "copies into the terminal's clipboard (a tmux buffer), not the notebook's",
    "/diff": "shows uncommitted changes in a terminal panel",
    "/effort": "without an argument it opens a slider in the terminal",
    "/exit": "quits the agent, which ends the run",
    "/export": "opens an export picker",
    "/fast": "opens the fast-mode panel",
    "/feedback": "opens a feedback form in the terminal",
    "/focus": "only changes how the terminal shows the conversation",
    "/fork": "starts a background session (a daemon that outlives the run) it does not follow",
    "/goal": "without a condition it opens the goal panel",
    "/help": "opens the help panel",
    "/hooks": "opens the hooks browser",
    "/ide": "manages the terminal's IDE connection and may install an editor extension",
    "/keybindings": "opens the shortcuts file in an editor",
    "/login": "opens the sign-in flow in the terminal",
    "/logout": "signs the agent out; the run cannot continue",
    "/mcp": "opens the MCP server manager when servers are configured",
    "/memory": "opens a memory-file picker, then an editor",
    "/mobile": "shows a QR-code panel",
    "/model": "without an argument it opens the model picker",
    "/permissions": "opens the permission-rules panel",
    "/plugin": "opens the plugin manager",
    "/powerup": "opens an interactive lessons panel",
    "/radio": "opens a web browser on the agent's machine",
    "/release-notes": "shows the notes in the terminal; the transcript keeps only a link",
    "/resume": "opens the session picker",
    "/rewind": "opens the checkpoint picker",
    "/sandbox": "opens the sandbox panel",
    "/scroll-speed": "opens a slider in the terminal",
    "/skills": "opens the skills panel",
    "/status": "opens the status panel",
    "/tasks": "opens the background-tasks panel",
    "/terminal-setup": "changes the terminal's key settings, which the chat does not use",
    "/theme": "opens the theme picker",
    "/tui": "switches the terminal's renderer",
    "/usage": "opens the usage panel (also typed as /cost or /stats)",
    "/workflows": "opens the workflows panel",
}
"""Builtins a chat must not offer, each with why: they open a picker, form or panel the
chat cannot see (the terminal then waits for keys), or act only on the terminal itself.
Everything else prints into the transcript and returns to the prompt, or is a prompt for
the model (the bundled skills from ``/batch`` on)."""


BUILTIN_COMMANDS = builtin_table(
    _compat.CLEAR_COMMAND,
    CURATED_OUT,
    ("/add-dir", "Add a working directory", "<path>"),
    ("/auto-mode-setup", "Teach auto mode about your environment"),
    ("/autocompact", "Set how full the context gets before auto-summarizing", "[auto|<tokens>]"),
    ("/background", "Send this session to the background and free the terminal", "[prompt]"),
    ("/branch", "Create a branch of the current conversation at this point", "[name]"),
    ("/btw", "Ask a side question without interrupting Claude", "[question]"),
    ("/bug", "Report a bug or share your session", "[report]"),
    ("/cd", "Move this session to a new working directory", "<path>"),
    (
        "/clear",
        "Start a new session with empty context; loops carry over, and the old one stays in "
        "/resume",
        "[name]",
    ),
    (
        "/color",
        "Set the prompt bar color for this session",
        "[red|blue|green|yellow|purple|orange|pink|cyan|default]",
    ),
    (
        "/compact",
        "Free up context by summarizing the conversation so far",
        "<optional custom summarization instructions>",
    ),
    ("/config", "Open settings"),
    ("/context", "Show what fills the context", "[all]"),
    ("/copy", "Copy the last response to clipboard (/copy 2 for the one before)"),
    ("/diff", "Toggle the diff panel showing uncommitted changes"),
    (
        "/effort",
        "Set the model's effort level",
        "[low|medium|high|xhigh|max|auto|ultracode [on|off]]",
    ),
    ("/exit", "Exit the CLI"),
    ("/export", "Export this session to a file or clipboard", "[filename]"),
    ("/fast", "Toggle fast mode", "[on|off]"),
    ("/feedback", "Send feedback to Anthropic or report a bug", "[report]"),
    ("/focus", "Toggle focus view: just your prompt, summary, and response"),
    (
        "/fork",
        "Copy this conversation into a new background session and keep working here",
        "[prompt]",
    ),
    ("/goal", "Set a goal Claude checks before stopping", "[<condition> | clear]"),
    ("/help", "Show help and available commands", "[command]"),
    ("/hooks", "View hook configurations for tool events"),
    ("/ide", "Manage IDE integrations and show status", "[open]"),
    ("/keybindings", "Open your keyboard shortcuts file"),
    ("/list-agents", "List subagents, teammates, and other Claude sessions you can message"),
    ("/login", "Switch Anthropic accounts"),
    ("/logout", "Sign out from your Anthropic account"),
    ("/mcp", "Manage MCP servers", "[reconnect (<server>|all)|enable|disable [<server>|all]]"),
    ("/memory", "Edit CLAUDE.md files and memory settings"),
    ("/mobile", "Show QR code to download the Claude mobile app"),
    ("/model", "Switch model", "[model]"),
    ("/output-style", "List output styles or switch to one", "[style]"),
    ("/permissions", "Manage allow and deny tool permission rules"),
    ("/plan", "Turn on plan mode or view the plan", "[open|<description>]"),
    ("/plugin", "Manage Claude Code plugins"),
    ("/powerup", "Learn Claude Code features in short lessons"),
    ("/radio", "Listen to Claude FM lo-fi radio"),
    ("/recap", "Generate a one-line session recap now"),
    ("/release-notes", "View release notes"),
    ("/reload-plugins", "Activate pending plugin changes in the current session", "[--force]"),
    ("/reload-skills", "Pick up skills added or changed on disk during this session"),
    ("/rename", "Rename the current conversation", "[name]"),
    ("/resume", "Resume a previous session", "[session ID or search term]"),
    ("/rewind", "Restore earlier code, conversation, or both"),
    ("/sandbox", "Show the sandbox's status and configure it", 'exclude "command pattern"'),
    ("/scroll-speed", "Adjust mouse wheel scroll speed"),
    ("/skills", "List available skills"),
    ("/status", "Show version, account, model, MCP servers, and setup warnings"),
    ("/stickers", "Check Claude Code sticker availability"),
    (
        "/subtask",
        "Send a subagent off with your full context; its result comes back here",
        "<task>",
    ),
    ("/tasks", "View and manage this session's background work"),
    ("/terminal-setup", "Set up Shift+Enter for newlines"),
    ("/theme", "Change the theme"),
    ("/tui", "Set the terminal UI renderer (classic | fullscreen)", "[classic|fullscreen]"),
    ("/usage", "Show session cost, plan usage, and activity stats"),
    ("/workflows", "Browse running and completed workflows"),
    ("/batch", "Plan a large change; background agents each open a PR", "<instruction>"),
    ("/claude-api", "Build and debug apps that use the Claude API"),
    (
        "/code-review",
        "Review the current diff or a PR for bugs",
        "[low|medium|high|xhigh|max] [--fix] [--comment] [<pr#>|<branch>|<path>] "
        "[--max-findings <n>|all]",
    ),
    ("/dataviz", "Chart and dashboard design guidance"),
    ("/debug", "Turn on debug logging and investigate problems", "[issue description]"),
    (
        "/deep-research",
        "[dynamic workflow] Deep research harness — fan-out web searches, fetch sources, "
        "adversarially verify claims, synthesize a cited report.",
    ),
    (
        "/doctor",
        "Health-check your setup and fix issues: installation, unused extensions, duplicated or "
        "bloated memory files, slow hooks, updates, permissions",
        "[prompt-audit [<path>]]",
    ),
    ("/fewer-permission-prompts", "Pre-approve safe read-only commands based on your usage"),
    ("/init", "Initialize a new CLAUDE.md file with codebase documentation"),
    ("/insights", "Generate a report analyzing your Claude Code sessions"),
    (
        "/loop",
        "Repeat a prompt or command on an interval (e.g. /loop 5m /foo)",
        "[interval] [prompt]",
    ),
    ("/plugin-authoring", "Write a mod: a live pane, view or behaviour change in Claude Code"),
    ("/run", "Launch this project\u2019s app to see your change working"),
    ("/run-skill-generator", "Create a skill that knows how to run this project\u2019s app"),
    (
        "/security-review",
        "Complete a security review of the pending changes on the current branch",
    ),
    ("/simplify", "Clean up the changed code without changing behavior", "[<target>]"),
    ("/statusline", "Set up the status line"),
    ("/team-onboarding", "Help teammates ramp on Claude Code with a guide from your usage"),
    ("/update-config", "Change settings: hooks, permissions, environment variables"),
    ("/verify", "Try your change and report if it works"),
    ("/workflow-authoring", "Load the reference for writing Workflow tool scripts"),
)
"""Every builtin the 2.1.332 TUI offers, in the order of its own ``/`` menu.

Where it came from: the TUI itself, started under tmux with an isolated HOME, an API key
and the scripted model, in an empty folder that is not a git repository. Typing ``/`` and
walking the menu with Down gave the names and descriptions (80 rows: the commands, then
the skills bundled with the binary); typing ``/<name> `` showed each argument hint as
the prompt's placeholder. The same commands are defined in the binary
(``type:"local" | "local-jsx" | "prompt"`` objects, read with ``strings``), which also
gave the static wording of the three descriptions the menu computes: ``/model`` and
``/fast`` name the current model, ``/sandbox`` shows its status. The live tests in
``tests/live/claude_code/test_commands.py`` re-read the menu and the headless list and fail on
drift.

Builtins gated on another account kind or setting (the binary marks some
``availability: ["claude-ai"]``, e.g. ``/desktop`` and ``/voice``) are not offered here;
they still run when typed. Aliases (``/reset`` and ``/new`` for ``/clear``, ``/cost`` for
``/usage``...) are not listed either."""

INTERACTIVE_ONLY = frozenset(
    {
        "/add-dir", "/background", "/branch", "/btw", "/bug", "/cd", "/copy", "/diff",
        "/exit", "/export", "/feedback", "/fork", "/help", "/hooks", "/ide", "/keybindings",
        "/login", "/logout", "/memory", "/mobile", "/permissions", "/plan", "/plugin",
        "/powerup", "/radio", "/release-notes", "/resume", "/rewind", "/sandbox",
        "/scroll-speed", "/skills", "/status", "/stickers", "/statusline", "/subtask",
        "/tasks", "/terminal-setup", "/theme", "/tui", "/workflows",
    }
)  # fmt: skip
"""Pinned builtins that the headless ``system/init`` event's ``slash_commands`` omits:
they need the TUI (``claude -p`` does not support them)."""

HEADLESS_HIDDEN = frozenset({"/agents", "/heapdump", "/__remote-workflow", "/workflow-launch-exec"})
"""Names the headless ``slash_commands`` lists that the TUI hides from its menu (removed,
diagnostic or server-only); never offered."""


def command_sources(cwd: Path) -> list[Path]:
    """The folders whose files define the commands of a run in ``cwd``."""
    return [folder.path for folder in folders(cwd)]


def _merge(builtins: Iterable[CommandSpec], found: Iterable[Found]) -> list[CommandSpec]:
    """One command per name: the first found wins, and a found name hides a builtin."""
    winners: dict[str, Found] = {}
    for item in found:
        winner = winners.setdefault(item.spec.name, item)
        if winner is not item:
            warnings.warn(
                f"{item.spec.name}: {winner.label} wins over {item.label}, "
                "as in Claude Code; the second is not offered",
                CommandFileWarning,
                stacklevel=3,
            )
    kept: list[CommandSpec] = []
    for builtin in builtins:
        hider = winners.get(builtin.name)
        if hider is None:
            kept.append(builtin)
            continue
        warnings.warn(
            f"{builtin.name}: {hider.label} hides the builtin {builtin.name}; "
            "Claude Code runs the file instead",
            CommandFileWarning,
            stacklevel=3,
        )
    custom = sorted((w.spec for w in winners.values()), key=lambda s: (s.source, s.name))
    return kept + custom


def catalog(cwd: Path) -> list[CommandSpec]:
    """Every slash command a Claude Code run in ``cwd`` offers.

    The pinned builtins in the TUI's own order, then project commands and skills, then
    user ones, each sorted by name. Never raises for a bad file (see the module notes).
    """
    found = [item for folder in folders(cwd) for item in scan(folder)]
    return _merge(BUILTIN_COMMANDS, found)
