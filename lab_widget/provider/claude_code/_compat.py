"""Every private coupling to Claude Code, with the version it was verified against.

The evidence for each, and how to move to a new version: ``docs/compat/claude-code.md``.
"""

from __future__ import annotations

from ...schema import AuthKind, DialogKind, Option, Question, RateLimitKind, ScrubPattern
from .. import kit

VERSION = kit.pinned("claude-code", "2.1.332")

PASTE = kit.hook_confirmed_paste(
    kit.Evidence(
        VERSION,
        "live: test_twenty_prompts_under_load_arrive_once_each, "
        "test_a_reply_is_answered_and_the_run_goes_idle, "
        "test_hostile_prompt_arrives_as_one_exact_message; measured: a paste and Enter sent "
        "at spawn, before the TUI read its terminal: the paste landed, the Enter did nothing, "
        "a second Enter 3 s later submitted it (4 of 4, two busy processes beside)",
    ),
    submit_delay=0.25,
)
"""A prompt is a bracketed paste with Enter at once; the ``UserPromptSubmit`` hook
(:data:`PROMPT_SUBMITTED`) confirms it, and while it has not come Enter is pressed again
after 0.1, 0.25, 0.5, 1, 2 s (4 s for the last): the first prompt's first Enter, sent at the
SessionStart hook, is most often too early (3 of 4 measured). The paste is never repeated:
a paste the TUI got before it read its terminal still lands, while an Enter then (or before
the TUI applied the paste, which it does asynchronously) does nothing; an Enter on an empty
prompt box does nothing either, while a turn runs or not. Slash commands keep the paced
recipe: a paste, Enter 0.25 s later (a builtin command fires no ``UserPromptSubmit``)."""

PROMPT_SUBMITTED = "UserPromptSubmit"
"""The hook event 2.1.332 fires once a prompt is submitted (``prompt`` is its text), before
the request goes to the model."""

INTERRUPT = kit.KeyRecipe(
    keys=("Escape",),
    evidence=kit.Evidence(
        VERSION,
        "fixture: interrupt.jsonl: test_interrupt_is_a_lifecycle_message_and_idle; "
        "live: test_interrupt_mid_answer_returns_to_idle",
    ),
)
"""Esc stops the current turn; Ctrl-C twice would quit the TUI."""

_INTERRUPT = "live: test_an_interrupt_stops_the_turn_and_the_next_prompt_is_answered"
RESTORED_INPUT = kit.ctrl_c_empties_the_box(kit.Evidence(VERSION, f"{_INTERRUPT}[claude-code]"))
"""Esc before the first answer token puts the prompt back into the input box (and records
nothing); one Ctrl-C empties a non-empty box (a second one within its hint would quit, and
nothing here sends two). The TUI needs a second to abort the request and put the prompt
back, and another before the next paste: a Ctrl-C or a paste sent sooner was lost."""

STARTUP = kit.StartupScreens(
    settle=4.0,
    screens={
        # "Accessing workspace": options "No, exit" (preselected) / "Yes, I trust this folder".
        "trust": ("Down", "Enter"),
        # "Detected a custom API key": options "Yes" / "No (recommended)" (preselected).
        "api-key": ("Up", "Enter"),
    },
    key_delay=0.25,
    screen_delay=1.5,
    evidence=kit.Evidence(VERSION, "live: test_untrusted_folder_needs_input_until_accepted"),
)
"""The first-run screens and the keys that accept each. They take keys 4 s after spawn
(keys sent earlier are lost), 0.25 s apart; one screen gives way to the next in 1.5 s."""

INITIAL_PROMPT = kit.InitialPrompt(
    flag=None,
    max_bytes=8192,
    evidence=kit.Evidence(
        VERSION,
        "live: test_first_prompt_in_the_argument_arrives_once[claude-code], "
        "test_first_prompt_with_shell_metacharacters_arrives_intact[claude-code]; "
        "extraction: `claude --help`: 'Usage: claude [options] [command] [prompt]'; "
        'measured: tmux 3.3a refuses a new-session command over 16 KiB ("command too long"), '
        "so 8 KiB leaves the rest of the command line its room",
    ),
)
"""A first prompt given at start-up goes in the positional ``[prompt]`` (``claude [options]
[command] [prompt]``) argument. The TUI starts with the prompt submitted, as ``claude
\"...\"`` does: its ``UserPromptSubmit`` hook fires about 0.45 s after ``SessionStart``
(measured), before the request; ``--`` keeps a prompt starting with ``-`` from being read as
an option. A longer prompt is pasted once the TUI is ready."""

