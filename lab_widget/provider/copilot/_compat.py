"""Every coupling to GitHub Copilot CLI's private behaviour, each with the evidence it was
verified by (``docs/compat/copilot.md``).

Seen on the pinned 1.0.102 under tmux against the scripted model (chat completions):
``measured:`` marks a probe of the binary by hand, ``fixture:`` the session logs recorded
then into ``tests/fixtures/copilot/``, ``extraction:`` the CLI's own help. Nothing here is
yet played by a live test: the records the TUI base plays wait for the provider's spawn.
"""

from __future__ import annotations

from ... import provider as kit

VERSION = "1.0.102"
"""The CLI version the couplings below were verified against (``@github/copilot``; the
pin in ``lab_widget/compat.py`` comes with the provider's spawn)."""

PASTE = kit.PasteTiming(
    submit_delay=0.25,
    confirm_waits=(0.5, 1.0, 1.0, 1.0, 2.0, 4.0),
    evidence=kit.Evidence(
        VERSION,
        "measured: a paste sent at the session folder's lock file, Enter repeated every "
        "second, submitted once (one userPromptSubmitted hook, one user.message)",
    ),
)
"""Paste, Enter at once, and Enter again until the ``userPromptSubmitted`` hook confirms:
Enters sent before the TUI draws its prompt are dropped, the pasted text is kept."""

INTERRUPT = kit.KeyRecipe(
    keys=("Escape",),
    evidence=kit.Evidence(VERSION, "fixture: approve_reject_interrupt.jsonl (abort events)"),
)
"""Esc ends the turn: ``assistant.turn_end`` then ``abort {reason: "user_initiated"}``."""

APPROVAL = kit.ApprovalKeys(
    approve="Enter",
    reject="Escape",
    approve_always=None,
    settle=0.5,
    evidence=kit.Evidence(
        VERSION,
        "fixture: approve_reject_interrupt.jsonl (permission.completed approved after "
        "Enter, cancelled after Escape)",
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
        "extraction: `copilot --help`: `-i, --interactive <prompt>  Start interactive mode "
        "and automatically execute this prompt`",
    ),
)
"""Not yet checked to submit exactly once."""

READY = kit.ReadySignal(
    signal="the run's session folder under session-state/ with its inuse.<pid>.lock",
    settle=0.0,
    evidence=kit.Evidence(
        VERSION,
        "measured: the lock appears 2-4 s after the spawn, before the prompt is drawn; a "
        "paste then is kept and the confirmed submit lands it once",
    ),
)
"""``sessionStart`` fires only with the first prompt, so it cannot say the TUI is ready."""

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

SESSIONS_DIR = "session-state"
EVENTS_FILE = "events.jsonl"


def todo(where: str, what: str) -> NotImplementedError:
    """The error a piece still to write raises."""
    return NotImplementedError(
        f"fill in lab_widget/provider/copilot/{where}: {what} (docs/adding-a-provider.md)"
    )
