"""Every coupling to GitHub Copilot CLI's private behaviour, each with the evidence it was
verified by (``docs/compat/copilot.md``).

Seen on the pinned 1.0.102 under tmux against the scripted model (chat completions):
``live:`` names the live test that plays a record, ``measured:`` a probe of the binary by
hand, ``fixture:`` the session logs recorded into ``tests/fixtures/copilot/``,
``extraction:`` the CLI's own help.
"""

from __future__ import annotations

from .. import kit

VERSION = kit.pinned("copilot", "1.0.102")
"""The CLI version the couplings below were verified against (``@github/copilot``)."""

PASTE = kit.PasteTiming(
    submit_delay=0.25,
    confirm_waits=(0.5, 1.0, 1.0, 1.0, 2.0, 2.0, 4.0, 4.0, 8.0, 8.0),
    evidence=kit.Evidence(
        VERSION,
        "live: test_a_reply_is_answered_and_the_run_goes_idle; measured: a paste sent at the "
        "session folder's lock file was kept and submitted once (one userPromptSubmitted "
        "hook, one user.message) 8 s later on a loaded machine: the TUI takes input 5-8 s "
        "after the lock (9.5 s of waits once ran out)",
    ),
)
"""Paste, Enter at once, and Enter again until the ``userPromptSubmitted`` hook confirms:
Enters sent before the TUI takes input are dropped, the pasted text is kept."""

INTERRUPT = kit.KeyRecipe(
    keys=("C-c",),
    evidence=kit.Evidence(
        VERSION,
        "live: test_an_interrupt_stops_the_turn_and_the_next_prompt_is_answered; measured: "
        "with the model's answer still pending, Esc and Esc Esc did nothing (the footer offers "
        "'esc esc edit prompt'), one Ctrl+C cancelled ('Operation cancelled by user', abort "
        "in the log)",
    ),
)
"""Ctrl+C ends the turn: ``assistant.turn_end`` then ``abort {reason: "user_initiated"}``.
Once only: a second Ctrl+C at the idle prompt would quit the CLI."""

APPROVAL = kit.ApprovalKeys(
    approve="Enter",
    reject="Escape",
    approve_always="2",
    settle=0.5,
    evidence=kit.Evidence(
        VERSION,
        "live: test_a_shell_approval_answered_from_the_chat_runs_the_command, "
        "test_approve_always_stops_asking_for_that_command; fixture: "
        "approve_reject_interrupt.jsonl (permission.completed approved after Enter, cancelled "
        "after Escape), questions.jsonl (approved-for-location after 2)",
    ),
)
""""Do you want to run this command?": "1. Yes" (preselected), "2. Yes, and don't ask again
for `<cmd>` in this directory (<folder>)", "3. No, and tell Copilot what to do differently
(Esc to stop)". Enter approves; 2 approves and keeps the command's identifier for the folder
in ``<COPILOT_HOME>/permissions-config.json`` (an isolated run's own home: it ends with the
run); Esc cancels the call and the whole turn. The prompt opened 0.55 s after the
``preToolUse`` hook."""

_MCP_EVIDENCE = kit.Evidence(
    VERSION,
    "live: tests/live/test_kernel_tools.py -k copilot (the tool the model calls, the session "
    "log's tool.execution_start and permission.requested, the prompt on screen); "
    "extraction: `copilot --help` (--additional-mcp-config, --allow-tool), "
    "`copilot help permissions` (<mcp-server-name>(tool-name?))",
)

MCP_TOOLS = kit.ToolServerNames(pattern="{server}-{tool}", evidence=_MCP_EVIDENCE)
"""An MCP server's tool is offered to the model as ``<server>-<tool>``; the session log's
``tool.execution_start`` names it so (``toolName``, with ``mcpServerName`` and
``mcpToolName`` beside it), and so does the ``permission.requested`` event."""

