"""Codex CLI's private behaviour that lab_widget relies on, as verified against its pin;
``docs/compat/codex.md`` gives each coupling's evidence and the steps of a new pin.
"""

from __future__ import annotations

from ...compat import CODEX_CONTEXT_PREFIXES
from ...schema import DialogKind, RateLimitKind, ScrubPattern
from .. import kit
from ._native import PlatformBinary

VERSION = kit.pinned("codex", "0.171.0")

PASTE = kit.PasteTiming(
    submit_delay=0.25,
    confirm_waits=(0.25, 0.5, 1.0, 2.0, 4.0),
    evidence=kit.Evidence(
        VERSION,
        "live: test_twenty_prompts_under_load_arrive_once_each, every test, e.g. "
        "test_a_reply_is_answered_and_the_run_goes_idle",
    ),
)
"""A prompt is a bracketed paste with Enter at once; the ``UserPromptSubmit`` hook
(:data:`PROMPT_SUBMITTED`) confirms it, and while it has not come Enter is pressed again
after 0.25, 0.5, 1, 2 s (4 s for the last). The paste is never repeated; an Enter on an
empty prompt box does nothing. Slash commands (and replies while a turn runs) keep the
paced recipe: a paste, Enter 0.25 s later."""

PROMPT_SUBMITTED = "UserPromptSubmit"
"""The hook event 0.171.0 fires once a prompt is submitted, before the model request."""

INTERRUPT = kit.KeyRecipe(
    keys=("Escape",),
    evidence=kit.Evidence(
        VERSION, "live: test_an_interrupt_stops_the_turn_and_the_next_prompt_is_answered"
    ),
)
"""Esc stops the turn (``turn_aborted`` reason ``interrupted``) and leaves the prompt box
empty; Ctrl-C twice quits."""

CLEAR_COMMAND = "/new"
"""The builtin that starts a new conversation (``role="clear"``)."""

NEW_WORKTREE_PICKER = kit.KeyRecipe(
    keys=("Enter",),
    settle=1.0,
    evidence=kit.Evidence(
        VERSION,
        "live: test_the_clear_command_opens_a_new_epoch_with_its_echo[codex-git-repo] and [codex]",
    ),
)
"""After ``/new`` in a git repository "Where should the new conversation run?" preselects
"1. Use current Git worktree": Enter, 1 s after the command, keeps the folder. Outside one
the prompt is empty by then and that Enter does nothing."""

RESTORED_INPUT = None
"""An interrupt leaves the prompt box empty: nothing to discard before the next reply."""

INITIAL_PROMPT = kit.InitialPrompt(
    flag=None,
    max_bytes=8192,
    evidence=kit.Evidence(
        VERSION,
        "live: test_first_prompt_in_the_argument_arrives_once[codex], "
        "test_first_prompt_with_shell_metacharacters_arrives_intact[codex]; "
        "extraction: `codex --help`: 'Usage: codex [OPTIONS] [PROMPT]'; "
        'measured: tmux 3.3a refuses a new-session command over 16 KiB ("command too long"), '
        "so 8 KiB leaves the rest of the command line its room",
    ),
)
"""A first prompt given at start-up goes in the positional ``[PROMPT]`` argument. The TUI
starts with the prompt submitted: its ``UserPromptSubmit`` hook fires right after
``SessionStart`` (measured: 12 ms), before the request; ``--`` keeps a prompt starting with
``-`` from being read as an option. A longer prompt is pasted once the TUI is ready."""

READY = kit.ReadySignal(
    signal="the TUI's thread marker in CODEX_HOME (see THREAD_MARKERS), newer than the spawn",
    settle=0.0,
    evidence=kit.Evidence(
        VERSION,
        "measured: the marker appears about 2 s after spawn; a reply sent at once was taken "
        "4 times out of 4, one sent 0.3 s after spawn landed in the box but its Enter was "
        "lost (the confirmed submit presses it again); live: "
        "test_twenty_prompts_under_load_arrive_once_each, "
        "test_a_reply_is_answered_and_the_run_goes_idle",
    ),
)
"""The TUI takes a prompt from its thread marker on (no settle time): the confirmed submit
(:data:`PASTE`) presses Enter until the TUI took it."""

