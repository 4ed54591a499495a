"""What lab_widget depends on in Gemini CLI's keys, hooks, files and settings (evidence and
re-pinning: ``docs/compat/gemini.md``).
"""

from __future__ import annotations

from ...compat import GEMINI_CONTEXT_PREFIXES
from ...schema import DialogKind
from .. import kit

VERSION = kit.pinned("gemini", "0.61.0")

PASTE = kit.hook_confirmed_paste(
    kit.Evidence(
        VERSION,
        "live: test_twenty_prompts_under_load_arrive_once_each, every test; "
        "test_users_own_config_without_hooks_follows_the_session_file "
        "(the retry without hooks); measured: bench round-trip, a later send's first "
        "Enter (at once after the paste) submitted nothing, two presses per send, the "
        "BeforeAgent record 576 ms after the send with the second Enter at 0.5 s; "
        "extraction: bundle `InputPrompt`, a paste sets `recentUnsafePasteTime` for 40 ms "
        "without the kitty keyboard protocol (tmux 3.3a offers none) and a submit key then "
        "inserts a newline; measured: probe, an Enter 60 ms after the paste always a "
        "newline, at 80-90 ms one in two, at 100 ms and later submitted",
    ),
    submit_delay=0.4,
    retry_after=4.0,
)
"""A prompt is a bracketed paste with Enter at once; the ``BeforeAgent`` hook
(:data:`PROMPT_SUBMITTED`) confirms it, and while it has not come Enter is pressed again
after 0.1, 0.25, 0.5, 1, 2 s (4 s for the last): an Enter that arrives while the TUI still
starts up is lost and the text stays in the prompt (seen in a loaded recording), as is most
often the Enter sent at once after a later paste (measured), and an Enter on an empty prompt
box does nothing. Why: for 40 ms after a paste, ended by a timer and a re-render (≈ 90 to 100 ms
in all), the TUI takes Enter as a newline (it trims it on submit), so the press at 0.1 s is
the one that submits; an Enter held back until then instead gains nothing and, sent earlier,
costs the next retry. The paste is never repeated. Without hooks (a user's own config
whose hooks do not fire) the paced recipe plays: Enter 0.4 s after the paste, and one more
when nothing was written to the session file within 4 s; a ``/clear`` has as long to open
its new session (SessionStart hook)."""

PROMPT_SUBMITTED = "BeforeAgent"
"""The hook event 0.61.0 fires once a submitted prompt starts its turn."""

INITIAL_PROMPT = kit.InitialPrompt(
    flag="--prompt-interactive",
    max_bytes=8192,
    evidence=kit.Evidence(
        VERSION,
        "live: test_first_prompt_in_the_argument_arrives_once[gemini], "
        "test_first_prompt_with_shell_metacharacters_arrives_intact[gemini]; "
        "extraction: `gemini --help`: '-i, --prompt-interactive  Execute the provided prompt "
        "and continue in interactive mode'; "
        'measured: tmux 3.3a refuses a new-session command over 16 KiB ("command too long"), '
        "so 8 KiB leaves the rest of the command line its room",
    ),
)
"""A first prompt given at start-up goes in the ``-i/--prompt-interactive`` argument. The TUI
starts, runs the prompt (its ``BeforeAgent`` hook fires, measured 0.17 s after
``SessionStart``) and stays interactive; ``--prompt-interactive=<text>`` is one word, so a
prompt starting with ``-`` is never read as an option. (``-p`` would run headless and exit.)
A longer prompt is pasted once the TUI is ready."""

READY = kit.ReadySignal(
    signal="the run's SessionStart hook record, newer than the spawn",
    settle=0.0,
    evidence=kit.Evidence(
        VERSION,
        "live: test_twenty_prompts_under_load_arrive_once_each (the first prompt sent at the "
        "record, two busy processes beside), every test, e.g. "
        "test_a_reply_is_answered_and_the_run_goes_idle",
    ),
)
"""The TUI takes a prompt from its SessionStart hook record on. The hook runs while the TUI
still starts: an Enter sent 1 s after it was lost in a loaded recording, which the confirmed
submit (:data:`PASTE`) presses again."""

