"""Every private coupling to Claude Code, pinned to one exact version.

Changing the pinned version means re-recording the fixtures
(``scripts/record_fixtures.py``) and re-running the live tests against it.
"""

from __future__ import annotations

from ...compat import PINS
from ...schema import CommandSpec, DialogKind, Option, Question

VERSION = "2.1.332"
assert PINS["claude-code"].version == VERSION, "re-verify these couplings for the new pin"

KEY_DELAY = 0.25
"""Seconds between a paste and the key that submits it (the TUI applies pastes async)."""

INTERRUPT_KEYS = ("Escape",)
"""Esc stops the current turn; Ctrl-C twice would quit the TUI."""

STARTUP_ACCEPT_KEYS: dict[str, tuple[str, ...]] = {
    # "Accessing workspace": options "No, exit" (preselected) / "Yes, I trust this folder".
    "trust": ("Down", "Enter"),
    # "Detected a custom API key": options "Yes" / "No (recommended)" (preselected).
    "api-key": ("Up", "Enter"),
}
"""Keys that accept each first-run screen."""

STARTUP_SETTLE = 4.0
"""Seconds from spawn until the first-run screens take keys (keys sent earlier are lost)."""

SCREEN_DELAY = 1.5
"""Seconds for one first-run screen to give way to the next."""

SIGNAL_EVENTS = (
    "SessionStart",
    "SessionEnd",
    "PreToolUse",
    "PostToolUse",
    "PermissionRequest",
    "Notification",
)
"""Hook events spooled per run. SessionStart carries the transcript path of each epoch
(``source`` is ``startup`` or ``clear``) and tells that the TUI is up; PreToolUse /
PostToolUse bracket every tool call with its input (a dialog is pending between them);
Notification reports a permission prompt or an idle TUI."""

DIALOG_TOOLS: dict[str, DialogKind] = {"AskUserQuestion": "question", "ExitPlanMode": "plan"}
"""Tools whose call opens a picker that waits for the user."""

DIALOG_KEY_DELAY = 0.3
"""Seconds between the keys of a dialog recipe (the pickers re-render after each key; at
0.3 s every recipe in tests/test_live_dialogs.py lands the intended answers)."""

PICKER_SETTLE = 1.5
"""Seconds from the PreToolUse signal until the picker takes keys, and from a tab switch
until the next tab does (a key sent sooner was lost in live runs)."""

APPROVE = "Approve"
APPROVE_ALWAYS = "Approve always"
REJECT = "Reject"
APPROVAL_KEYS = {APPROVE: "1", APPROVE_ALWAYS: "2", REJECT: "Escape"}
""""Do you want to proceed?" lists 1 = yes, 2 = yes and don't ask again, then options that
vary by tool, then no; Esc rejects whatever the list is."""

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

BUILTIN_COMMANDS: tuple[CommandSpec, ...] = (
    CommandSpec(name="/clear", description="Start a new conversation", role="clear"),
    CommandSpec(
        name="/compact",
        description="Summarise the conversation to free context",
        arg_hint="[instructions]",
    ),
    CommandSpec(name="/context", description="Show how the context window is used"),
    CommandSpec(name="/cost", description="Show the session's token usage and cost"),
)
"""The builtin commands offered in chat (the full table arrives with the command catalog)."""

ATTRIBUTION_PATTERNS = (
    r"Co-Authored-By: Claude[^\n]*",
    r"🤖 Generated with \[Claude Code\]\([^)]*\)",
)