NATIVE_BINARY = PlatformBinary(
    package="@openai/codex",
    platforms={
        ("linux", "x86_64"): ("@openai/codex-linux-x64", "x86_64-unknown-linux-musl"),
        ("linux", "aarch64"): ("@openai/codex-linux-arm64", "aarch64-unknown-linux-musl"),
        ("darwin", "x86_64"): ("@openai/codex-darwin-x64", "x86_64-apple-darwin"),
        ("darwin", "arm64"): ("@openai/codex-darwin-arm64", "aarch64-apple-darwin"),
    },
    path="vendor/{triple}/bin/codex",
    env={"CODEX_MANAGED_BY_NPM": "1"},
    root_env="CODEX_MANAGED_PACKAGE_ROOT",
    evidence=kit.Evidence(
        VERSION,
        "extraction: `bin/codex.js` of @openai/codex 0.171.0: PLATFORM_PACKAGE_BY_TARGET, "
        "findCodexExecutable (require.resolve of the platform package's package.json, else "
        "the package's own vendor folder), the env it passes (CODEX_MANAGED_PACKAGE_ROOT, "
        "CODEX_MANAGED_BY_NPM unless it detects pnpm, bun or vite-plus); measured: under "
        "Node 20 (no process.execve) the launcher stays the binary's parent, and the binary "
        "started about 140 ms after the launcher under strace; "
        "unit: tests/unit/providers/codex/test_native.py; "
        "live: tests/live/test_providers.py -k codex, tests/live/test_send.py -k codex",
    ),
)
"""The npm package's ``codex`` is a Node launcher that finds the platform package's native
binary and runs it (as a child under Node without ``process.execve``): a run spawns that
binary itself, with the launcher's environment, and skips Node's start. A ``codex`` that is
not this launcher (another install's native binary) is spawned as it is. The launcher tells
a pnpm, bun or vite-plus install apart only for the update hint it passes; a run passes
npm's."""

COLOUR_QUERY = kit.ColourQuery(
    waits=0.25,
    evidence=kit.Evidence(
        VERSION,
        "measured: strace -f of the TUI under tmux 3.3a: it writes "
        "`ESC[?u ESC[?1007$p ESC[c ESC[6n ESC]10;? ESC]11;?` at start-up, reads tmux's "
        "`ESC[?1;2c ESC[2;1R` (no colours) and polls 249 ms for more before it draws; with "
        "the pane's colours set the answers come in the same read and the TUI goes on at "
        "once (spawn to request 1454 -> 851 ms, medians of 5, load 3); "
        "live: tests/live/test_providers.py -k codex, tests/live/test_send.py -k codex",
    ),
)
"""0.171.0 asks its terminal's default colours (OSC 10/11, for the shades it draws the
composer and the user's messages with) and waits 250 ms for answers tmux 3.3a gives only
for a pane with colours of its own: the spawn sets the pane's (the terminal view's), so the
answer comes at once."""

STARTUP = kit.StartupScreens(
    settle=4.0,
    screens={"trust": ("Enter",)},
    evidence=kit.Evidence(VERSION, "live: test_users_own_codex_home_with_folder_trust_accepted"),
)
"""In a git repository (only there) "Trust this folder?" preselects "1. Trust and
continue"; Enter accepts and Codex saves ``[projects."<folder>"] trust_level = "trusted"``
into ``config.toml``. The screen takes keys about 4 s after spawn (Enter at ≈ 5 s worked)."""

LOGIN_REDIRECT_PORT = 1455
"""``codex login`` prints "Starting local login server on http://localhost:1455." and its
sign-in URL carries ``redirect_uri=http://127.0.0.1:1455/auth/callback`` (run offline with
an empty ``CODEX_HOME``; the page must reach that port on the agent's machine)."""

AUTH_FILE = "auth.json"
"""Where ``codex login`` stores credentials unless ``cli_auth_credentials_store`` says
otherwise (a keyring)."""

HOOK_TRUST_FLAG = "--dangerously-bypass-hook-trust"
"""Without it the run's own hooks wait for review ("Hooks need review" screen) and the
TUI asks before it takes input; with it they run at once (and the TUI lists a startup
warning saying so)."""