CLEAR_SETTLE = kit.ReadySignal(
    signal="the new session's SessionStart hook record after a /clear (without hooks: none)",
    settle=2.0,
    evidence=kit.Evidence(
        VERSION,
        "live: test_the_clear_command_opens_a_new_epoch_with_its_echo; measured: a prompt pasted "
        "0.1 s after the clear's SessionStart record was wiped from the prompt box (1 of 6 "
        "idle runs; no record says when the box is back)",
    ),
)
"""Seconds from a ``/clear``'s new session until the next prompt: once the clear's hooks
ran the TUI empties its prompt box, and no hook or file tells when. The one fixed pause left
on Gemini CLI's send path, after a clear only."""

READY_WITHOUT_HOOKS = kit.ReadySignal(
    signal="the run's session file (a run whose hooks do not fire), newer than the spawn",
    settle=4.0,
    evidence=kit.Evidence(
        VERSION, "live: test_users_own_config_without_hooks_follows_the_session_file"
    ),
)
"""Without hooks the session file, written at start-up, tells: a reply goes 2 s later
than after the hook."""

INTERRUPT = kit.KeyRecipe(
    keys=("Escape",),
    evidence=kit.Evidence(
        VERSION, "live: test_an_interrupt_stops_the_turn_and_the_next_prompt_is_answered"
    ),
)
"""Esc cancels the turn: an ``info`` record "Request cancelled." and the AfterAgent hook
follow; Ctrl-C twice quits."""

STARTUP = None
"""No start-up screen is accepted from the chat: the isolated settings pick the key and trust
the folder, and in the user's own setup the sign-in and trust screens are answered in the
terminal (their keys are not pinned)."""

RESTORED_INPUT = None
"""An interrupt leaves nothing in the prompt box to discard."""

CLEAR_COMMANDS = ("/clear", "/new")
CLEAR_COMMAND = "/clear"
"""The builtin that starts a new session (alias ``/new``): SessionEnd(``clear``), then a
SessionStart(``clear``) hook naming a new session file, created at once. No command is
recorded in either file; the adapter opens the new epoch with the echo."""

SESSION_HOOKS = kit.SessionHooks(
    PROMPT_SUBMITTED, CLEAR_COMMANDS, READY, READY_WITHOUT_HOOKS, CLEAR_SETTLE
)
"""The records above as :class:`~lab_widget.provider.kit.HookSessionProvider` plays them."""

GLOBAL_DIR = ".gemini"
"""``$GEMINI_CLI_HOME`` (else ``$HOME``) ``/.gemini``: settings, trusted folders, sessions."""

HOME_ENV = "GEMINI_CLI_HOME"
"""Moves the global dir; unset for isolated runs so it cannot point back at the user's."""

SESSIONS_GLOB = "tmp/*/chats/session-*.jsonl"
"""Session files under the global dir: ``tmp/<project slug>/chats/session-<date>-<id8>.jsonl``
(the slug is registered in ``projects.json``)."""

PROJECTS_FILE = "projects.json"
"""``{"projects": {"<absolute folder>": "<slug>"}}``."""

# -- files older versions wrote (read, never written) ---------------------------------------

SESSION_PREFIX = "session-"
EVENT_LOG_SUFFIX = ".jsonl"
DOCUMENT_SUFFIX = ".json"
"""Up to 0.38.2 a session is one JSON document, ``session-<date>-<id8>.json``: the metadata
(``sessionId``, ``projectHash``, ``startTime``, ``lastUpdated``, ``kind`` since about 0.38)
and ``messages``, the same message records as the event log's, rewritten whole on every
change (``JSON.stringify(conversation, null, 2)`` through ``writeFileSync``: not atomic, a
reader may catch it half written). From 0.39.0 on the session is the event log; 0.61.0
converts a resumed ``.json`` into ``<name>.jsonl`` beside it and leaves the ``.json``
(``ChatRecordingService.initialize``). Recorded from 0.20.2 and 0.38.2
(``tests/fixtures/gemini/v*/``)."""

