"""What lab_widget depends on in Qwen Code's keys, hooks, files and settings (evidence and
re-pinning: ``docs/compat/qwen-code.md``).

Qwen Code is a fork of Gemini CLI: its TUI plays the family's hook-driven session base
(``kit.HookSessionProvider``) and its records keep Gemini CLI's GenAI parts
(``kit.PartsGrammar``). What diverged is here: Claude-style hook events, JSONL chat records
linked by ``uuid``/``parentUuid`` under ``projects/<slug>/chats/``, an OpenAI-compatible
endpoint, ``QWEN_HOME``, and an approval prompt of four rows.
"""

from __future__ import annotations

from ...compat import QWEN_CONTEXT_PREFIXES
from ...schema import DialogKind
from .. import kit

VERSION = kit.pinned("qwen-code", "0.24.4")
"""Pinned here although its ``package.json`` declares ``engines.node >= 22``: it runs on
Node 20 (v20 on this machine) through every live test; its bundled ripgrep is not
executable after an npm install (``EACCES``, a warning box at every start) and it falls back
to its own grep."""

_LIVE = "live: tests/live/qwen_code/test_run.py"

PASTE = kit.hook_confirmed_paste(
    kit.Evidence(
        VERSION,
        f"{_LIVE} (every send confirmed by its UserPromptSubmit record); "
        "live: tests/live/test_providers.py[qwen-code]",
    ),
    submit_delay=0.4,
    retry_after=4.0,
)
"""A prompt is a bracketed paste with Enter at once, confirmed by the ``UserPromptSubmit``
hook (:data:`PROMPT_SUBMITTED`) and pressed again on the family's waits while it has not
come; an Enter on an empty prompt box does nothing (with follow-up suggestions off, see
:data:`SETTINGS`: with them on, Enter on an empty box takes the suggestion and sends it)."""

PROMPT_SUBMITTED = "UserPromptSubmit"
"""The hook event a submitted prompt fires as its turn starts. It fires again, with an empty
``prompt`` and no ``submitted_prompt``, when the turn goes on after its tool results."""

TURN_END = "Stop"
"""The hook event a turn ends with (``last_assistant_message``)."""

INITIAL_PROMPT = kit.InitialPrompt(
    evidence=kit.Evidence(
        VERSION,
        "live: test_first_prompt_in_the_argument_arrives_once[qwen-code]; extraction: "
        "`qwen --help`: '-i, --prompt-interactive  Execute the provided prompt and continue "
        "in interactive mode' (kept from Gemini CLI)",
    ),
    max_bytes=8192,
    flag="--prompt-interactive",
)
"""A first prompt given at start-up goes in ``--prompt-interactive=<text>``, the parent's
flag; the tmux command line leaves it 8 KiB."""

READY = kit.ReadySignal(
    signal="the run's SessionStart hook record, newer than the spawn",
    settle=3.0,
    evidence=kit.Evidence(
        VERSION,
        f"{_LIVE}, every test; measured: a paste sent at the record was lost whole (the "
        "prompt box empty, no UserPromptSubmit), 2 runs in 3",
    ),
)
"""The TUI takes a prompt 3 s after its SessionStart hook record: unlike Gemini CLI's, the
hook runs before the prompt box takes a paste at all, and the confirmed submit repeats only
Enter, never the paste."""

READY_WITHOUT_HOOKS = kit.ReadySignal(
    signal="the spawn, in a run whose hooks do not fire (the user's own settings)",
    settle=15.0,
    evidence=kit.Evidence(
        VERSION,
        "unit: tests/unit/providers/qwen_code/test_provider.py; measured: the SessionStart "
        "record 6 to 11 s after the spawn in loaded live runs",
    ),
)
"""Without hooks nothing says the TUI is up: the session file appears with the first prompt
only (``file_at_start=False`` below), so such a run sends its first prompt 15 s after the
spawn. Not covered by a live test."""