HOOKS = kit.HookEvents(
    events=(
        "SessionStart",
        "UserPromptSubmit",
        "PreToolUse",
        "PermissionRequest",
        "PostToolUse",
        "Stop",
    ),
    evidence=kit.Evidence(
        VERSION,
        "fixture: new.hooks.jsonl, approve.hooks.jsonl, reject.hooks.jsonl: "
        "test_locate_follows_session_start_records_and_new_epochs, "
        "test_permission_request_is_a_pending_approval_until_the_call_closes; live: every test",
    ),
)
"""Hook events spooled per run. SessionStart fires with the first message of each thread
(``source`` is ``startup`` even after ``/new``) and carries its rollout path; PreToolUse /
PostToolUse bracket a tool call with its ``tool_use_id`` (the rollout's ``call_id``);
PermissionRequest fires when the approval prompt opens (no tool id: it names the tool)."""

THREAD_MARKERS = "tui-thread-reference-capabilities"
"""Folder of ``CODEX_HOME`` where the TUI creates one empty file named by the thread id
when a thread starts (at start-up and at ``/new``), before any rollout exists."""

SESSIONS_DIR = "sessions"
"""Rollouts live in ``CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<thread id>.jsonl``,
created with the thread's first message."""

DIALOG_KINDS: tuple[DialogKind, ...] = ("approval", "question")
"""Dialogs the chat answers: the shell-command approval prompt (``APPROVAL``) and Plan
mode's question picker (``QUESTION_*``); other approvals (edits, network) are reported as
blocked and answered in the terminal."""

QUESTION_TOOL = "request_user_input"
"""The question tool: input ``{questions: [{id, header, question, options: [{label,
description}]}]}``. Offered in every turn, but outside Plan mode (``/plan``) its call is
answered at once "request_user_input is unavailable in Default mode"; in Plan mode the TUI
opens its picker. The pending call is in the rollout (``function_call`` with its
``call_id``) and the PreToolUse hook names it (``tool_use_id``) while the picker is open;
its ``function_call_output`` carries the answers (``_questions.py``)."""

QUESTION_NOTE_PREFIX = "user_note: "
"""How the output records what was typed in a question's notes field, after the row
("None of the above") it was typed on."""

QUESTION_PICKER = kit.PickerPacing(
    settle=1.0,
    key_delay=0.3,
    tab_settle=0.6,
    evidence=kit.Evidence(
        VERSION,
        "live: test_plan_mode_question_answered_from_the_chat, "
        "test_plan_mode_two_questions_with_a_typed_answer",
    ),
)
"""The picker is drawn after the PreToolUse hook that reports it; a key sent before it
takes keys is lost. The TUI gives no signal that it did, so keys go ``settle`` seconds
after the hook, ``key_delay`` apart, and ``tab_settle`` after a key that moves to the next
question."""

ATTRIBUTION_PATTERNS = (
    ScrubPattern(
        # Trailer keys are case-insensitive to git; models write either spelling.
        pattern=r"^\s*(?i:co-authored-by): Codex <noreply@openai\.com>\s*$",
        samples=[
            "Co-authored-by: Codex <noreply@openai.com>",
            "Co-Authored-By: Codex <noreply@openai.com>",
        ],
    ),
    ScrubPattern(
        pattern=r"^\s*Generated with (\[Codex\]\(https://openai\.com/codex/?\)|Codex)\.\s*$",
        samples=["Generated with [Codex](https://openai.com/codex/).", "Generated with Codex."],
    ),
)
"""The attribution 0.171.0 asks for when its ``git_attribution`` instructions are on
(``commit_attribution_enabled``): commits end with the trailer
``Co-authored-by: Codex <noreply@openai.com>`` and pull request bodies carry
``Generated with [Codex](https://openai.com/codex/).`` (or ``Generated with Codex.``), all
read from the binary's strings beside its ``<git_attribution>`` prompt. The recorded
fixtures (no git repository) show ``"git_attribution": false`` in their ``world_state``."""

