"""Every private coupling to Claude Code, pinned to one exact version.

Changing the pinned version means re-recording the fixtures
(``scripts/record_fixtures.py``) and re-running the live tests against it.
"""

from __future__ import annotations

from functools import partial

from ...compat import PINS
from ...schema import AuthKind, CommandSpec, DialogKind, Option, Question, ScrubPattern
from .. import (
    ApprovalKeys,
    Evidence,
    HookEvents,
    KeyRecipe,
    PasteTiming,
    PickerPacing,
    ReadySignal,
    SeedLayout,
    StartupScreens,
    builtin_command,
)

VERSION = "2.1.332"
assert PINS["claude-code"].version == VERSION, "re-verify these couplings for the new pin"

PASTE = PasteTiming(
    submit_delay=0.25,
    evidence=Evidence(
        VERSION, "live: test_send_reply_idle, test_hostile_prompt_arrives_as_one_exact_message"
    ),
)
"""A reply is a bracketed paste, then Enter 0.25 s later (the TUI applies pastes
asynchronously)."""

INTERRUPT = KeyRecipe(
    keys=("Escape",),
    evidence=Evidence(
        VERSION,
        "fixture: interrupt.jsonl: test_interrupt_is_a_lifecycle_message_and_idle; "
        "live: test_interrupt_mid_answer_returns_to_idle",
    ),
)
"""Esc stops the current turn; Ctrl-C twice would quit the TUI."""

RESTORED_INPUT = KeyRecipe(
    keys=("C-c",),
    settle=1.0,
    after=1.0,
    evidence=Evidence(VERSION, "live: test_interrupt_before_any_answer_returns_to_idle"),
)
"""Esc before the first answer token puts the prompt back into the input box (and records
nothing); one Ctrl-C empties a non-empty box (a second one within its hint would quit, and
nothing here sends two). The TUI needs a second to abort the request and put the prompt
back, and another before the next paste: a Ctrl-C or a paste sent sooner was lost."""

STARTUP = StartupScreens(
    settle=4.0,
    screens={
        # "Accessing workspace": options "No, exit" (preselected) / "Yes, I trust this folder".
        "trust": ("Down", "Enter"),
        # "Detected a custom API key": options "Yes" / "No (recommended)" (preselected).
        "api-key": ("Up", "Enter"),
    },
    key_delay=0.25,
    screen_delay=1.5,
    evidence=Evidence(VERSION, "live: test_untrusted_folder_needs_input_until_accepted"),
)
"""The first-run screens and the keys that accept each. They take keys 4 s after spawn
(keys sent earlier are lost), 0.25 s apart; one screen gives way to the next in 1.5 s."""

READY = ReadySignal(
    signal="the run's first SessionStart hook record",
    settle=1.5,
    evidence=Evidence(
        VERSION,
        "live: every send, e.g. test_send_reply_idle, "
        "test_hostile_prompt_arrives_as_one_exact_message",
    ),
)
"""Seconds from the first SessionStart hook until the prompt box takes a paste (earlier
pastes were lost under load)."""

HOOKS = HookEvents(
    events=(
        "SessionStart",
        "SessionEnd",
        "PreToolUse",
        "PostToolUse",
        "PostToolUseFailure",
        "PermissionRequest",
        "Notification",
    ),
    evidence=Evidence(
        VERSION,
        "live: test_clear_starts_new_epoch_with_visible_echo, test_single_select, "
        "test_tool_approval_approve, test_a_failed_call_is_closed_and_swept_from_the_hook_spool; "
        "unit: test_run_settings_keep_questions_open_and_spool_the_signals",
    ),
)
"""Hook events spooled per run. SessionStart carries the transcript path of each epoch
(``source`` is ``startup`` or ``clear``) and tells that the TUI is up; PreToolUse /
PostToolUse bracket every tool call with its input (a dialog is pending between them), and
PostToolUseFailure closes a call that failed (a command's non-zero exit fires no PostToolUse);
Notification reports a permission prompt or an idle TUI."""

DIALOG_TOOLS: dict[str, DialogKind] = {"AskUserQuestion": "question", "ExitPlanMode": "plan"}
"""Tools whose call opens a picker that waits for the user."""

SUBAGENT_TOOLS = frozenset({"Agent", "Task"})
"""Tools that start a sub-agent: ``Agent`` in 2.1.332 (which still takes ``Task`` as an
alias); ``Task`` in the versions before it. Their ``prompt`` input is the sub-agent's first
prompt."""