READY = kit.ReadySignal(
    signal="the run's first SessionStart hook record",
    settle=0.0,
    evidence=kit.Evidence(
        VERSION,
        "live: test_twenty_prompts_under_load_arrive_once_each (the first prompt sent at the "
        "record, two busy processes beside), test_a_reply_is_answered_and_the_run_goes_idle; "
        "measured: SessionStart "
        "0.35 s after the spawn, the first status-line payload 0.5 s",
    ),
)
"""The TUI takes a prompt from its first SessionStart hook on: a paste sent then lands and
the confirmed submit (:data:`PASTE`) presses Enter until the TUI took it."""

HOOKS = kit.HookEvents(
    events=(
        "SessionStart",
        "SessionEnd",
        "UserPromptSubmit",
        "PreToolUse",
        "PostToolUse",
        "PostToolUseFailure",
        "PermissionRequest",
        "Notification",
    ),
    evidence=kit.Evidence(
        VERSION,
        "live: test_the_clear_command_opens_a_new_epoch_with_its_echo, test_single_select, "
        "test_tool_approval_approve, test_a_failed_call_is_closed_and_swept_from_the_hook_spool; "
        "unit: test_run_settings_keep_questions_open_and_spool_the_signals",
    ),
)
"""Hook events spooled per run. SessionStart carries the transcript path of each epoch
(``source`` is ``startup`` or ``clear``) and tells that the TUI is up; PreToolUse /
PostToolUse bracket every tool call with its input (a dialog is pending between them), and
PostToolUseFailure closes a call that failed (a command's non-zero exit fires no PostToolUse);
Notification reports a permission prompt or an idle TUI; UserPromptSubmit confirms a
submitted prompt (see ``PASTE``)."""

DIALOG_TOOLS: dict[str, DialogKind] = {"AskUserQuestion": "question", "ExitPlanMode": "plan"}
"""Tools whose call opens a picker that waits for the user."""

SUBAGENT_TOOLS = frozenset({"Agent", "Task"})
"""Tools that start a sub-agent: ``Agent`` in 2.1.332 (which still takes ``Task`` as an
alias); ``Task`` in the versions before it. Their ``prompt`` input is the sub-agent's first
prompt."""

HANDBACK_TOOL = "SubagentHandback"
"""The tool a 2.1.332 sub-agent calls last, its final report as the ``message`` input (the
CLI tells it so in a reminder): the report is the sub-agent's reply, and the call's result
("Report delivered to your caller.") is plumbing (fixture ``subagent``)."""

MCP_TOOLS = kit.ToolServerNames(
    pattern="mcp__{server}__{tool}",
    evidence=kit.Evidence(
        VERSION,
        "live: tests/live/test_kernel_tools.py -k claude-code (the transcript's tool_use name, "
        "the PermissionRequest hook's tool_name, a permissions.ask rule that makes it ask)",
    ),
)
"""An MCP server given with ``--mcp-config <file>`` (``{"mcpServers": {name: {"type": "stdio",
"command", "args", "env"}}}``) offers its tools as ``mcp__<server>__<tool>``; rules in the
settings' ``permissions.ask`` / ``permissions.allow`` name them so."""

UNASKING_MODES = frozenset({"bypassPermissions"})
"""Permission modes in which the CLI asks before no tool at all (``--permission-mode``): a run
with asking tools of its own servers is refused in them."""

MCP_CONFIG_FLAG = "--mcp-config"
"""The command-line option that adds MCP servers from a JSON file, for this run alone (the
same evidence as :data:`MCP_TOOLS`)."""

RUN_SETTINGS: dict[str, object] = {"askUserQuestionTimeout": "never"}
"""Settings layered over the user's for every run. 2.1.332 can auto-continue an unanswered
question after ``askUserQuestionTimeout`` ("60s" | "5m" | "10m" | "never"; unset means
never): a user's own setting must not dismiss a dialog while the notebook user pauses."""

