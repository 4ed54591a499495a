"""Every coupling to Mistral Vibe's private behaviour, each with the evidence it was verified
by (``docs/compat/mistral-vibe.md``).

Seen on the pinned 3.0.2 (``mistral-vibe`` on PyPI, installed into its own environment in
the tools folder) under tmux against the scripted model (chat completions): ``live:`` names
the live test that plays a record, ``measured:`` a probe of the CLI by hand, ``fixture:``
the session stores recorded into ``tests/fixtures/mistral-vibe/``, ``extraction:`` the
package's own source and its bundled ``vibe`` skill (``vibe/core/skills/builtins/vibe.py``).

Hooks: 3.0.2 has no experimental switch (``hooks.toml`` is read when present), but its hook
events are ``post_agent``, ``pre_tool`` and ``post_tool`` only: none fires on a submitted
prompt, a session's start or a ``/clear``, and ``pre_tool`` fires before the permission
prompt, not with it. The product relies on no hook: the session store's journal records
every submitted prompt, approval prompt and its answer, and the session's status, and the
``vibehistory`` file every submitted line. A run's ``hooks.toml`` is left unwritten, and a
user's own hooks run as they would (they cannot change what the journal records).
"""

from __future__ import annotations

from .. import kit

VERSION = kit.pinned("mistral-vibe", "3.0.2")
"""The CLI version the couplings below were verified against."""

PASTE = kit.PasteTiming(
    submit_delay=0.3,
    confirm_waits=(0.5, 1.0, 1.0, 2.0, 2.0, 4.0, 4.0, 8.0),
    evidence=kit.Evidence(
        VERSION,
        "live: test_a_reply_is_answered_and_the_run_goes_idle; measured: Enter on an empty "
        "prompt box does nothing, idle and mid-turn; each submitted line is appended to "
        "vibehistory at once",
    ),
)
"""Paste, Enter at once, and Enter again until ``vibehistory`` gains a line."""

INTERRUPT = kit.KeyRecipe(
    keys=("Escape",),
    evidence=kit.Evidence(
        VERSION,
        "extraction: the working line reads 'Esc/Ctrl+C to interrupt'; Ctrl+C twice quits",
    ),
)
"""Esc stops the turn (the spinner offers it); Ctrl+C would quit on a second press."""

APPROVAL = kit.ApprovalKeys(
    approve="Enter",
    reject="Escape",
    approve_always="2",
    settle=2.0,
    evidence=kit.Evidence(
        VERSION,
        "live: test_vibe_chats_calls_a_tool_answers_an_approval_and_clears; measured: "
        "'Permission for the file_system.bash tool (touch *)', rows '1. Allow once' "
        "(preselected), '2. Allow for remainder of this session', '3. Always allow', "
        "'4. Deny'; Enter selects, Esc rejects (callback_resolved decision approve / deny); "
        "on the loaded machine an Enter 0.5 s after callback_registered was once lost, "
        "3 s after it was taken",
    ),
)
""""Allow once" is preselected; row 2 allows the same command pattern for the session;
"3. Always allow" is not offered: it outlives the run (written into the user's config)."""

APPROVE_CHOICE = "Allow once"
APPROVE_ALWAYS_CHOICE = "Allow for remainder of this session"
REJECT_CHOICE = "Deny (the model is told, the turn goes on)"

STARTUP = None
"""No start-up screen: the run starts with ``--trust`` (the folder-trust prompt otherwise),
and a provider named in the run's own ``config.toml`` has no onboarding."""

RESTORED_INPUT = None
"""An interrupt puts nothing back into the prompt box."""

INITIAL_PROMPT = kit.InitialPrompt(
    flag=None,
    max_bytes=8192,
    evidence=kit.Evidence(
        VERSION,
        "live: test_first_prompt_in_the_argument_arrives_once[mistral-vibe], "
        "test_first_prompt_with_shell_metacharacters_arrives_intact[mistral-vibe]; measured: "
        "`vibe --trust -- '-x it\"s hello'` submitted it once at start-up (one turn/start), "
        "though vibehistory does not record it",
    ),
)
"""``vibe [PROMPT]``, after ``--``; confirmed by the session's store appearing (a first
prompt creates it), not by ``vibehistory``, which records only what was typed."""

READY = kit.ReadySignal(
    signal="the session's lease, logs/session/active/<session id>.lock.json, naming the "
    "TUI's process",
    settle=0.0,
    evidence=kit.Evidence(
        VERSION,
        "live: every Mistral Vibe live test; measured: the lease is written as the TUI "
        "draws its prompt; a paste sent then is kept and its Enter confirmed by vibehistory",
    ),
)
"""Ready when the run's home has a session lease; the confirmed submit repeats an Enter
taken too early."""

HOOKS = None
"""No hook is spooled: 3.0.2 has none on a submitted prompt, a session start or a clear
(see the module's docstring); the session store's journal says all the product needs."""

SEED = kit.SeedLayout(
    context_file="AGENTS.md",
    skills_dir=".agents/skills",
    exclude=("/AGENTS.md", "/.agents/skills/", "/.vibe/"),
    evidence=kit.Evidence(
        VERSION,
        "extraction: the vibe skill's 'AGENTS.md Discovery' (every AGENTS.md from the "
        "project root) and 'Project-Local Configuration' (.agents/skills/, .vibe/)",
    ),
)

CLEAR_COMMAND = "/clear"
"""Starts a new session at once (a new lease, ``New conversation started.``); its store
comes with the next prompt. The command itself is recorded only in ``vibehistory``."""

CLEAR_TIMEOUT = 15.0
"""The longest wait for the new session's lease after a ``/clear``."""

