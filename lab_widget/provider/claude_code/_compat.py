"""Every private coupling to Claude Code, pinned to one exact version.

Changing the pinned version means re-recording the fixtures
(``scripts/record_fixtures.py``) and re-running the live tests against it.
"""

from __future__ import annotations

from ...compat import PINS
from ...schema import CommandSpec

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

SIGNAL_EVENTS = ("SessionStart", "SessionEnd")
"""Hook events spooled per run: SessionStart carries the transcript path of each epoch
(``source`` is ``startup`` or ``clear``) and tells that the TUI is up."""

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