SEED = kit.SeedLayout(
    context_file="AGENTS.md",
    skills_dir=".agents/skills",
    exclude=("/AGENTS.md", "/.agents/skills/"),
    scrub_patterns=ATTRIBUTION_PATTERNS,
    evidence=kit.Evidence(
        VERSION, "conformance: seeding (a real git repository, in place and in a worktree)"
    ),
)
"""What a seed writes and excludes. The project instructions file is ``AGENTS.md``:
0.171.0 reads it from the repository root down to the run's folder
(``AGENTS.override.md`` would replace a directory's ``AGENTS.md``, hiding the
repository's own), and a repository that already has one makes seeding refuse rather than
overwrite it. Project skills are ``.agents/skills/<name>/SKILL.md``. The excludes are
anchored at the workspace's root, so an ``AGENTS.md`` the agent writes in a subfolder still
shows in ``git status``; Codex itself writes nothing there (rollouts, markers and config
live in ``CODEX_HOME``)."""

ENV_KEY = "LAB_WIDGET_CODEX_API_KEY"
"""The variable the run's custom model provider reads its key from (``env_key``)."""

PROVIDER_ID = "lab_widget"
"""The ``[model_providers.<id>]`` table written into an isolated ``config.toml``."""

ENDPOINT_MODEL = "gpt-5.1-codex"
"""The model an endpoint run requests when none is named. Codex picks its tools by model:
with this one a turn offers ``exec_command`` (the shell), ``write_stdin``,
``request_user_input`` and more; the default model of 0.171.0 (``gpt-6.2-sol``) sent
turns with no tools at all."""

ISOLATED_SETTINGS = {
    "check_for_update_on_startup": "false",
    "analytics.enabled": "false",
    "features.daemon_auto_start": "false",
    "features.plugins": "false",
    "features.apps": "false",
}
"""Written into an isolated ``config.toml``. Without ``daemon_auto_start = false`` the
TUI copies an app-server into ``CODEX_HOME`` and leaves a daemon running after it exits."""

APPROVAL = kit.ApprovalKeys(
    approve="y",
    reject="Escape",
    approve_always="p",
    settle=1.5,
    evidence=kit.Evidence(
        VERSION,
        "live: test_approval_approve_runs_the_command, "
        "test_approval_reject_leaves_the_command_unrun, "
        "test_approval_always_is_not_asked_again",
    ),
)
""""Would you like to run the following command?" lists "1. Yes, proceed (y)",
"2. Yes, and don't ask again for commands that start with ... (p)" and "3. No, and tell
Codex what to do differently (esc)". ``y`` runs it once; ``p`` runs it and stops asking
for commands with that prefix in this session (0.171.0 takes the whole command as the
prefix; the hook names none, so the chat says "commands that start the same way"); Esc
declines it and ends the turn (``turn_aborted``). Keys go 1.5 s after the
PermissionRequest hook (a key sent 0.5 s after it was lost in a live run)."""

_MCP_EVIDENCE = kit.Evidence(
    VERSION,
    "live: tests/live/test_kernel_tools.py -k codex (the request's tools, the hooks' "
    "tool_name, the rollout's function_call, the approval form on screen)",
)

MCP_TOOLS = kit.ToolServerNames(pattern="mcp__{server}__{tool}", evidence=_MCP_EVIDENCE)
"""A server given as ``mcp_servers.<server>`` (a ``-c`` override of this run alone, or the
``config.toml`` table) offers its tools to the model in a ``namespace`` tool named
``mcp__<server>``, each by its own name; the rollout's ``function_call`` carries ``name``
and ``namespace`` apart, and the PreToolUse / PermissionRequest / PostToolUse hooks name
the call ``mcp__<server>__<tool>``, which the reader names it too."""

MCP_NAMESPACE_PREFIX = "mcp__"
"""How an MCP server's ``namespace`` in the rollout begins (the same evidence)."""

MCP_APPROVAL_MODES = ("prompt", "approve")
"""``default_tools_approval_mode`` of the run's servers and ``tools.<tool>.approval_mode``
of their reading tools: ``prompt`` asks before every call, whatever the approval policy;
``approve`` runs the tool without asking. (``auto``, the default, lets the CLI decide from
the tool's annotations and the policy.) The same evidence."""

MCP_CALL_TIMEOUT = "tool_timeout_sec"
"""The key of an ``mcp_servers.<server>`` table that sets, in seconds, how long the CLI waits
for one of its calls. The run sets it from the server's ``call_timeout`` (a kernel cell of
70 s ran to its end without it; the limit is set so that no default decides; with 5 s a 12 s
call is cut at 5 s, live: ``tests/live/test_kernel_tools.py -k time_the_server``)."""