CLEAR_SETTLE = kit.ReadySignal(
    signal="the new session's SessionStart hook record after a /clear",
    settle=3.0,
    evidence=kit.Evidence(
        VERSION,
        "live: test_clear_opens_a_new_session_read_back (failed with a 1 s settle: the next "
        "prompt was wiped from the box and never submitted)",
    ),
)
"""Seconds from a ``/clear``'s new session until the next prompt: the box is emptied after
the hooks ran, and nothing says when; as at start-up (:data:`READY`), 3 s."""

INTERRUPT = kit.KeyRecipe(
    keys=("Escape",),
    evidence=kit.Evidence(
        VERSION,
        "live: test_an_interrupt_stops_the_turn_and_the_next_prompt_is_answered[qwen-code]",
    ),
)
"""Esc cancels the turn, as in Gemini CLI (what it leaves in the box: ``RESTORED_INPUT``)."""

STARTUP = None
"""No start-up screen: the isolated settings choose the OpenAI-compatible auth, and the
folder-trust screen shows only with ``security.folderTrust.enabled`` (off by default)."""

RESTORED_INPUT = kit.ctrl_c_empties_the_box(
    kit.Evidence(
        VERSION, "live: test_an_interrupt_stops_the_turn_and_the_next_prompt_is_answered[qwen-code]"
    )
)
"""Unlike Gemini CLI, Esc puts the interrupted prompt back into the box (the next one was
seen glued to it: ``be slowafter the stop``); one Ctrl-C empties a non-empty box (a second
one within its hint would quit)."""

CLEAR_COMMAND = "/clear"
CLEAR_COMMANDS = ("/clear", "/new")
"""The builtin that starts a new session: SessionEnd(``reason: clear``), then
SessionStart(``source: clear``) naming a new session id. Its file is created only with the
next message; no command is recorded. The adapter opens the new epoch with the echo."""

SESSION_HOOKS = kit.SessionHooks(
    PROMPT_SUBMITTED, CLEAR_COMMANDS, READY, READY_WITHOUT_HOOKS, CLEAR_SETTLE, file_at_start=False
)
"""The records above as :class:`~lab_widget.provider.kit.HookSessionProvider` plays them."""

GLOBAL_DIR = ".qwen"
HOME_ENV = "QWEN_HOME"
"""``$QWEN_HOME`` is the global dir itself (``Storage.getGlobalQwenDir``), else
``~/.qwen``: settings, sessions, memory. An isolated run sets it to its own."""

CHATS_GLOB = "projects/*/chats/*.jsonl"
"""Session files under the global dir: ``projects/<slug>/chats/<session id>.jsonl``."""

SLUG_UNSAFE = r"[^a-zA-Z0-9]"
"""The slug is the absolute folder with each of these characters made ``-``
(``sanitizeCwd`` in the 0.24.4 bundle: ``/tmp/a_b/work`` is ``-tmp-a-b-work``)."""

RUNTIME_SUFFIX = ".runtime.json"
"""A session's runtime facts beside its file (pid, work dir, version): not a transcript."""

HOOKS = kit.HookEvents(
    events=(
        "SessionStart",
        "SessionEnd",
        "UserPromptSubmit",
        "Stop",
        "PermissionRequest",
        "PostToolUse",
    ),
    evidence=kit.Evidence(VERSION, f"fixture: tests/fixtures/qwen-code/*.hooks.jsonl; {_LIVE}"),
)
"""Hook events spooled per run: Claude Code's names, not Gemini CLI's. SessionStart
(``source`` startup | clear) names the session (``transcript_path``); UserPromptSubmit and
Stop bracket a turn; PermissionRequest (``tool_name``, ``tool_input``) fires when a tool
confirmation opens; PostToolUse closes an approved call."""

HOOK_SETTINGS_KEY = "hooks"
"""``settings.json`` ``"hooks": {"<Event>": [{"matcher": "*", "hooks": [{"type":
"command", "command": ...}]}]}`` (the family's layout)."""

PERMISSION_EVENT = "PermissionRequest"

SHELL_TOOL = "run_shell_command"
"""The shell tool (Gemini CLI's name, kept)."""

