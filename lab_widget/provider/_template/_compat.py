"""Every coupling to the new CLI's private behaviour, each with the evidence it was verified
by (the template's values are placeholders: none of them is verified).

Once the CLI has its pin in ``lab_widget/compat.py``, ``VERSION`` becomes
``kit.pinned("<id>", "<exact version>")`` and every record's evidence names the live test,
fixture or extraction that shows it holds for that version (``tests/unit/test_couplings.py``
checks both, and that each record is listed on ``docs/compat/<id>.md``).
"""

from __future__ import annotations

from .. import kit

VERSION = "0.0.0"
"""The CLI version the couplings below were verified against."""

_UNVERIFIED = kit.Evidence(VERSION, "unverified: a placeholder of the provider template")

PASTE = kit.PasteTiming(submit_delay=0.25, evidence=_UNVERIFIED)
"""How a reply reaches the prompt box: measure how long the TUI takes to apply a paste
before Enter submits it (a live test whose replies all land)."""

INTERRUPT = kit.KeyRecipe(keys=("Escape",), evidence=_UNVERIFIED)
"""The keys that stop a turn without quitting the TUI."""

APPROVAL: kit.ApprovalKeys | None = None
"""The keys that answer a permission prompt, once a live test plays them."""

STARTUP: kit.StartupScreens | None = None
"""The start-up screens (folder trust, a key's approval) and the keys that accept each."""

RESTORED_INPUT: kit.KeyRecipe | None = None
"""What empties the prompt box when an interrupt puts the prompt back into it."""

INITIAL_PROMPT: kit.InitialPrompt | None = None
"""How the CLI takes a first prompt on its command line (``claude "..."``), once a live test
shows it submitted exactly once; ``None``: the first prompt is pasted once the TUI is ready."""

SHELL_TOOLS = kit.ShellTools(fields={}, evidence=_UNVERIFIED)
"""The CLI's shell tools and the input field with their command line (``{"bash":
"command"}``): the reader sets ``ToolCall.shell`` with :meth:`~kit.ShellTools.line`, so the
chat shows its shell calls as every agent's."""

READY = kit.ReadySignal(
    signal="a structured signal the TUI gives", settle=1.0, evidence=_UNVERIFIED
)
"""What says the TUI takes input (a hook record, a marker file, a log line), and how long
after it a reply is sent."""

SEED = kit.SeedLayout(
    context_file="AGENTS.md",
    skills_dir=".agents/skills",
    exclude=("/AGENTS.md", "/.agents/skills/"),
    evidence=_UNVERIFIED,
)
"""Where the CLI reads a seeded workspace's instructions and skills."""

CLEAR_COMMAND = "/clear"
"""The builtin that starts a new conversation (``role="clear"``)."""


def todo(where: str, what: str) -> NotImplementedError:
    """The error a piece of the template raises until it is written: where, and what (the
    template's own; a provider copied from it has none left).
    """
    return NotImplementedError(
        f"fill in lab_widget/provider/_template/{where}: {what} (docs/adding-a-provider.md)"
    )