MCP_STARTUP: dict[str, object] = {"required": True, "startup_timeout_sec": 60}
"""Each run's server is ``required``: the CLI waits for it before the first request (an
optional one is left behind when it is slower to start than the TUI, and that turn's
request offers no ``mcp__<server>`` tools, seen live), and fails loudly ("required MCP
servers failed to initialize") rather than run without it. Starting the kernel server
(Python, the ``mcp`` SDK, ``jupyter_client``) takes seconds on a loaded machine: 60 s
before the CLI gives up. The same evidence."""

MCP_RUN_SETTINGS = {"approvals_reviewer": '"user"'}
"""``-c`` overrides of a run with its own servers: the user answers every approval, never
a reviewing agent a user's ``config.toml`` may name (``auto_review``); the rollout's
``turn_context`` shows ``"approvals_reviewer": "user"``. The same evidence."""

MCP_APPROVAL_QUESTION = 'Allow the {server} MCP server to run tool "{tool}"?'
"""The prompt's question for a tool in ``prompt`` mode; below it the call's arguments
(``code: ...``) and two rows, "1. Allow  Run the tool and continue" (preselected) and
"2. Cancel  Cancel this tool call", with "enter to submit | esc to cancel". No row would
remember the answer: those ("remember this choice for this session / for future tool
calls") show only for tools in ``auto`` mode. The PermissionRequest hook fires as it opens,
with the call's ``tool_name`` and ``tool_input`` (no id; the PreToolUse just before it has
the ``tool_use_id``). The same evidence."""

MCP_APPROVAL = kit.ApprovalKeys(
    approve="Enter", reject="Escape", settle=1.5, evidence=_MCP_EVIDENCE
)
"""Enter submits the preselected Allow; Esc cancels the call. Keys go 1.5 s after the
PermissionRequest hook, as for :data:`APPROVAL`."""

MCP_DECLINED_OUTPUT = "user cancelled MCP tool call"
"""The output (after the "Wall time" header) of an MCP call whose prompt was cancelled
(Esc). The turn goes on: no PostToolUse hook, and the model answers the output. The reader
marks such a call failed and ``(rejected)``, as :data:`DECLINED_OUTPUT`. The same
evidence."""

MCP_CALL_ITEM = "McpToolCall"
"""The item of an MCP call's ``item_completed`` event. Its ``status: "failed"`` (the
server's result ``isError``) is the one place the rollout says the call failed: the call's
``function_call_output`` holds only the text, after a "Wall time" header. The reader marks
the call failed from it, whichever of the two comes first."""

UNASKING_POLICIES = frozenset({"never"})
"""``--ask-for-approval`` values under which the CLI never asks: a run with its own servers
refuses them (its asking tools must be approved call by call)."""

APPROVAL_TOOLS = frozenset({"Bash"})
"""PermissionRequest tool names whose prompt the recipe above answers (shell commands);
any other (edits, network) is reported as blocked, to be answered in the terminal."""

APPROVAL_QUESTION = "Would you like to run the following command?"

DECLINED_OUTPUT = "aborted by user"
"""The last line of a call's output when the user declined its approval (or stopped it).
The reader marks such a call failed and its output ``(rejected)``, the wording the chat
reads as a declined approval."""

CONTEXT_PREFIXES = CODEX_CONTEXT_PREFIXES
"""User-role rollout messages that Codex writes itself (context, interrupt notes, a finished
sub-agent's note); pinned in :mod:`lab_widget.compat`, which the scripted model reads too."""

EXIT_CODE = r"(?:Process exited with code|^Exit code:) (-?\d+)"
"""How a shell call's output reports the exit status: ``exec_command`` (0.150.1, 0.171.0)
"Process exited with code N" in its header, ``shell_command`` (0.80.0) a first line
"Exit code: N"."""

EXEC_HEADER = (
    r"\A(?:(?:Chunk ID|Wall time|Exit code|Original token count|Total output lines"
    r"|Process running with session ID): [^\n]*\n|Process exited with code -?\d+\n)+Output:\n"
)
"""The harness lines a shell call's output begins with, for the model and not the user:
``exec_command`` (0.150.1, 0.171.0) "Chunk ID / Wall time / Process exited with code N /
Original token count / Output:", ``shell_command`` (0.80.0) "Exit code / Wall time /
Output:" (fixtures ``tools``). The chat shows what the command printed; the exit status is
the call's status (``EXIT_CODE``)."""

