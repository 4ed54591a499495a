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
    approve_always=None,
    settle=0.5,
    evidence=kit.Evidence(
        VERSION,
        "live: test_a_shell_approval_answered_from_the_chat_runs_the_command; fixture: "
        "approve_reject_interrupt.jsonl (permission.completed approved after Enter, cancelled "
        "after Escape)",
    ),
)
""""Do you want to run this command?": "1. Yes" (preselected), "2. Yes, and don't ask again
for `<cmd>` in this repo (<folder>)", "3. No, and tell Copilot what to do differently (Esc
to stop)". Enter approves; Esc cancels the call and the whole turn. The prompt opened 0.55 s
after the ``preToolUse`` hook. Row 2 is not offered: it outlives the run (kept per repo)."""

APPROVAL_QUESTION = "Do you want to run this command?"
APPROVE_CHOICE = "Yes"
REJECT_CHOICE = "No (Esc: stops the turn)"

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
