"""The base of every provider that drives its CLI's real TUI by keys, from its compat records.

What differs between CLIs here is data, pinned in the provider's ``_compat.py`` as
:mod:`._couplings` records under fixed names (:class:`TuiCouplings`): how a message is pasted
and submitted, which keys interrupt, which key answers each permission-prompt choice, which
screens a start-up may show, what empties a prompt an interrupt put back, and where a seed
goes. :class:`TuiProvider` plays them; a provider overrides only what its CLI does
differently (a picker of its own after a command, a reply that must check its turn started).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol

from ..schema import CommandSpec, Dialog, DialogAnswer, ProviderCapabilities, SeedMeta, ToolCall
from ._couplings import (
    ApprovalKeys,
    InitialPrompt,
    KeyRecipe,
    PasteTiming,
    SeedLayout,
    StartupScreens,
)
from ._dialogs import approval_said_in_result
from ._seam import AgentProvider, ApprovalOutcome, Terminal
from ._seam_records import RunContext, StartupBlocker, TranscriptRef
from ._submit import SubmitWatch

__all__ = ["CommandScan", "TuiCouplings", "TuiProvider"]


class TuiCouplings(Protocol):
    """The records a TUI provider's ``_compat`` module pins, by name (``None``: the CLI has no
    such coupling, or the provider plays it its own way).
    """

    # Named as the module's constants are: these are read off a provider's ``_compat``.
    @property
    def PASTE(self) -> PasteTiming:  # noqa: N802
        """How a reply reaches the prompt box and is submitted."""
        ...

    @property
    def INTERRUPT(self) -> KeyRecipe:  # noqa: N802
        """What stops the current turn without quitting the agent."""
        ...

    @property
    def APPROVAL(self) -> ApprovalKeys | None:  # noqa: N802
        """The keys that answer a permission prompt."""
        ...

    @property
    def STARTUP(self) -> StartupScreens | None:  # noqa: N802
        """The start-up screens the TUI may show and how each is accepted."""
        ...

    @property
    def RESTORED_INPUT(self) -> KeyRecipe | None:  # noqa: N802
        """What empties the prompt box an interrupt put the prompt back into."""
        ...

    @property
    def INITIAL_PROMPT(self) -> InitialPrompt | None:  # noqa: N802
        """How the CLI takes a first prompt on its command line."""
        ...

    @property
    def SEED(self) -> SeedLayout:  # noqa: N802
        """Where the CLI reads a seeded workspace's instructions and skills."""
        ...


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

    couplings: TuiCouplings
    """The provider's ``_compat`` module."""
    commands_from: CommandScan
    """The provider's ``_commands`` module."""
    rejected_marker: str = "rejected"
    """A word of a declined call's error output (the CLI's, or the reader's mark)."""
    declared = ProviderCapabilities()
    """What the provider can do (``live_signals`` is whether it has :attr:`live_signals`)."""

    def __init__(self) -> None:
        # Epochs the clear command opened (not a run's first), by transcript id: where the
        # CLI records the command nowhere, that epoch's reader opens with its echo.
        self._after_clear: set[str] = set()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        couplings = cls.__dict__.get("couplings")
        startup = getattr(couplings, "STARTUP", None)
        if isinstance(startup, StartupScreens):
            cls.startup_settle = startup.settle

    # -- epochs ------------------------------------------------------------------------

    def opened_by_clear(self, transcript_id: str) -> None:
        """Note that the clear command opened the epoch ``transcript_id``."""
        self._after_clear.add(transcript_id)

    def clear_echo(self, ref: TranscriptRef) -> str | None:
        """The clear command, for the reader of an epoch it opened (``None`` otherwise)."""
        return self.meta.clear_command if ref.transcript_id in self._after_clear else None

    # -- input -------------------------------------------------------------------------

    def reply(self, terminal: Terminal, text: str) -> None:
        self.couplings.PASTE.submit(terminal, text)

    def submit_watch(self, context: RunContext, text: str) -> SubmitWatch | None:
        """What confirms that ``text`` was submitted, begun before it is pasted (``None``:
        nothing does, and :meth:`reply` paces it). A slash command never gets one: a CLI
        records a builtin command its own way, if at all.
        """
        return None

    def submit(self, context: RunContext, terminal: Terminal, text: str) -> bool | None:
        paste = self.couplings.PASTE
        watch = None
        if paste.confirm_waits and not text.lstrip().startswith("/"):
            watch = self.submit_watch(context, text)
        if watch is None:
            self.reply(terminal, text)
            return None
        try:
            return paste.submit_confirmed(terminal, text, watch)
        finally:
            watch.close()

    def initial_prompt_args(self, text: str) -> list[str] | None:
        initial = self.couplings.INITIAL_PROMPT
        if initial is None or not initial.carries(text):
            return None
        return initial.args(text)

    def initial_prompt_watch(self, context: RunContext, text: str) -> SubmitWatch | None:
        """The watch a send's submit is confirmed by (:meth:`submit_watch`), begun before
        the spawn; none for a slash command, which no prompt hook confirms (as in
        :meth:`submit`).
        """
        if text.lstrip().startswith("/"):
            return None
        return self.submit_watch(context, text)

    def interrupt(self, terminal: Terminal) -> None:
        self.couplings.INTERRUPT.play(terminal)

    def discard_restored_input(self, terminal: Terminal) -> None:
        restored = self.couplings.RESTORED_INPUT
        if restored is not None:
            restored.play(terminal)

    def accept_startup(self, terminal: Terminal, blocker: StartupBlocker) -> None:
        startup = self.couplings.STARTUP
        if startup is None:
            super().accept_startup(terminal, blocker)
            return
        startup.accept(terminal, blocker.steps)

    def answer(
        self, context: RunContext, terminal: Terminal, dialog: Dialog, answer: DialogAnswer
    ) -> None:
        approval = self.couplings.APPROVAL
        if approval is None:
            super().answer(context, terminal, dialog, answer)
            return
        approval.play(terminal, dialog, answer)

    def approval_outcome(self, tool: ToolCall) -> ApprovalOutcome:
        """A declined call's error output says so (:attr:`rejected_marker`)."""
        return approval_said_in_result(tool, self.rejected_marker)

    def capabilities(self) -> ProviderCapabilities:
        live = self.live_signals is not None
        return self.declared.model_copy(update={"live_signals": live}, deep=True)

    # -- catalog, seeding --------------------------------------------------------------

    def commands(self, cwd: Path) -> list[CommandSpec]:
        return self.commands_from.catalog(cwd)

    def command_sources(self, cwd: Path) -> list[Path]:
        return self.commands_from.command_sources(cwd)

    def seed_meta(self) -> SeedMeta:
        return self.couplings.SEED.meta()