MCP_CONFIG_FLAG = "--additional-mcp-config"
"""Adds MCP servers for this session only, from ``@<file>`` holding ``{"mcpServers":
{name: {"type": "local", "command", "args", "env", "tools": ["*"]}}}`` (beside the home's
``mcp-config.json``, which is left alone). The TUI took the first prompt only once the
server was up (its log's "Service initialized as client" 0.7 s before the
``userPromptSubmitted`` hook, on a loaded machine 10 s after ``session.start``). The same
evidence."""

MCP_SERVERS_KEY = "mcpServers"

ALLOW_TOOL_FLAG = "--allow-tool"
"""``--allow-tool=<server>(<tool>)`` lets one tool of a server run without a prompt (the
reading tools); any other tool of it prompts before every call. The same evidence."""

MCP_REQUEST = "mcp"
"""The ``permissionRequest.kind`` of an MCP tool's prompt: ``{kind, toolCallId, serverName,
toolName: "<server>-<tool>", toolTitle: <tool>, args, readOnly}``. The prompt, "Do you want
to use this tool?" below the arguments as JSON, offers "1. Yes" (preselected), "2. Yes, and
don't ask again for tool "<tool>" from "<server>" in this directory (<folder>)" (kept in
the home's permissions, beyond the run when the home is the user's: the chat does not offer
it) and "3. No, and tell Copilot what to do differently (Esc to stop)"; :data:`APPROVAL`'s
Enter and Esc answer it, and ``permission.completed`` says how. The same evidence."""

ALLOW_ALL_ENV = "COPILOT_ALLOW_ALL"
ALLOW_ALL_OFF = frozenset({"", "false", "0", "no", "off", "n"})
"""``COPILOT_ALLOW_ALL`` approves every tool unless it is one of these (case and surrounding
space ignored; ``copilot help environment``). A run on the user's own setup inherits it, so
a run with its own servers is refused while it is on (an isolated run unsets it,
:data:`UNSET_ENV`). Extraction: ``copilot help environment``."""

APPROVAL_QUESTION = "Do you want to run this command?"
APPROVE_CHOICE = "Yes"
ALWAYS_CHOICE = "Yes, and don't ask again for this command in this folder"
REJECT_CHOICE = "No (Esc: stops the turn)"

APPROVED = frozenset({"approved", "approved-for-location", "approved-for-session"})
APPROVED_ALWAYS = frozenset({"approved-for-location", "approved-for-session"})
"""``permission.completed`` ``result.kind`` values that approve the call (seen: ``approved``
after Enter, ``approved-for-location`` after 2; ``approved-for-session`` is the schema's
session-wide kind), and those that keep the approval beyond the call."""

PLAN_TOOL = "exit_plan_mode"
"""Plan mode's end (``/plan`` or Shift+Tab enter the mode): ``{summary, showFleet,
recommendedAction}``, a menu "Plan Ready for Review" under the summary."""

PLAN_QUESTION = "Accept the plan and implement it?"
PLAN_APPROVE = "Accept, and go on in interactive mode (approvals still asked)"
PLAN_REJECT = "Not yet: say what to change (the turn stops)"

PLAN_KEYS = kit.ApprovalKeys(
    approve="2",
    reject="Escape",
    settle=1.0,
    kinds=("plan",),
    evidence=kit.Evidence(
        VERSION,
        "live: test_plan_approved_and_rejected_from_the_chat; fixture: plan.jsonl; measured: "
        "2 gave tool.execution_complete success ('Plan approved! Exited plan mode.') and "
        "session.mode_changed plan -> interactive; Esc gave human_response.recorded "
        "(approved false), then success false, error.code 'rejected', and abort, in either "
        "order",
    ),
)
""""1. Accept plan and continue in Autopilot execution mode (recommended)", "2. Accept plan
and continue in Interactive execution mode", "3. Exit to Interactive execution mode without
running the plan", "4. Suggest changes". Approve is row 2: autopilot would go on past the
chat's approvals. Reject is Esc: the call fails ``rejected`` and the turn ends, so the
feedback goes as the next message."""