LEGACY_PROJECT_DIR = "sha256"
"""0.20.2 keeps a folder's sessions under ``tmp/<sha256 hex of the absolute folder>/chats/``
(no ``projects.json``); later versions use the slug registry and migrate the old folder
when they run there (``Storage.performMigration``)."""

CONTEXT_PREFIXES = GEMINI_CONTEXT_PREFIXES
"""User text parts Gemini CLI writes itself (its session context) at a session's start;
pinned in :mod:`lab_widget.compat`, which the scripted model reads too."""

CANCELLED_INFO = "Request cancelled."
"""The ``info`` record an interrupted or declined turn ends with."""

HOOKS = kit.HookEvents(
    events=(
        "SessionStart",
        "SessionEnd",
        "BeforeAgent",
        "AfterAgent",
        "AfterTool",
        "Notification",
    ),
    evidence=kit.Evidence(
        VERSION,
        "fixture: *.hooks.jsonl: test_the_clear_command_opens_a_new_epoch_with_its_echo, "
        "test_turn_hooks_decide_the_state_while_a_response_waits_on_its_tools, "
        "test_live_signal_reads_the_permission_notification; live: every test",
    ),
)
"""Hook events spooled per run. SessionStart (``source`` startup | clear) names the session
file (``transcript_path``); BeforeAgent / AfterAgent bracket every turn, interrupted ones
too; Notification ``notification_type: "ToolPermission"`` fires when a tool confirmation
opens, with ``details`` ``{type: "exec", command, rootCommand, title}`` for a shell
command; AfterTool closes an approved call. Every hook runs under an "Executing Hooks"
spinner: few events keep turns quick."""

SYSTEM_SETTINGS = "/etc/gemini-cli/settings.json"
"""The default system settings file; ``GEMINI_CLI_SYSTEM_SETTINGS_PATH`` replaces it. Gemini
CLI skips such a file ("Security Warning: Skipping system settings file ...: Parent
directory '/tmp' is insecure") when it or a folder above it is writable by group or
others. A run with the user's own config brings its hooks that way, so only from a
secure runtime folder; otherwise it runs without hooks (no approval dialogs in the chat,
the transcript alone tells the state)."""

HOOK_SETTINGS_KEY = "hooks"
"""``settings.json`` ``"hooks": {"<Event>": [{"matcher": "*", "hooks": [{"type":
"command", "command": ...}]}]}``."""

NOTIFICATION_PERMISSION = "ToolPermission"

COMPRESSION = "$set.messages"
"""``/compress`` (and an automatic compression) rewrites the history with ``$set.messages``
into records never seen before: the context, a user record holding the summary, and a
model record "Got it. Thanks for the additional context!"; then an ``info`` record with an
empty ``content`` (the TUI shows "Chat history compressed from <n> to <m> tokens.", which
is not recorded). Images come as ``inlineData`` parts (``{mimeType, data}``): in a tool
call's ``result`` (``read_file`` of a PNG) and in the user record that sends it back."""

REPLY_TYPE = "gemini"
"""A model reply's record ``type``, the only record that carries tokens and a model. Each new
record gets a fresh id (``newMessage``: ``randomUUID``) and a record is re-appended as the
same message object (``pushMessage``: its tool calls or tokens added), so a record keeps its
type under its id: a line without the bytes ``"gemini"`` is no reply and replaces none,
which lets the usage-only scan parse reply lines only. Lines are ``JSON.stringify`` output,
compact (``appendRecord``)."""

RUNNING_OUTPUT_RECORDED = False
"""No running-tool output reaches the session file or a hook: a call is recorded when it
finishes (``sleep 1; echo a; sleep 1; echo b`` showed nothing until its final record), so
``ToolCall.progress`` stays empty."""

AGENT_TOOL = "invoke_agent"
"""The sub-agent tool (``agent_name``: ``generalist``, ``codebase_investigator``,
``cli_help``; ``prompt``), offered under the isolated settings. A sub-agent's session is
``chats/<parent session id>/<agent session id>.jsonl`` (header ``kind: "subagent"``); the
main session's call carries ``agentId`` (that session id) and a ``resultDisplay`` of
``{isSubagentProgress, agentName, recentActivity, state, result, terminateReason}``. A
sub-agent ends by calling ``complete_task`` (the generalist with ``{"result": {"response":
...}}``); it fires no BeforeAgent / AfterAgent hooks, and its tools' AfterTool hooks carry
the main session's id."""