RUN_SETTINGS: dict[str, object] = {"askUserQuestionTimeout": "never"}
"""Settings layered over the user's for every run. 2.1.332 can auto-continue an unanswered
question after ``askUserQuestionTimeout`` ("60s" | "5m" | "10m" | "never"; unset means
never): a user's own setting must not dismiss a dialog while the notebook user pauses."""

PICKER = PickerPacing(
    settle=1.5,
    key_delay=0.3,
    tab_settle=1.5,
    evidence=Evidence(VERSION, "live: every recipe in tests/test_live_dialogs.py"),
)
"""The pickers re-render after each key: keys go 1.5 s after the PreToolUse signal (the
picker takes none sooner), 0.3 s apart, and 1.5 s after a key that switches to another tab
(a key sent sooner was lost in live runs)."""

APPROVAL = ApprovalKeys(
    approve="1",
    approve_always="2",
    reject="Escape",
    settle=1.5,
    evidence=Evidence(
        VERSION,
        "live: test_tool_approval_approve (1), test_tool_approval_reject (Escape); "
        "unit: test_recipes (2)",
    ),
)
""""Do you want to proceed?" lists 1 = yes, 2 = yes and don't ask again, then options that
vary by tool, then no; Esc rejects whatever the list is. The prompt is a picker: its key
is played at the picker's pace (``PICKER``)."""

REJECTED_RESULT = "rejected"
"""A word of the error ``tool_result`` of a call declined at that prompt: 2.1.332 writes
"The user doesn't want to proceed with this tool use. The tool use was rejected (...)"."""

PLAN_APPROVE = "Approve"
PLAN_REJECT = "Reject"
PLAN_QUESTION = Question(
    header="Plan",
    text="Approve this plan and leave plan mode?",
    options=[
        Option(label=PLAN_APPROVE, description="Leave plan mode and start working"),
        Option(
            label=PLAN_REJECT, description="Stay in plan mode; feedback goes as your next message"
        ),
    ],
    free_text=False,
)
"""The plan dialog's one question: 2.1.332 offers exactly yes / no (no feedback field)."""

CLEAR_COMMAND = "/clear"
"""The builtin that starts a new conversation (``role="clear"``)."""

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


_builtin = partial(builtin_command, clear_command=CLEAR_COMMAND, curated_out=CURATED_OUT)


