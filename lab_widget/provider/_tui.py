"""The base of every provider that drives its CLI's real TUI by keys, from its compat records.

What differs between CLIs here is data, pinned in the provider's ``_compat.py`` as
:mod:`._couplings` records: how a message is pasted and submitted, which keys interrupt,
which key answers each permission-prompt choice, which screens a start-up may show, and what
empties a prompt an interrupt put back. :class:`TuiProvider` plays them; a provider
overrides only what its CLI does differently (a picker of its own after a command, a reply
that must check its turn started).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol

from ..schema import CommandSpec, Dialog, DialogAnswer, SeedMeta, ToolCall
from ._couplings import ApprovalKeys, KeyRecipe, PasteTiming, SeedLayout, StartupScreens
from ._dialogs import approval_said_in_result
from ._seam import AgentProvider, ApprovalOutcome, RunContext, StartupBlocker, Terminal

__all__ = ["CommandScan", "TuiProvider"]


class CommandScan(Protocol):
    """Where a provider's slash commands come from: its ``_commands`` module."""

    def catalog(self, cwd: Path) -> list[CommandSpec]:
        """Every command a run in ``cwd`` offers."""
        ...

    def command_sources(self, cwd: Path) -> list[Path]:
        """The folders whose files define commands."""
        ...


class TuiProvider(AgentProvider):
    """An agent CLI driven through its TUI, by the compat records its subclass names.

    Examples
    --------
    >>> from lab_widget.provider import get_provider
    >>> isinstance(get_provider("claude-code"), TuiProvider)
    True
    """

    paste: PasteTiming
    """How a reply reaches the prompt box and is submitted."""
    interrupt_keys: KeyRecipe
    """What stops the current turn without quitting the agent."""
    approval: ApprovalKeys | None = None
    """The keys that answer a permission prompt (``None``: the chat answers none)."""
    startup: StartupScreens | None = None
    """The start-up screens the TUI may show and how each is accepted."""
    restored_input: KeyRecipe | None = None
    """What empties the prompt box an interrupt put the prompt back into (``None``: the TUI
    keeps no such text)."""
    rejected_marker: str = "rejected"
    """A word of a declined call's error output (the CLI's, or the reader's mark)."""
    seed: SeedLayout
    """Where the CLI reads a seeded workspace's instructions and skills."""
    commands_from: CommandScan
    """The provider's ``_commands`` module."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        startup = cls.__dict__.get("startup")
        if isinstance(startup, StartupScreens):
            cls.startup_settle = startup.settle

    # -- input -------------------------------------------------------------------------

    def reply(self, terminal: Terminal, text: str) -> None:
        self.paste.submit(terminal, text)

    def interrupt(self, terminal: Terminal) -> None:
        self.interrupt_keys.play(terminal)

    def discard_restored_input(self, terminal: Terminal) -> None:
        if self.restored_input is not None:
            self.restored_input.play(terminal)

    def accept_startup(self, terminal: Terminal, blocker: StartupBlocker) -> None:
        if self.startup is None:
            super().accept_startup(terminal, blocker)
            return
        self.startup.accept(terminal, blocker.steps)

    def answer(
        self, context: RunContext, terminal: Terminal, dialog: Dialog, answer: DialogAnswer
    ) -> None:
        if self.approval is None:
            super().answer(context, terminal, dialog, answer)
            return
        self.approval.play(terminal, dialog, answer)

    def approval_outcome(self, tool: ToolCall) -> ApprovalOutcome:
        """A declined call's error output says so (:attr:`rejected_marker`)."""
        return approval_said_in_result(tool, self.rejected_marker)

    # -- catalog, seeding --------------------------------------------------------------

    def commands(self, cwd: Path) -> list[CommandSpec]:
        return self.commands_from.catalog(cwd)

    def command_sources(self, cwd: Path) -> list[Path]:
        return self.commands_from.command_sources(cwd)

    def seed_meta(self) -> SeedMeta:
        return self.seed.meta()