SHELL_TOOL = "run_shell_command"
"""The shell tool; a script's portable ``Bash`` plays it."""

SHELL_CONFIRM = "exec"
"""``details.type`` of the shell command confirmation (``details.command``)."""

EDIT_CONFIRM = "edit"
"""``details.type`` of a file edit's confirmation, for ``write_file`` ("Confirm Write: <name>")
and ``replace`` ("Confirm Edit: <name>") alike: ``details.filePath``, ``fileName`` and a
unified ``fileDiff``."""

MCP_CONFIRM = "mcp"
"""``details.type`` of an MCP tool's confirmation ("Allow execution of MCP tool "<tool>" from
server "<server>"?"): ``details.serverName``, ``toolName``, ``toolDisplayName`` ("<tool>
(<server> MCP Server)"). The call's arguments are on the screen only: the Notification hook
serialises no ``toolArgs`` (``toSerializableDetails`` in the 0.61.0 bundle); the
BeforeTool hook (:data:`TOOL_ARGS_HOOK`) does, and is spooled for the run's own servers
(kernel tools), whose dialog shows them. For other servers the dialog names the server and
tool and says the arguments show in the terminal. The call
is recorded as ``mcp_<server>_<tool>`` (the function name the model is offered). Seen live:
``test_mcp_tool_confirmation_answered_from_the_chat``."""

INFO_CONFIRM = "info"
"""``details.type`` of a web fetch's confirmation (``web_fetch``): ``details.prompt`` (the
tool's ``prompt`` argument) and ``details.urls``."""

ANSWERED_CONFIRMS = frozenset({SHELL_CONFIRM, EDIT_CONFIRM, MCP_CONFIRM, INFO_CONFIRM})
"""Confirmation types the chat answers (the keys below). Any other type (``ask_user``'s and
``exit_plan_mode``'s dialogs are their own, serialised with only ``type`` and ``title``)
goes to the terminal: the hook carries neither the questions nor the plan."""

UNREPORTED_DIALOGS = {
    "ask_user": "asks you questions (ask_user) it does not report outside its screen",
    "exit_plan_mode": "asks you to approve its plan (exit_plan_mode), which it does not "
    "report outside its screen",
}
"""Confirmation types whose dialog the TUI draws itself (``handlesOwnUI`` in the 0.61.0
bundle) and whose Notification carries only ``{type, title}``: the run is ``needs_input``
with this reason."""

MCP_PREFIX = "mcp_"
"""An MCP tool's function name: ``mcp_<server>_<tool>``."""

ALWAYS_CHOICES = {
    SHELL_CONFIRM: "Allow for this session",
    EDIT_CONFIRM: "Allow for this session",
    INFO_CONFIRM: "Allow for this session",
    MCP_CONFIRM: "Allow tool for this session",
}
"""The second row of each confirmation in a trusted folder (an isolated run trusts its
folder), which ``APPROVAL.approve_always`` picks: the CLI then stops asking for that command
root, file tool, fetch tool or MCP tool until it exits. Rows read from the 0.61.0 bundle
(``ToolConfirmationMessage`` options); the MCP row seen live."""

MCP_TOOLS = kit.ToolServerNames(
    pattern="mcp_{server}_{tool}",
    evidence=kit.Evidence(
        VERSION,
        "live: tests/live/test_kernel_tools.py -k gemini (the session file's call name, the "
        "BeforeTool record's tool_name and tool_input before the Notification, run_python "
        "asked under the policy file); measured: a describe call ran without a confirmation "
        "under the policy's allow rule; extraction: bundle `formatMcpToolName`, "
        "`PolicyRuleSchema` (toml-loader), `--policy` (user tier, tier + priority / 1000), "
        "`evaluateBeforeToolHook` then `checkPolicy` in `_processToolCall`",
    ),
)
"""A server in the settings' ``mcpServers`` (``{name: {command, args, env, trust}}``)
offers its tools to the model as ``mcp_<server>_<tool>``; policy rules and hooks name them
so. The run's own servers' rules go in a policy file given with ``--policy <file>``
(:data:`POLICY_FLAG`): ``[[rule]]`` tables of ``toolName``, ``decision`` (``ask_user`` |
``allow``) and ``priority`` (0 to 999). A ``--policy`` file is of the user tier (4): its
rules at 999 win over the defaults (tier 1), a workspace's saved "always allow" (tier 3)
and the settings' ``tools.allowed`` / ``mcp.allowed`` / ``trust`` rules (user tier + 0.1 to
0.3), so an asking tool asks before every call and a reading one never does."""

