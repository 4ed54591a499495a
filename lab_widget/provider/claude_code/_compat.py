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

TRUST_ACCEPT_KEYS = ("Enter",)
"""The folder-trust screen preselects "Yes, I trust this folder"."""

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