APPROVAL = kit.ApprovalKeys(
    evidence=kit.Evidence(VERSION, "live: test_approval_once_then_always_from_the_chat"),
    settle=1.0,
    approve="Enter",
    approve_always="2",
    reject="Escape",
)
""""Allow execution of: '<root command>'?" lists "1. Yes, allow once" (preselected),
"2. Always allow run '<root> *' commands in this project", "3. ... for this user" and
"4. No, suggest changes (esc)". Enter allows it once; 2 allows the command root in this
project (the isolated run's settings), and the CLI asks no more for it; Esc declines."""

MCP_TOOLS = kit.ToolServerNames(
    pattern="mcp__{server}__{tool}",
    evidence=kit.Evidence(
        VERSION,
        "live: tests/live/test_kernel_tools.py -k qwen-code (the session file's call name, the "
        "PermissionRequest hook's tool_name and tool_input, run_python asked under the "
        "settings' permissions.ask rule); extraction: bundle `DiscoveredMCPToolInvocation` "
        "(`registeredToolName`, `alwaysLoadTools`), `PermissionManager.hasMatchingAskRule`, "
        "`needsConfirmation`, `QWEN_CODE_LEGACY_MCP_BLOCKING` in `Config.initialize`; "
        "measured: a describe call ran unasked under the allow rule, run_python's "
        "confirmation listed only 'Yes, allow once' and 'No, suggest changes (esc)', and "
        "the first request offered the kernel's tools in every run",
    ),
)
"""A server in the settings' ``mcpServers`` (``{name: {command, args, env, trust,
alwaysLoadTools}}``) offers its tools to the model as ``mcp__<server>__<tool>`` (Claude
Code's names, not Gemini CLI's); the settings' ``permissions.ask`` / ``permissions.allow``
rules name them so. An ``ask`` rule makes the tool ask before every call (in every mode but
``yolo``, which the isolated settings never set: their ``tools.approvalMode`` is
``default``) and hides the confirmation's "Always allow" rows; an ``allow`` rule lets it
run unasked. The PermissionRequest hook carries the call's ``tool_input``.
An MCP server's tools are deferred by default (the model is offered ``tool_search`` and
``tool_call`` instead); ``alwaysLoadTools: true`` offers them as first-class tools."""

MCP_BLOCKING_ENV = {"QWEN_CODE_LEGACY_MCP_BLOCKING": "1"}
"""Set for a run with servers of its own: 0.24.4 connects MCP servers in the background
after start-up (``startMcpDiscoveryInBackground``) and takes a prompt before they are up,
so the first request lacked the kernel's tools in 1 of 2 runs (measured: the scripted
model's request; a call then failed "not found on MCP server"). With it the servers are
discovered inside ``Config.initialize``, before the prompt box takes input: the tools were
in every first request (same evidence as :data:`MCP_TOOLS`)."""

APPROVAL_QUESTION = "Allow execution of this command?"
ALWAYS_CHOICE = "Always allow this command in this project"

DIALOG_KINDS: tuple[DialogKind, ...] = ("approval",)

CONTEXT_PREFIXES = QWEN_CONTEXT_PREFIXES
"""User text parts Qwen Code writes itself; pinned in :mod:`lab_widget.compat`, which the
scripted model reads too."""

PARTS = kit.PartsGrammar(
    context_prefixes=CONTEXT_PREFIXES,
    output_wrapper=("<untrusted_context>\n", "\n</untrusted_context>"),
    process_group=r"(?m)^Process Group PGID: \d+\n?",
    shell_output=(
        r"\ACommand: .*?\nDirectory: .*?\nOutput: (?P<output>.*?)\nError: (?P<error>.*?)\n"
        r"Exit Code: (?P<code>.*?)\n"
    ),
    empty=("(none)", "(empty)"),
)
"""How the GenAI parts of Qwen Code's records read. A shell result comes as its
``functionResponse`` carries it: ``Command: <cmd>\\nDirectory: <dir>\\nOutput: <text>\\nError:
<text>\\nExit Code: <n>\\nSignal: <n>\\nProcess Group PGID: <n>``, the field layout Gemini CLI
0.20.2 had (later Gemini CLI wraps it in ``output_wrapper`` instead)."""