POLICY_FLAG = "--policy"
POLICY_PRIORITY = 999

UNASKING_MODES = frozenset({"yolo"})
"""``--approval-mode`` values in which the CLI runs every tool without asking: a run with
asking tools of its own servers is refused in them."""

TOOL_ARGS_HOOK = "BeforeTool"
"""The hook that carries an MCP call's arguments before its confirmation opens (the
Notification does not): ``tool_name`` (``mcp_<server>_<tool>``) and ``tool_input``. The
0.61.0 scheduler fires it for each call before it checks the policy
(``evaluateBeforeToolHook``), so the record comes just before the call's Notification; the
hook's ``matcher`` is a regular expression on the tool name, so only the run's own servers'
calls are spooled (every hook runs under a spinner). Seen live:
``tests/live/test_kernel_tools.py -k gemini``."""

EDIT_TOOLS = frozenset({"write_file", "replace"})
"""Tools whose confirmation is an edit's: a call is tied to it by ``args.file_path``."""

APPROVAL = kit.ApprovalKeys(
    approve="Enter",
    reject="Escape",
    approve_always="2",
    settle=1.0,
    evidence=kit.Evidence(
        VERSION,
        "live: test_approval_approve_runs_the_command, "
        "test_approval_reject_leaves_the_command_unrun, "
        "test_edit_confirmation_approved_from_the_chat, "
        "test_edit_confirmation_rejected_leaves_the_file_unwritten, "
        "test_mcp_tool_confirmation_answered_from_the_chat, "
        "test_mcp_tool_allowed_for_the_session_is_not_asked_again",
    ),
)
""""Allow execution of [Shell]?" lists "1. Allow once" (preselected), "2. Allow for this
session" and "3. No, suggest changes (esc)"; "Apply this change?" lists "1. Allow once"
(preselected), "2. Allow for this session", "3. Modify with external editor" and "4. No,
suggest changes (esc)". In both, Enter allows it once; Esc declines it and cancels the turn
("Request cancelled."); the digit 2 picks "Allow for this session" (an MCP tool's
"Allow tool for this session"). Keys go 1 s after the Notification hook."""

APPROVAL_QUESTION = "Allow execution of [Shell]?"
EDIT_QUESTION = "Apply this change?"

DIALOG_KINDS: tuple[DialogKind, ...] = ("approval",)

OUTPUT_WRAPPER = ("<untrusted_context>\n", "\n</untrusted_context>")
"""Shell output as the functionResponse carries it: wrapped, ``Output: <text>`` then
``Process Group PGID: <n>`` (and ``Exit Code: <n>`` when it is not 0)."""

EXIT_CODE = r"(?m)^Exit Code: (-?\d+)"

PROCESS_GROUP = r"(?m)^Process Group PGID: \d+\n?"
"""A line of shell output naming the process group: not the command's output."""

LEGACY_SHELL_OUTPUT = (
    r"\ACommand: .*?\nDirectory: .*?\nOutput: (?P<output>.*?)\nError: (?P<error>.*?)\n"
    r"Exit Code: (?P<code>.*?)\n"
)
"""Shell output of 0.20.2: ``Command: <cmd>\nDirectory: <dir>\nOutput: <text>\nError: <text>\n
Exit Code: <n>\nSignal: <n>\nBackground PIDs: ...\nProcess Group PGID: <n>``, ``(none)`` or
``(empty)`` for an empty field."""