CLEAR_SETTLE = 0.5
"""Seconds between the server's switch of leases and the next prompt. The TUI takes the
new session id only when the server's answer reaches it; a prompt typed before goes to the
closed session (``Session not found`` on screen, the prompt lost). Measured on 3.0.2: the
old lease goes 25-40 ms after the new one comes, the screen's ``New conversation started.``
within 60 ms of it, idle or under four CPU hogs; the settle covers a loaded machine."""

ENV_HOME = "VIBE_HOME"
USER_HOME = ".vibe"
"""``VIBE_HOME`` moves the whole home (config, ``.env``, logs, history); ``~/.vibe`` else."""

ENV = {"VIBE_TYPING_GRACE_PERIOD_MS": "0"}
"""Every run: the approval prompt opens at once, not after the second of typing grace the
TUI waits for a person to stop typing (keys sent in that second are taken as typing)."""

ENV_KEY = "LAB_WIDGET_VIBE_API_KEY"
"""The variable an endpoint run's provider entry names (``api_key_env_var``)."""

UNSET_ENV = frozenset({"VIBE_ACTIVE_MODEL", "MISTRAL_API_KEY", "PYTHONPATH", "PYTHONHOME"})
"""What an endpoint run must not inherit: ``VIBE_*`` overrides any config field (the model
first), the user's key, and the kernel's Python settings, which would lead the CLI's own
interpreter to the kernel's packages."""

CONFIG_FILE = "config.toml"
HISTORY_FILE = "vibehistory"
"""One JSON string a line, each line the TUI submitted (prompts and slash commands)."""

ENDPOINT_PROVIDER = "lab-widget"
ENDPOINT_ALIAS = "lab-widget"
ENDPOINT_MODEL = "scripted-model"
API_STYLE = "openai"
"""An endpoint run's ``[[providers]]`` entry (``api_style = "openai"``: chat completions at
``api_base``) and ``[[models]]`` entry, named by ``active_model``."""

SESSIONS_DIR = "logs/session"
LEASES_DIR = "active"
LEASE_SUFFIX = ".lock.json"
STORE_DIR = "unified"
"""``logs/session/active/<id>.lock.json`` while a TUI has the session; the session's store,
``logs/session/unified/<id>/``, from its first prompt."""

STORE_FORMAT = "mistral.vibe.unified-session-store/v1"
"""``CURRENT``'s ``store_format``: the store the reader knows."""

SHELL_TOOL = "file_system.bash"
"""The shell tool as the store names it (``bash`` in the request; ``command``)."""

_MCP_EVIDENCE = kit.Evidence(
    VERSION,
    "live: tests/live/test_kernel_tools.py -k mistral-vibe (the store's toolName and "
    "callback_registered, the approval prompt, a reading tool that ran unasked only with its "
    "[tools.<server>_<tool>] permission = 'always'); extraction: the request's "
    "run_typescript description and system prompt's 'Searchable connector groups'",
)

MCP_TOOLS = kit.ToolServerNames(pattern="mcp_{server}.{tool}", evidence=_MCP_EVIDENCE)
"""An MCP server's tools as the session store, the approval prompt and the TUI name them.
The model is offered no function of its own for them: the Unified Harness lists the server
as the connector group ``mcp_<server>`` and the model calls ``tools.mcp_<server>.<tool>(
{...})`` inside ``run_typescript`` (:data:`MCP_CALLER`); each such call is its own tool
effect with its own approval."""

MCP_CALLER = "run_typescript"
"""The model-facing tool whose code calls MCP tools (same evidence as :data:`MCP_TOOLS`)."""

MCP_PERMISSIONS = kit.ToolServerNames(pattern="{server}_{tool}", evidence=_MCP_EVIDENCE)
"""The name ``tools.<name>.permission`` (``ask`` / ``always`` / ``never``) knows an MCP
tool by: without one, every MCP tool asks; with ``always`` it runs unasked."""

ENV_MCP_SERVERS = "VIBE_MCP_SERVERS"
ENV_TOOLS = "VIBE_TOOLS"
"""Config fields given as JSON in ``VIBE_*`` variables: 3.0.2's environment layer
(pydantic-settings, prefix ``VIBE_``) sits over the user's and the project's
``config.toml`` and under the command line's overrides and the agent profile; an
``mcp_servers`` entry is ``name``, ``transport = "stdio"``, ``command``, ``args``, ``env``
(same evidence as :data:`MCP_TOOLS`)."""

MCP_CALL_TIMEOUT = "tool_timeout_sec"
"""The key of an ``mcp_servers`` entry that sets, in seconds, how long the CLI waits for one
of its calls (3.0.2's ``MCPServer`` field, default 60: a kernel cell of 70 s was cut at
60 s, "The provided tool call failed", while the code ran on). The run sets it from the
server's ``call_timeout``; with a 5 s limit a 12 s call is cut at 5 s (live:
``tests/live/test_kernel_tools.py -k time_the_server``)."""

ASKING_ENV = {"VIBE_ENABLE_AUTO_APPROVE": "false", "VIBE_BYPASS_TOOL_PERMISSIONS": "false"}
"""A run with asking tools of its own servers: ``enable_auto_approve = false`` takes away
the auto-approve agent and ``--yolo``/``--auto-approve`` and clamps
``bypass_tool_permissions`` (extraction: ``app_server/_runtime.py``
``_effective_bypass_tool_permissions``), so no mode reached from the TUI runs them
unasked."""

SHELL_TOOLS = kit.ShellTools(
    fields={"file_system.bash": "command"},
    evidence=kit.Evidence(
        VERSION,
        "fixture: tools.jsonl, approve_reject.jsonl (the file_system tool set's bash, {command})",
    ),
)
"""Mistral Vibe runs shell commands with its ``file_system`` tool set's ``bash`` (the name
the reader gives its calls)."""