USER_TYPE = "user"
ASSISTANT_TYPE = "assistant"
TOOL_RESULT_TYPE = "tool_result"
SYSTEM_TYPE = "system"
"""A chat record's ``type``. Every record has ``uuid``, ``parentUuid`` (the record before
it), ``sessionId``, ``timestamp``, ``cwd`` and ``version``; ``message`` is a GenAI
``Content`` (``role``, ``parts``). ``assistant`` records carry ``model`` and
``usageMetadata`` (one per API response); ``tool_result`` records carry ``toolCallResult``
(``callId``, ``status``); ``system`` records (``subtype``: ``ui_telemetry``,
``attribution_snapshot``, ``file_history_snapshot``) show nothing."""

REAL_USER = "real_user"
"""``provenance`` of a prompt the user typed (a ``user`` record)."""

TOOL_STATUS = {"success": "ok", "error": "error", "cancelled": "error"}
"""``toolCallResult.status`` and the call's final status."""

USAGE_KEYS = {
    "input": "promptTokenCount",
    "output": "candidatesTokenCount",
    "cached": "cachedContentTokenCount",
    "thoughts": "thoughtsTokenCount",
}
"""``usageMetadata`` (GenAI's names): the prompt counts its cached tokens, the output
leaves out the thoughts."""

SETTINGS = {
    "security": {"auth": {"selectedType": "openai"}},
    "tools": {"approvalMode": "default"},
    "ui": {"enableFollowupSuggestions": False},
    "memory": {"enableManagedAutoMemory": False, "enableManagedAutoDream": False},
    "privacy": {"usageStatisticsEnabled": False},
    "telemetry": {"enabled": False},
    "general": {"enableAutoUpdate": False},
}
"""An isolated ``settings.json`` beside ``modelProviders`` (:data:`PROVIDER_ID`):
OpenAI-compatible auth, the plain "Ask permissions" approval mode (the default, Auto, first
asks the model to classify each call), and no background requests (follow-up suggestions,
which also take an empty prompt's Enter; managed memory)."""

PROVIDER_ID = "lab"
"""The ``modelProviders.openai`` entry an isolated run defines: ``{id, baseUrl,
envKey}``."""

ENV_KEY = "LAB_WIDGET_QWEN_KEY"
"""The variable the isolated entry's ``envKey`` names: the endpoint's key."""

USER_ENV = ("QWEN_HOME", "OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_MODEL", "QWEN_RUNTIME_DIR")
"""Inherited variables that would point an isolated run back at the user's setup."""

HEADLESS_ENV = ("CI", "GITHUB_ACTIONS")
"""Unset on every run, as for Gemini CLI: the fork keeps its headless detection."""

SEED = kit.SeedLayout(
    context_file="QWEN.md",
    skills_dir=".qwen/skills",
    exclude=("/QWEN.md", "/.qwen/skills/"),
    evidence=kit.Evidence(VERSION, "conformance: seeding"),
)
"""What a seed writes and excludes (the start-up tip: "Add a QWEN.md file")."""

CUSTOM_COMMANDS_DIR = ".qwen/commands"
"""``<folder>/.qwen/commands/**/*.toml`` and ``~/.qwen/commands/``: Gemini CLI's layout."""

REJECTED_STATUS = "(rejected)"
"""What the reader appends to a declined call's output (``toolCallResult.status``
``cancelled``), which marks its confirmation rejected."""

STOP_BEFORE_RECORD = 5.0
"""Seconds a ``Stop`` hook may precede its response's record in the session file (seen
live: the hook's record spooled before the reader found the response); past them the hook
alone ends the turn."""

SHELL_TOOLS = kit.ShellTools(
    fields={"run_shell_command": "command"},
    evidence=kit.Evidence(
        VERSION,
        "fixture: tools.jsonl, approve.jsonl (functionCall run_shell_command {command})",
    ),
)
"""Qwen Code runs shell commands with ``run_shell_command``."""
