"""The compat registry: the exact CLI versions lab_widget is built and tested against.

Every coupling to a CLI's private behaviour (transcript grammar, keystroke recipes, hook
payloads, builtin commands, config knobs) lives in that provider's package, keyed to the
version pinned here, and is covered by fixtures recorded from that version
(``scripts/record_fixtures.py``). The couplings two sides read live here instead: the
context prefixes a CLI writes into user-role text, which its reader leaves out of the chat
and the scripted model out of the text its rules match (the scripted model never imports a
provider).

Examples
--------
>>> PINS["claude-code"].spec
'@anthropic-ai/claude-code@2.1.332'
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "CODEX_CONTEXT_PREFIXES",
    "COPILOT_CONTEXT_TAGS",
    "GEMINI_CONTEXT_PREFIXES",
    "ORACLE",
    "PINS",
    "CLIPin",
    "ToolPin",
    "install_command",
]


class _NpmPin:
    """What every pin is: a package at an exact version on npm."""

    npm_package: str
    version: str

    @property
    def spec(self) -> str:
        """The npm install spec, ``package@version``."""
        return f"{self.npm_package}@{self.version}"


@dataclass(frozen=True)
class CLIPin(_NpmPin):
    """One agent CLI at one exact version, installed from npm."""

    provider_id: str
    npm_package: str
    version: str
    binary: str


PINS: dict[str, CLIPin] = {
    pin.provider_id: pin
    for pin in (
        CLIPin("claude-code", "@anthropic-ai/claude-code", "2.1.332", "claude"),
        CLIPin("codex", "@openai/codex", "0.171.0", "codex"),
        CLIPin("gemini", "@google/gemini-cli", "0.61.0", "gemini"),
        CLIPin("opencode", "opencode-ai", "1.18.33", "opencode"),
        CLIPin("copilot", "@github/copilot", "1.0.102", "copilot"),
    )
}


CODEX_CONTEXT_PREFIXES = (
    "<environment_context>",
    "<user_instructions>",
    "<permissions instructions>",
    "<skills_instructions>",
    "<turn_aborted>",
    "<user_shell_command>",
    "<subagent_notification>",
    "# AGENTS.md instructions",
)
"""How the user-role messages Codex writes itself begin (the pinned version's context,
interrupt notes, and the note a parent thread gets when a sub-agent finishes:
``<subagent_notification>{"agent_path": <thread id>, "status": {"completed": ...}}``): in
its rollouts and in the ``input`` items of its Responses requests alike, never what the
user typed."""

GEMINI_CONTEXT_PREFIXES = ("<session_context>",)
"""How the user text parts Gemini CLI writes itself begin (its session context, at a
session's start): in its session records and in the ``contents`` of its requests alike."""

COPILOT_CONTEXT_TAGS = ("current_datetime",)
"""The elements Copilot CLI puts before the user's words in the user text it sends
(``<current_datetime>...</current_datetime>`` and a blank line, its session log's
``user.message.transformedContent``); its log keeps the words alone (``content``)."""


@dataclass(frozen=True)
class ToolPin(_NpmPin):
    """A tool the tests run beside the agents (not an agent: no provider has its id)."""

    name: str
    npm_package: str
    version: str
    binary: str


ORACLE = ToolPin("ccusage", "ccusage", "20.0.24", "ccusage")
"""The independent reader of the agents' own files whose token totals the oracle tests
compare with ours. 20.0.26's Linux native package is missing from the registry; 20.0.24
installs and runs. Installed into the tools folder with the CLIs.

Examples
--------
>>> ORACLE.spec
'ccusage@20.0.24'
"""


def install_command() -> str:
    """The command that installs every pinned CLI into the project's tools folder.

    Examples
    --------
    >>> install_command()
    'python -m lab_widget install-clis'
    """
    return "python -m lab_widget install-clis"