HUMAN_RESPONSE = "human_response.recorded"
"""The session log's record of the user's answer to an ``ask_user`` form or the plan menu
(``toolCallId``, ``response``). A rejected plan's Esc writes it, then ``abort``, and the
call's ``tool.execution_complete`` (``rejected``, with the feedback) either before the abort
or just after it (seen both ways): the call is ended by its result, never by the abort."""

QUESTION_TOOL = "ask_user"
"""The question tool of the interactive TUI: ``{message, requestedSchema}``, a form (the
plain ``{question, choices}`` shape is refused: "This session uses the structured ask_user
format")."""

QUESTION_RESULT_HEAD = "User responded:"
"""The first line of an answered form's ``result.detailedContent``; one ``<key>: <value>``
line per field follows."""

QUESTION_FORM = kit.PickerPacing(
    settle=1.0,
    key_delay=0.3,
    tab_settle=0.6,
    evidence=kit.Evidence(
        VERSION,
        "live: test_ask_user_answered_from_run_answer_and_from_the_form; measured: the form "
        "is drawn after the call's tool.execution_start and preToolUse hook (0.8 s between "
        "keys was always taken); Down, Space, Enter, typing on 'Other (type your answer)'",
    ),
)
"""The form is drawn after the ``preToolUse`` hook of its call (``DRAWN_AFTER``), so keys go
``settle`` seconds after that hook's ``hook.end``, ``key_delay`` apart, and ``tab_settle``
after a key that shows the next tab or opens the text box."""

DRAWN_AFTER = "preToolUse"
"""The hook after which the TUI draws an ``ask_user`` form or the plan menu. Its ``hook.start``
record in the session log names the call (``input.toolCalls[].id``); its ``hook.end`` shares
the ``hookInvocationId``. Hooks run as processes, slow under load: the settle counts from
this hook's end, not from the call's start."""

DRAWN_TIMEOUT = 30.0
"""Seconds to wait for that ``hook.end`` (hooks run as processes: slow under load)."""

STARTUP = None
"""No start-up screen: an isolated run writes ``config.json`` ``{"trustedFolders": [cwd]}``
before the start ("Confirm folder trust" otherwise; Down, Enter remembers the folder)."""

RESTORED_INPUT = None
"""An interrupt leaves nothing in the prompt box (seen: the box is empty after Esc)."""

INITIAL_PROMPT = kit.InitialPrompt(
    flag="--interactive",
    max_bytes=8192,
    evidence=kit.Evidence(
        VERSION,
        "live: test_first_prompt_in_the_argument_arrives_once, "
        "test_first_prompt_with_shell_metacharacters_arrives_intact; extraction: `copilot "
        "--help`: `-i, --interactive <prompt>  Start interactive mode and automatically "
        "execute this prompt`",
    ),
)
"""Submitted once, confirmed by the same ``userPromptSubmitted`` hook as a send."""

READY = kit.ReadySignal(
    signal="the newest session folder's inuse.<pid>.lock and, in the run's own COPILOT_HOME, "
    "its ide/ folder (the TUI's last start-up write)",
    settle=0.0,
    evidence=kit.Evidence(
        VERSION,
        "live: every Copilot live test; measured: lock 2.4 s, ide/ 5.5 s after the spawn under "
        "load; a paste at the lock alone was lost twice, at ide/ it was kept",
    ),
)
"""``sessionStart`` fires only with the first prompt, so it cannot say the TUI is ready. In
the user's own ``COPILOT_HOME`` ``ide/`` exists from earlier runs: the lock alone tells."""

HOOKS = kit.HookEvents(
    events=(
        "sessionStart",
        "userPromptSubmitted",
        "preToolUse",
        "postToolUse",
        "agentStop",
        "sessionEnd",
        "errorOccurred",
    ),
    evidence=kit.Evidence(
        VERSION,
        "measured: each fired from <COPILOT_HOME>/settings.json `hooks` and from "
        ".github/hooks/*.json, JSON on stdin (docs/compat/copilot.md)",
    ),
)
"""``{"<event>": [{"type": "command", "bash": <command>, "timeoutSec": n}]}``."""