LEGACY_EMPTY = ("(none)", "(empty)")
"""How an empty field reads, in either format (0.61.0 writes ``Output: (empty)`` for a
command that printed nothing, and at times for one whose output it missed)."""

SETTINGS = {
    "security": {"auth": {"selectedType": "gemini-api-key"}},
    "privacy": {"usageStatisticsEnabled": False},
    "telemetry": {"enabled": False},
    "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
}
"""An isolated ``settings.json``: the API-key auth method chosen (no auth dialog), usage
statistics, telemetry and auto-update off. ``trustedFolders.json`` trusts the run's
folder (else a trust screen and a self-restart)."""

SPAWN_ENV = {"GEMINI_CLI_NO_RELAUNCH": "true"}
"""Set for every run. By default Gemini CLI re-launches itself as a child node process
(for a larger heap) and the parent ignores SIGHUP and SIGTERM: ending the tmux session
left both running. Without the re-launch the one process ends with its session."""

ENV_KEY = "GEMINI_API_KEY"
ENV_BASE_URL = "GOOGLE_GEMINI_BASE_URL"
"""An endpoint run's key and base URL (the Gemini API root, without ``/v1beta``)."""

USER_ENV = (
    "GEMINI_CLI_HOME",
    "GOOGLE_API_KEY",
    "GOOGLE_GENAI_USE_VERTEXAI",
    "GOOGLE_GENAI_USE_GCA",
    "GOOGLE_CLOUD_PROJECT",
    "GOOGLE_CLOUD_LOCATION",
    "GOOGLE_APPLICATION_CREDENTIALS",
    "GOOGLE_VERTEX_BASE_URL",
    "GEMINI_CLI_TRUSTED_FOLDERS_PATH",
    "GEMINI_CLI_SYSTEM_SETTINGS_PATH",
    "GEMINI_MODEL",
)
"""Inherited variables that would point an isolated run back at the user's setup
(another auth method, project or settings)."""

HEADLESS_ENV = ("CI", "GITHUB_ACTIONS")
"""Unset on every run: either one set to ``true`` makes the CLI take itself for a headless
run (``isHeadlessMode`` in the bundle) and exit at once, although it sits in a real
terminal. A notebook started from a CI job inherits them."""

AUTH_TYPES = {
    "oauth-personal": "Google account",
    "gemini-api-key": "Gemini API key",
    "vertex-ai": "Vertex AI",
    "compute-default-credentials": "Compute default credentials",
    "gateway": "Gateway",
    "cloud-shell": "Cloud Shell",
}
"""``security.auth.selectedType`` values of 0.61.0 and what they are called."""

OAUTH_CREDS = "oauth_creds.json"
"""Where a Google sign-in's credentials are cached (global dir)."""

SEED = kit.SeedLayout(
    context_file="GEMINI.md",
    skills_dir=".gemini/skills",
    exclude=("/GEMINI.md", "/.gemini/skills/"),
    evidence=kit.Evidence(
        VERSION, "conformance: seeding (a real git repository, in place and in a worktree)"
    ),
)
"""What a seed writes and excludes. No attribution text: the 0.61.0 bundle contains no
``Co-authored-by`` trailer."""

CUSTOM_COMMANDS_DIR = ".gemini/commands"
"""``<folder>/.gemini/commands/**/*.toml`` (project) and ``~/.gemini/commands/**/*.toml``
(user): ``prompt`` (required), ``description``; a subfolder ``a/b.toml`` is ``/a:b``."""


PERSONAL_ACCOUNTS_NOTE = (
    "Reported by users since 2026-06-18: Gemini CLI no longer serves personal Google "
    "accounts; sign in with a Gemini API key or Vertex AI."
)
"""Not seen in the pinned 0.61.0 bundle (its "Sign in with Google" screen is still there):
the service stopped, not the CLI. Shown beside the provider's health and on the Google
account login method."""

SHELL_TOOLS = kit.ShellTools(
    fields={"run_shell_command": "command"},
    evidence=kit.Evidence(
        VERSION,
        "fixture: approve.jsonl (toolCalls run_shell_command {command})",
    ),
)
"""Gemini CLI runs shell commands with ``run_shell_command``."""