BUILTIN_COMMANDS: tuple[CommandSpec, ...] = (
    _builtin("/add-dir", "Add a working directory", "<path>"),
    _builtin("/auto-mode-setup", "Teach auto mode about your environment"),
    _builtin(
        "/autocompact", "Set how full the context gets before auto-summarizing", "[auto|<tokens>]"
    ),
    _builtin(
        "/background", "Send this session to the background and free the terminal", "[prompt]"
    ),
    _builtin("/branch", "Create a branch of the current conversation at this point", "[name]"),
    _builtin("/btw", "Ask a side question without interrupting Claude", "[question]"),
    _builtin("/bug", "Report a bug or share your session", "[report]"),
    _builtin("/cd", "Move this session to a new working directory", "<path>"),
    _builtin(
        "/clear",
        "Start a new session with empty context; loops carry over, and the old one stays in "
        "/resume",
        "[name]",
    ),
    _builtin(
        "/color",
        "Set the prompt bar color for this session",
        "[red|blue|green|yellow|purple|orange|pink|cyan|default]",
    ),
    _builtin(
        "/compact",
        "Free up context by summarizing the conversation so far",
        "<optional custom summarization instructions>",
    ),
    _builtin("/config", "Open settings"),
    _builtin("/context", "Show what fills the context", "[all]"),
    _builtin("/copy", "Copy the last response to clipboard (/copy 2 for the one before)"),
    _builtin("/diff", "Toggle the diff panel showing uncommitted changes"),
    _builtin(
        "/effort",
        "Set the model's effort level",
        "[low|medium|high|xhigh|max|auto|ultracode [on|off]]",
    ),
    _builtin("/exit", "Exit the CLI"),
    _builtin("/export", "Export this session to a file or clipboard", "[filename]"),
    _builtin("/fast", "Toggle fast mode", "[on|off]"),
    _builtin("/feedback", "Send feedback to Anthropic or report a bug", "[report]"),
    _builtin("/focus", "Toggle focus view: just your prompt, summary, and response"),
    _builtin(
        "/fork",
        "Copy this conversation into a new background session and keep working here",
        "[prompt]",
    ),
    _builtin("/goal", "Set a goal Claude checks before stopping", "[<condition> | clear]"),
    _builtin("/help", "Show help and available commands", "[command]"),
    _builtin("/hooks", "View hook configurations for tool events"),
    _builtin("/ide", "Manage IDE integrations and show status", "[open]"),
    _builtin("/keybindings", "Open your keyboard shortcuts file"),
    _builtin(
        "/list-agents", "List subagents, teammates, and other Claude sessions you can message"
    ),
    _builtin("/login", "Switch Anthropic accounts"),
    _builtin("/logout", "Sign out from your Anthropic account"),
    _builtin(
        "/mcp", "Manage MCP servers", "[reconnect (<server>|all)|enable|disable [<server>|all]]"
    ),
    _builtin("/memory", "Edit CLAUDE.md files and memory settings"),
    _builtin("/mobile", "Show QR code to download the Claude mobile app"),
    _builtin("/model", "Switch model", "[model]"),
    _builtin("/output-style", "List output styles or switch to one", "[style]"),
    _builtin("/permissions", "Manage allow and deny tool permission rules"),
    _builtin("/plan", "Turn on plan mode or view the plan", "[open|<description>]"),
    _builtin("/plugin", "Manage Claude Code plugins"),
    _builtin("/powerup", "Learn Claude Code features in short lessons"),
    _builtin("/radio", "Listen to Claude FM lo-fi radio"),
    _builtin("/recap", "Generate a one-line session recap now"),
    _builtin("/release-notes", "View release notes"),
    _builtin(
        "/reload-plugins", "Activate pending plugin changes in the current session", "[--force]"
    ),
    _builtin("/reload-skills", "Pick up skills added or changed on disk during this session"),
    _builtin("/rename", "Rename the current conversation", "[name]"),
    _builtin("/resume", "Resume a previous session", "[session ID or search term]"),
    _builtin("/rewind", "Restore earlier code, conversation, or both"),
    _builtin("/sandbox", "Show the sandbox's status and configure it", 'exclude "command pattern"'),
    _builtin("/scroll-speed", "Adjust mouse wheel scroll speed"),
    _builtin("/skills", "List available skills"),
    _builtin("/status", "Show version, account, model, MCP servers, and setup warnings"),
    _builtin("/stickers", "Check Claude Code sticker availability"),
    _builtin(
        "/subtask",
        "Send a subagent off with your full context; its result comes back here",
        "<task>",
    ),
    _builtin("/tasks", "View and manage this session's background work"),
    _builtin("/terminal-setup", "Set up Shift+Enter for newlines"),
    _builtin("/theme", "Change the theme"),
    _builtin("/tui", "Set the terminal UI renderer (classic | fullscreen)", "[classic|fullscreen]"),
    _builtin("/usage", "Show session cost, plan usage, and activity stats"),
    _builtin("/workflows", "Browse running and completed workflows"),
    _builtin("/batch", "Plan a large change; background agents each open a PR", "<instruction>"),
    _builtin("/claude-api", "Build and debug apps that use the Claude API"),
    _builtin(
        "/code-review",
        "Review the current diff or a PR for bugs",
        "[low|medium|high|xhigh|max] [--fix] [--comment] [<pr#>|<branch>|<path>] "
        "[--max-findings <n>|all]",
    ),
    _builtin("/dataviz", "Chart and dashboard design guidance"),
    _builtin("/debug", "Turn on debug logging and investigate problems", "[issue description]"),
    _builtin(
        "/deep-research",
        "[dynamic workflow] Deep research harness — fan-out web searches, fetch sources, "
        "adversarially verify claims, synthesize a cited report.",
    ),
    _builtin(
        "/doctor",
        "Health-check your setup and fix issues: installation, unused extensions, duplicated or "
        "bloated memory files, slow hooks, updates, permissions",
        "[prompt-audit [<path>]]",
    ),
    _builtin(
        "/fewer-permission-prompts", "Pre-approve safe read-only commands based on your usage"
    ),
    _builtin("/init", "Initialize a new CLAUDE.md file with codebase documentation"),
    _builtin("/insights", "Generate a report analyzing your Claude Code sessions"),
    _builtin(
        "/loop",
        "Repeat a prompt or command on an interval (e.g. /loop 5m /foo)",
        "[interval] [prompt]",
    ),
    _builtin(
        "/plugin-authoring", "Write a mod: a live pane, view or behaviour change in Claude Code"
    ),
    _builtin("/run", "Launch this project\u2019s app to see your change working"),
    _builtin(
        "/run-skill-generator", "Create a skill that knows how to run this project\u2019s app"
    ),
    _builtin(
        "/security-review",
        "Complete a security review of the pending changes on the current branch",
    ),
    _builtin("/simplify", "Clean up the changed code without changing behavior", "[<target>]"),
    _builtin("/statusline", "Set up the status line"),
    _builtin("/team-onboarding", "Help teammates ramp on Claude Code with a guide from your usage"),
    _builtin("/update-config", "Change settings: hooks, permissions, environment variables"),
    _builtin("/verify", "Try your change and report if it works"),
    _builtin("/workflow-authoring", "Load the reference for writing Workflow tool scripts"),
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
``tests/test_live_commands.py`` re-read the menu and the headless list and fail on drift.

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

MAX_COMMAND_FILE_BYTES = 1 << 20
"""Command and skill files larger than this are ignored by the CLI (1 MiB loads, one byte
more does not)."""

DESCRIPTION_LIMIT = 100
"""Without a ``description``, the first body line stands in, cut to this many characters
(``...`` included), as the CLI does."""

ATTRIBUTION_PATTERNS = (
    ScrubPattern(
        pattern=r"^\s*Co-Authored-By: Claude\b[^<\n]*<noreply@anthropic\.com>\s*$",
        samples=[
            "Co-Authored-By: Claude <noreply@anthropic.com>",
            "Co-Authored-By: Claude Code <noreply@anthropic.com>",
            "Co-Authored-By: Claude Opus 5.5 <noreply@anthropic.com>",
        ],
    ),
    ScrubPattern(
        pattern=r"^\s*\U0001f916 Generated with \[Claude Code\]\([^)]*\)\s*$",
        samples=["\U0001f916 Generated with [Claude Code](https://claude.com/claude-code)"],
    ),
)
"""The attribution 2.1.332 appends to commit messages and pull requests it writes: a
``Co-Authored-By: <model name> <noreply@anthropic.com>`` trailer (the name is "Claude",
"Claude Code" or the model's, e.g. "Claude Opus 5.5") and the line
``🤖 Generated with [Claude Code](https://claude.com/claude-code)``, both read from the
binary's commit/PR attribution code (``strings``; the URL is its constant). In a git
repository the CLI's prompt tells the model to end commits and pull requests with exactly
these; ``tests/test_live_seed.py`` reads them from the request and checks they scrub."""

SEED = SeedLayout(
    context_file="CLAUDE.local.md",
    skills_dir=".claude/skills",
    exclude=("/CLAUDE.local.md", "/.claude/skills/", "/.claude/settings.local.json"),
    scrub_patterns=ATTRIBUTION_PATTERNS,
    evidence=Evidence(
        VERSION,
        "live: tests/test_live_seed.py (the context file's text reaches the model; the "
        "attribution read from the request scrubs); conformance: seeding",
    ),
)
"""What a seed writes and excludes. The project instructions file is ``CLAUDE.local.md``:
2.1.332 loads ``CLAUDE.md``, ``.claude/CLAUDE.md`` and ``CLAUDE.local.md`` from the run's
folder and its parents (the binary's memory loader, type "Local" for the last); the local one
is the private, uncommitted kind, so a seed never overwrites a repository's own
``CLAUDE.md``. Project skills are ``.claude/skills/<name>/SKILL.md`` (see ``_commands``). The
excludes cover the context file, the skills, and the local settings file the TUI writes when
a permission is approved for good."""


ISOLATION_UNSET = frozenset(
    {
        # Each would point an isolated run back at the user's own setup: another config
        # folder (and its credentials), another credential, another model vendor.
        "CLAUDE_CONFIG_DIR",
        "ANTHROPIC_AUTH_TOKEN",
        "CLAUDE_CODE_USE_BEDROCK",
        "CLAUDE_CODE_USE_VERTEX",
    }
)
"""Environment variables an isolated (scripted or endpoint) run must not inherit."""

# -- auth (verified by tests/test_live_auth.py against the pinned binary) ------------------

AUTH_STATUS_ARGS = ("auth", "status", "--json")
"""Prints ``{"loggedIn", "authMethod", "apiProvider", "apiKeySource"?, ...}`` offline; exits
1 when logged out (the JSON is still printed)."""

AUTH_LOGIN_ARGS = ("auth", "login")
"""Without a TTY it prints the sign-in URL to stdout (after "visit:"), then the prompt
"Paste code here if prompted > " and reads the code (``<code>#<state>``) from stdin."""

AUTH_LOGOUT_ARGS = ("auth", "logout")

LOGIN_URL_PATTERN = r"visit:\s*(https://\S+)"
"""Where the URL sits in the login's stdout."""

LOGIN_BAD_CODE = "doesn't look like the full code"
"""stderr when the pasted code has no ``#``: the CLI keeps waiting for another code."""

LOGIN_FAILED_PREFIX = "Couldn't log in:"
"""stderr when the code exchange failed (offline: ``getaddrinfo ENOTFOUND ...``); exit 1."""

AUTH_TIMEOUT = 30.0
"""Seconds for the CLI's auth commands to answer (status answers in well under 1 s)."""

API_KEY_ENV = "ANTHROPIC_API_KEY"
"""The environment variable the CLI reads an API key from."""

CREDENTIAL_ENV = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN")
"""Environment variables that log the CLI in without a stored login."""

AUTH_METHOD_KINDS: dict[str, AuthKind] = {
    "api_key": "api-key",
    "claude.ai": "oauth-code",
    "console": "oauth-code",
    "oauth_token": "external",
}
"""``authMethod`` values of ``auth status`` mapped to descriptor kinds (``none`` = logged
out; anything else is reported as ``external``)."""

MODEL_ALIASES = ("fable", "opus", "sonnet")
"""Model aliases ``--model`` names in ``claude --help`` (full model names work too)."""

# -- the status line: the CLI's own live facts (verified by tests/test_live_claude_status.py) --

STATUS_SPOOL = "statusline.jsonl"
"""The run-folder file each status-line payload is appended to, as one JSON line
``{"at": <ms since the epoch>, "status": <the payload>}``."""

STATUS_LINE_SETTINGS = {"type": "command", "padding": 0}
"""The ``statusLine`` setting a run adds (``command`` is the spool's). 2.1.332 runs it after
each change the TUI shows (a message, a token count, the mode), with the payload on stdin, and
prints what it writes to stdout as the status row."""

STATUS_FIELDS = (
    "session_id",
    "transcript_path",
    "prompt_id",
    "model.id",
    "cost.total_cost_usd",
    "cost.total_duration_ms",
    "cost.total_api_duration_ms",
    "cost.total_lines_added",
    "cost.total_lines_removed",
    "context_window.context_window_size",
    "effort.level",
    "fast_mode",
    "rate_limits.five_hour",
    "rate_limits.seven_day",
    "rate_limits.spend_limit",
)
"""The payload keys lab_widget reads. Evidence: the status-line builder of the 2.1.332
binary (``strings``: ``cost:{total_cost_usd:...}``, ``context_window:...``,
``...(Xt.five_hour||Xt.seven_day||Xt.spend_limit)&&{rate_limits:Xt}``), its own description
of the payload (the ``/statusline`` setup agent's prompt), and the payloads a live run wrote
(``tests/fixtures/claude-code/statusline.jsonl``). ``prompt_id`` is the ``promptId`` of the
transcript's user entries, so a payload tells which turn its cumulative cost was read in."""

RATE_LIMIT_WINDOWS = {"five_hour": 300, "seven_day": 10080}
"""Each status-line window and its length in minutes: the CLI's own table of windows
(``rateLimitType:"five_hour",windowSeconds:18000`` and ``"seven_day"``, ``604800``)."""

RATE_LIMIT_SOURCE = "anthropic-ratelimit-unified"
"""The limiter behind ``rate_limits.five_hour`` / ``seven_day``: 2.1.332 reads them from
the ``anthropic-ratelimit-unified-5h-utilization`` / ``-5h-reset`` / ``-7d-...`` response
headers (utilization a fraction, reset in epoch seconds), and shows them as
``used_percentage`` 0-100 and ``resets_at``."""

GATEWAY_AUDIENCE = "claude-gateway"
"""2.1.332 reads those headers only for a Claude.ai subscriber or behind a Claude gateway:
a custom ``ANTHROPIC_BASE_URL`` with an ``ANTHROPIC_AUTH_TOKEN`` that is a JWT whose ``aud``
is ``claude-gateway`` (``S7t``: ``aud==="claude-gateway"``; ``ote()``). With an API key the
payload has no ``rate_limits`` (seen live). An endpoint whose key is such a token is passed
as ``ANTHROPIC_AUTH_TOKEN`` too (see ``_statusline.is_gateway_token``)."""