SEED = kit.SeedLayout(
    context_file="AGENTS.md",
    skills_dir=".github/skills",
    exclude=("/AGENTS.md", "/.github/skills/"),
    evidence=kit.Evidence(
        VERSION,
        "measured: start-up line 'No copilot-instructions.md found. Run /init to generate.'; "
        "`copilot help commands` (/add-dir loads .github skills)",
    ),
)

CLEAR_COMMAND = "/clear"
"""Abandons the session (``sessionEnd``, ``session.shutdown``) and opens a new session
folder at once; its ``events.jsonl`` comes with the next prompt. No command is recorded."""

CLEAR_SETTLE = kit.ReadySignal(
    signal="the abandoned session's sessionEnd hook record after a /clear",
    settle=0.5,
    evidence=kit.Evidence(
        VERSION,
        "live: test_the_clear_command_opens_a_new_epoch_with_its_echo; measured: the new "
        "session folder exists before the sessionEnd hook fires",
    ),
)
"""Seconds from a ``/clear``'s ``sessionEnd`` hook until the next prompt may be pasted."""

ABORT_SETTLE = kit.ReadySignal(
    signal="the session log's abort record (an Esc: an interrupt, or a rejected approval), "
    "or the cancelled permission.completed just before it",
    settle=1.0,
    evidence=kit.Evidence(
        VERSION,
        "measured: a prompt pasted 0.1-0.5 s after the abort of an Esc-rejected approval left "
        "no record and an empty prompt box (lost within 2 of 12 reject-then-send rounds, and "
        "in 1 of 8 runs of test_kernel_tools[copilot]); pasted 1.0 s after it, 0 of 24 lost",
    ),
)
"""Seconds from an ``abort`` record, or the cancelled approval before it (the last in the
session log), until a prompt may be pasted: the TUI drops what arrives sooner."""

MODE_COMMANDS = frozenset({"/plan"})
"""Commands that switch the TUI's mode and redraw it: a paste sent before that is lost or
joins the command in the prompt box ("Unknown command: /planhi")."""

MODE_SETTLE = kit.ReadySignal(
    signal="a session.mode_changed event appended to the session log after /plan",
    settle=0.3,
    evidence=kit.Evidence(
        VERSION,
        "live: test_plan_approved_and_rejected_from_the_chat; measured: mode_changed 1.0 s "
        "after the paste; a prompt sent at once after /plan was never submitted, one sent "
        "after the event was",
    ),
)
"""Seconds from that event until the next prompt may be pasted. Before a session's first
prompt its log does not exist yet (the CLI buffers its events), so nothing can be awaited:
a mode command is then best not the first message."""

MODE_TIMEOUT = 10.0
"""The longest wait for that event."""

MODE_CHANGED = "session.mode_changed"

CLEAR_TIMEOUT = 10.0
"""The longest wait for that hook (it fired at once when seen)."""

SHELL_TOOL = "bash"
"""The shell tool (``command``); the portable ``ToolUse("Bash")`` plays it."""

ENV = {
    "COPILOT_OFFLINE": "true",
    "COPILOT_AUTO_UPDATE": "false",
    "COPILOT_PROVIDER_TYPE": "openai",
}
ENV_BASE_URL = "COPILOT_PROVIDER_BASE_URL"
ENV_KEY = "COPILOT_PROVIDER_API_KEY"
ENV_MODEL = "COPILOT_MODEL"
ENV_HOME = "COPILOT_HOME"
"""An endpoint run: offline, no auto-update, chat completions at ``<base>/v1``, its key and
model; state in ``COPILOT_HOME`` (``HOME`` stays: the runtime unpacks into
``~/.cache/copilot/pkg/`` once per user, 235 MB)."""

ENDPOINT_MODEL = "scripted-model"
"""The model an endpoint run names when the user names none (``COPILOT_MODEL`` is required
with a provider URL; a name outside the built-in catalog gets the default token limits)."""

