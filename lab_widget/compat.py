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
>>> PINS["mistral-vibe"].spec
'mistral-vibe==3.0.2'
>>> [adapter.spec for adapter in ACP_ADAPTERS]
['@zed-industries/codex-acp@0.16.0']
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "ACP_ADAPTERS",
    "CODEX_CONTEXT_PREFIXES",
    "COPILOT_CONTEXT_TAGS",
    "GEMINI_CONTEXT_PREFIXES",
    "KILO_CONTEXT_TAGS",
    "ORACLE",
    "PINS",
    "QWEN_CONTEXT_PREFIXES",
    "AgentPin",
    "CLIPin",
    "PythonCLIPin",
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


@dataclass(frozen=True)
class PythonCLIPin:
    """One agent CLI at one exact version, installed from PyPI into a virtual environment
    of its own in the tools folder, built on a Python of at least ``min_python`` found on
    the machine: never into the kernel's environment, whose packages its exact pins would
    fight.

    Examples
    --------
    >>> PythonCLIPin("x", "x-cli", "1.2.3", "x", (3, 12)).spec
    'x-cli==1.2.3'
    """

    provider_id: str
    pypi_package: str
    version: str
    binary: str
    min_python: tuple[int, int]

    @property
    def spec(self) -> str:
        """The pip requirement, ``package==version``."""
        return f"{self.pypi_package}=={self.version}"


AgentPin = CLIPin | PythonCLIPin
"""An agent CLI's pin, whichever registry it comes from."""


PINS: dict[str, AgentPin] = {
    pin.provider_id: pin
    for pin in (
        CLIPin("claude-code", "@anthropic-ai/claude-code", "2.1.332", "claude"),
        CLIPin("codex", "@openai/codex", "0.171.0", "codex"),
        CLIPin("gemini", "@google/gemini-cli", "0.61.0", "gemini"),
        CLIPin("opencode", "opencode-ai", "1.18.33", "opencode"),
        CLIPin("copilot", "@github/copilot", "1.0.102", "copilot"),
        # 3.0.3 pins certifi==2026.10.19, which the index does not hold (only its .post1):
        # it cannot be installed. 3.0.2 resolves; both need Python >= 3.12.
        PythonCLIPin("mistral-vibe", "mistral-vibe", "3.0.2", "vibe", (3, 12)),
        # Kilo Code: 7.8.1, the newest, does not install (its @kilocode/cli-linux-x64@7.8.1
        # is missing from the registry, `npm view` answers 404); 7.7.7 installs and runs.
        CLIPin("kilo", "@kilocode/cli", "7.7.7", "kilo"),
        CLIPin("qwen-code", "@qwen-code/qwen-code", "0.24.4", "qwen"),
    )
}
"""Every pinned agent CLI by provider id. Kilo Code is pinned to 7.7.7, not the newest
7.8.1: 7.8.1's Linux native package ``@kilocode/cli-linux-x64@7.8.1`` is missing from the
registry, so it does not install; 7.7.7 is the newest that installs and runs."""


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

QWEN_CONTEXT_PREFIXES = ("<system-reminder>",)
"""How the user text parts Qwen Code writes itself begin (its skills and environment
reminders, before the first prompt of a session): in the ``messages`` of its requests."""

COPILOT_CONTEXT_TAGS = ("current_datetime", "mode_changed_notice")
"""The elements Copilot CLI puts before the user's words in the user text it sends
(``<current_datetime>...</current_datetime>`` and a blank line, its session log's
``user.message.transformedContent``); its log keeps the words alone (``content``). A user
message of such elements alone is the CLI's, not the user's (``<mode_changed_notice>`` after
a plan is approved, its log's ``session.mode_notice_delivered``)."""


KILO_CONTEXT_TAGS = ("environment_details",)
"""The elements Kilo Code puts after the user's words in the user text it sends (a text
part of its own, ``\n\n<environment_details>...</environment_details>``: the message time
and the working folder); its store keeps the words alone."""


@dataclass(frozen=True)
class ToolPin(_NpmPin):
    """A tool run beside the agents (not an agent: no provider has its id)."""

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


ACP_ADAPTERS: tuple[ToolPin, ...] = (
    ToolPin("codex-acp", "@zed-industries/codex-acp", "0.16.0", "codex-acp"),
)
"""The adapters that put a pinned CLI's agent behind the Agent Client Protocol, driven
through :class:`~lab_widget.AcpAgent` (not providers: no provider has their ids). Each is
installed into the tools folder with the CLIs; its native build comes as the npm package
for the platform (an optional dependency), so nothing is fetched when it starts."""


def install_command() -> str:
    """The command that installs every pinned CLI into the project's tools folder.

    Examples
    --------
    >>> install_command()
    'python -m lab_widget install-clis'
    """
    return "python -m lab_widget install-clis"