PICKER = kit.PickerPacing(
    settle=1.5,
    key_delay=0.3,
    tab_settle=0.5,
    evidence=kit.Evidence(
        VERSION,
        "live: every recipe in tests/live/claude_code/test_dialogs.py (tab_settle 0.5 s: twice "
        "in a row at load ≈ 3 on 2 cores); bench: dialogs",
    ),
)
"""The pickers re-render after each key: keys go once the picker has been open 1.5 s,
counted from its PreToolUse signal (the picker takes none sooner; ``wait_open``), 0.3 s
apart, and 0.5 s after a key that switches to another tab. No hook or record says a tab was
drawn, so that gap stays paced: 1.5 s was the first safe figure found, 0.5 s passed every
recipe live; a key sent at once was lost."""

APPROVAL = kit.ApprovalKeys(
    approve="1",
    approve_always="2",
    reject="Escape",
    settle=1.5,
    evidence=kit.Evidence(
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

REJECTED_FEEDBACK = "To tell you how to proceed, the user said:"
"""What ends the rejection text of 2.1.332 when the user typed why (a plan or a tool
declined): the user's words follow it, as typed (the CLI's ``${rejection}${feedback}``)."""

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
these; ``tests/live/test_seed.py`` reads them from the request and checks they scrub."""

SEED = kit.SeedLayout(
    context_file="CLAUDE.local.md",
    skills_dir=".claude/skills",
    exclude=("/CLAUDE.local.md", "/.claude/skills/", "/.claude/settings.local.json"),
    scrub_patterns=ATTRIBUTION_PATTERNS,
    evidence=kit.Evidence(
        VERSION,
        "live: tests/live/test_seed.py (the context file's text reaches the model; the "
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


QUIET_START = kit.QuietStart(
    env={"CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL": "1"},
    settings={"disableDeepLinkRegistration": "disable"},
    evidence=kit.Evidence(
        VERSION,
        "measured: strace -f -e trace=execve,connect of the TUI in a fresh isolated home: "
        "`ssh -T git@github.com`, `git clone --depth 1 "
        "https://github.com/anthropics/claude-plugins-official.git` then its `git@github.com:` "
        "form (DNS to the resolver each time), and `xdg-mime default "
        "claude-code-url-handler.desktop x-scheme-handler/claude-cli` with its six helpers, "
        "within the first second (the probe and xdg-mime before the first request, the "
        "clones just after it); none of them with these set; "
        "extraction: `strings` of the binary: the env name in its table of variables, "
        '`disableDeepLinkRegistration:U(["disable"])` "Prevent claude-cli:// protocol handler '
        'registration with the OS"; live: tests/live/test_providers.py -k claude-code',
    ),
)
"""An isolated run's fresh home makes 2.1.332 install the official plugin marketplace (a
shallow clone from GitHub over HTTPS, then SSH, after an SSH probe of github.com) and
register its ``claude-cli://`` URL handler with the desktop (``xdg-mime``), each start, while
the TUI starts: network attempts and a dozen processes that nothing in a run uses. The
user's own runs keep their setup."""

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

# -- auth (verified by tests/live/claude_code/test_auth.py against the pinned binary) ----------

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

# -- refusals ------------------------------------------------------------------------------

QUOTA_ERRORS: dict[str, RateLimitKind] = {"rate_limit": "requests"}
"""``error`` values of an ``isApiErrorMessage`` entry that say a limit was reached, with the
schema's kind. 2.1.332 retries a 429 (each retry one more ``api-request`` entry, nothing
else), then writes a synthetic assistant entry: ``error: "rate_limit"``,
``apiErrorStatus: 429``, ``apiErrorType: "rate_limit_error"``, text "API Error: Request
rejected (429) · ..." (seen live against the scripted model's ``ApiError()``, retries cut by
``CLAUDE_CODE_MAX_RETRIES=1``; fixture ``rate_limited``)."""


# -- the status line: the CLI's own live facts (verified by tests/live/test_vendor.py) --

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

SHELL_TOOLS = kit.ShellTools(
    fields={"Bash": "command"},
    evidence=kit.Evidence(
        VERSION,
        "fixture: tools.jsonl, compact.jsonl (tool_use Bash {command, description})",
    ),
)
"""Claude Code runs shell commands with ``Bash``; its input keeps the command line in
``command``."""