UNSET_ENV = frozenset(
    {
        "CI",
        "GITHUB_ACTIONS",
        "COPILOT_ALLOW_ALL",
        "COPILOT_GITHUB_TOKEN",
        "GH_TOKEN",
        "GITHUB_TOKEN",
        "COPILOT_PROVIDER_API_KEY_COMMAND",
        "COPILOT_PROVIDER_BEARER_TOKEN",
        "COPILOT_PROVIDER_WIRE_API",
        "COPILOT_PROVIDER_TRANSPORT",
        "COPILOT_PROVIDER_MODEL_ID",
        "COPILOT_PROVIDER_WIRE_MODEL",
        "COPILOT_PROVIDER_HEADERS",
        "COPILOT_PROVIDER_AZURE_API_VERSION",
    }
)
"""The user's settings an endpoint run must not inherit (``copilot help environment``):
``CI`` changes the auto-update default, ``COPILOT_ALLOW_ALL`` would answer every approval
the chat shows, the tokens and the other ``COPILOT_PROVIDER_*`` knobs would redirect or
re-authenticate the run's requests."""

CONFIG_FILE = "config.json"
TRUSTED_FOLDERS = "trustedFolders"
"""``<COPILOT_HOME>/config.json`` ``{"trustedFolders": [<folder>]}``: no "Confirm folder
trust" screen in that folder (the same key in ``settings.json`` did not spare it)."""

SETTINGS_FILE = "settings.json"
HOOKS_KEY = "hooks"
"""``<COPILOT_HOME>/settings.json`` ``{"hooks": {...}}``: user-level hooks, the same schema
as a repository's ``.github/hooks/*.json``; nothing is written into the user's folder."""

HOOK_TIMEOUT = 10
"""``timeoutSec`` of each spooling hook (it writes one small file)."""

TURN_DONE = "agentStop"
"""The hook that ends a finished prompt (not an aborted one), after its last
``assistant.turn_end``; its ``hook.start`` in the session log is the reader's idle where the
run has hooks. Until it, the TUI shows "Working"."""

TURN_DONE_SINCE = (1, 0, 102)
"""The first version known to fire ``agentStop`` (1.0.70 records no such hook)."""


def has_turn_done(version: object) -> bool:
    """Whether a session of CLI ``version`` (its ``session.start``) ends prompts with
    ``agentStop``.

    Examples
    --------
    >>> has_turn_done("1.0.102"), has_turn_done("1.0.70"), has_turn_done(None)
    (True, False, False)
    """
    try:
        parts = tuple(int(p) for p in str(version).split("."))
    except ValueError:
        return False
    return parts >= TURN_DONE_SINCE


PROMPT_SUBMITTED = "userPromptSubmitted"
"""The hook that fires once per submitted prompt, before ``user.message``: the submit
confirmation."""

SESSION_ENDED = "sessionEnd"
"""The hook ``/clear`` fires at once for the abandoned session."""

USER_HOME = ".copilot"
"""``COPILOT_HOME`` defaults to ``$HOME/.copilot``."""

TUI_STARTED = "ide"
"""The folder a fresh ``COPILOT_HOME`` gets as the TUI starts (its IDE discovery), the
last of its start-up writes, about 3 s after the session folder under load."""

SESSIONS_DIR = "session-state"
EVENTS_FILE = "events.jsonl"
WORKSPACE_FILE = "workspace.yaml"
LOCK_PREFIX = "inuse."
"""``session-state/<uuid>/`` holds ``workspace.yaml`` (``id``, ``cwd``, ``created_at``, ...)
and, while a CLI has the session open, ``inuse.<pid>.lock``; ``events.jsonl`` comes with the
first prompt."""


def todo(where: str, what: str) -> NotImplementedError:
    """The error a piece still to write raises."""
    return NotImplementedError(
        f"fill in lab_widget/provider/copilot/{where}: {what} (docs/adding-a-provider.md)"
    )


SHELL_TOOLS = kit.ShellTools(
    fields={"bash": "command"},
    evidence=kit.Evidence(
        VERSION,
        "fixture: approve.jsonl, questions.jsonl (tool.execution_start bash {command, "
        "description})",
    ),
)
"""Copilot CLI runs shell commands with ``bash``."""