FAILED_OUTPUT_PREFIXES = ("rejected", "aborted", "error", "unsupported call")
"""How an output without an exit status says the call failed (``unsupported call: <name>``
is Codex's answer to a tool it does not offer)."""

IMAGE_WRAPPER = r"</?image\b[^>]*>"
"""The text parts around an attached image in a user message: ``<image name=[Image #1]
path="...">`` before the ``input_image`` part and ``</image>`` after it (``--image``)."""

SPAWN_TOOLS = frozenset({"spawn_agent"})
"""Calls that start a sub-agent thread (namespace ``multi_agent_v1``); their output is
``{"agent_id": <thread id>, "nickname": ...}`` and the thread has its own rollout, whose
``session_meta.source.subagent.thread_spawn.parent_thread_id`` names the parent."""

COMPACTION_OUTPUT = "compaction_output"
"""``response_item.metadata`` flag on the assistant message that holds a ``/compact``
summary (written just before the ``compacted`` line): not an answer, the summary. 0.150.1
writes the same message unflagged (the ``compacted`` line's ``message`` then ends with its
text, and the reader turns it into the compaction); 0.80.0 writes none."""

VIEWED_IMAGE_OUTPUT = "attached local image path"
"""0.80.0's ``view_image`` output: the image itself follows as a user message holding
only an ``input_image`` (0.150.1 and 0.171.0 return it inside the output)."""


# -- rate limits (verified by tests/live/test_vendor.py against the pinned binary) -------

RATE_LIMIT_WINDOWS = ("primary", "secondary")
"""The windows of a ``token_count.rate_limits`` snapshot: ``{used_percent, window_minutes,
resets_at}`` each, or ``null``. 0.171.0 fills them from the model server's
``x-<limit>-primary-used-percent`` / ``-primary-window-minutes`` / ``-primary-reset-at``
headers (and ``-secondary-``), ``resets_at`` in epoch seconds (seen live against the scripted
model; ``codex-rs/codex-api/src/rate_limits.rs``)."""

DEFAULT_LIMIT_ID = "codex"
"""The ``limit_id`` of the ``x-codex-*`` header family (other families ``x-<name>-...``
become ``<name>`` with ``-`` as ``_``, e.g. ``codex_other``). Each ``token_count`` carries
ONE snapshot, the latest family the server reported (two families in one response: the
rollout kept only the second, seen live)."""

QUOTA_ERRORS: dict[str, RateLimitKind] = {"usage_limit_exceeded": "usage"}
"""``task_complete.error.codex_error_info`` values that say a quota stopped the turn, with the
schema's kind of limit. 0.171.0 ends a turn whose request got HTTP 429 ``insufficient_quota``
at once (no retry) with ``{"message": "Quota exceeded. Check your plan and billing
details.", "codex_error_info": "usage_limit_exceeded"}`` (seen live against the scripted
model's ``ApiError("quota")``; fixture ``quota``)."""

RATE_LIMIT_FIELDS = (
    "limit_id",
    "limit_name",
    "primary",
    "secondary",
    "credits",
    "plan_type",
    "rate_limit_reached_type",
)
"""The keys read; ``credits`` is ``{has_credits, unlimited, balance}`` from the
``x-codex-credits-has-credits`` / ``-unlimited`` / ``-balance`` headers (the balance a decimal
string). ``individual_limit`` and ``spend_control_reached`` were null in every rollout seen
and are not read; ``plan_type`` is null against a model server (the CLI fills it from a
ChatGPT login's account, not from headers)."""

SHELL_TOOLS = kit.ShellTools(
    fields={
        "exec_command": "cmd",
        "shell_command": "command",
        "shell": "command",
        "local_shell_call": "command",
    },
    evidence=kit.Evidence(
        VERSION,
        "fixture: tools.jsonl (function_call exec_command {cmd}), v0.80.0/tools.jsonl "
        "(shell_command {command}); extraction: codex-rs rollout policy (shell and "
        "local_shell_call, an argv list, in older rollouts)",
    ),
)
"""Codex runs shell commands with ``exec_command`` (``cmd``); 0.80.0 with ``shell_command``,
older versions with ``shell`` or ``local_shell_call`` (an argv list in ``command``)."""
