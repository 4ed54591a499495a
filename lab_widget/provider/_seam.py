"""The provider seam: what every agent-CLI adapter implements, and nothing provider-shaped.

Contract notes that every adapter honours:

- Read-through. The agent runs its real TUI; the adapter maps the CLI's own transcript
  into :mod:`lab_widget.schema` on read. Nothing is stored by lab_widget.
- Epochs. A transcript's identity (``TranscriptRef.transcript_id``) changes whenever the
  provider clears context; :meth:`AgentProvider.locate_transcript` returns the newest
  epoch and the chat follows it. A provider that clears in place must synthesise a new id.
- Command echoes (``/clear``) are visible user messages and never drive the state to
  ``working``.
- Reply while ``working`` is legal and best effort; an adapter whose TUI drops mid-turn
  input raises :class:`~lab_widget.errors.ReplyDroppedError`.
- Never scrape the screen for state or content: transcripts and verified live signals only.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Literal, Protocol, runtime_checkable

from ..errors import DialogNotAnswerableError
from ..schema import (
    AuthDescriptor,
    AuthStatus,
    CommandSpec,
    Dialog,
    DialogAnswer,
    Message,
    ProviderCapabilities,
    SeedMeta,
    SessionSummary,
    State,
    ToolCall,
)
from ._auth import AuthFlow, DescribedAuthFlow
from ._seam_records import (
    ProviderMeta,
    ReadResult,
    RunContext,
    SandboxPaths,
    SessionStat,
    SpawnPlan,
    SpawnRequest,
    StartupBlocker,
    TranscriptRef,
)

__all__ = [
    "AgentProvider",
    "ApprovalOutcome",
    "LiveSignals",
    "SubmitWatch",
    "Terminal",
    "TranscriptReader",
]


ApprovalOutcome = Literal["approved", "rejected"]
"""How the user answered a permission prompt for a tool call."""


class TranscriptReader(ABC):
    """An incremental reader over one epoch; cost proportional to what was appended."""

    ref: TranscriptRef

    @abstractmethod
    def read(self) -> ReadResult:
        """Read what was appended since the last call."""

    @property
    @abstractmethod
    def messages(self) -> list[Message]:
        """Every message read so far, in seq order."""

    @property
    @abstractmethod
    def state(self) -> State:
        """The state derived from the transcript alone (never ``ended``)."""

    @property
    @abstractmethod
    def summary(self) -> SessionSummary:
        """Session-wide facts read so far."""

    def settled_state(self) -> State:
        """The state of a transcript nobody writes any more (history, a finished session).

        A live reader must not call a turn finished before its records say so (a model may
        pause between blocks); once nobody writes, a turn whose last response answered
        without asking for tools is over. ``working`` here means the file stops mid-turn.
        The default is :attr:`state`.
        """
        return self.state

    @property
    def pending_dialog(self) -> Dialog | None:
        """A dialog the transcript shows as open (asked, not yet answered), if any."""
        return None


class Terminal(Protocol):
    """What the runner lets a provider do to the agent's TUI."""

    def paste(self, text: str) -> None:
        """Deliver text literally (nothing in it is interpreted as a key)."""

    def keys(self, *keys: str) -> None:
        """Press named keys (``"Enter"``, ``"Escape"``, ``"C-c"``...)."""

    def paste_keys(self, text: str, *keys: str) -> None:
        """Paste ``text``, then press ``keys``, as one delivery."""

    def type_text(self, text: str) -> None:
        """Type one line of text key by key (for a field inside a picker; never a paste)."""

    def alive(self) -> bool:
        """Whether the agent's process still runs."""


class SubmitWatch(Protocol):
    """Whether a prompt submitted after the watch began was confirmed by the CLI."""

    def wait(self, timeout: float) -> bool:
        """Block until the confirmation is there (True) or ``timeout`` seconds pass."""
        ...

    def close(self) -> None:
        """Release what the watch holds."""
        ...


@runtime_checkable
class LiveSignals(Protocol):
    """Optional capability: a structured live channel beside the transcript.

    Providers without a verified channel omit it; their residual blocked states show as
    ``needs_input`` with the attach command.
    """

    def pending_dialog(self, context: RunContext) -> Dialog | None:
        """The dialog the agent waits on now, if the channel reports one."""

    def blocked(self, context: RunContext) -> str | None:
        """A reason the agent is blocked without a structured dialog, if any."""

    def signature(self, context: RunContext) -> object:
        """A cheap value that changes whenever the channel's content changes."""

    def sweep(self, context: RunContext) -> None:
        """Drop signals the transcript shows are resolved or stale."""

    def snapshot(self, context: RunContext) -> AbstractContextManager[None]:
        """A span within which this thread's questions to the channel share one look.

        A refresh asks the channel several times (state before and after, signature);
        a channel that costs a request per look (a server) answers them all from one.
        """
        return nullcontext()


class AgentProvider(ABC):
    """One agent CLI behind the seam."""

    meta: ProviderMeta
    live_signals: LiveSignals | None = None
    startup_settle: float = 0.0
    """Seconds after spawn before a start-up screen can take keys."""
    clear_grace: float = 30.0
    """Seconds after which a clear command whose effect never showed stops counting as
    work (see :meth:`clear_opens_epoch`)."""

    @abstractmethod
    def plan_spawn(self, request: SpawnRequest) -> SpawnPlan:
        """Prepare the run's files (an isolated config home, settings) and say how to start."""

    @abstractmethod
    def locate_transcript(
        self, context: RunContext, current: TranscriptRef | None
    ) -> TranscriptRef | None:
        """The newest epoch of this run's conversation (``None`` before it exists)."""

    @abstractmethod
    def open_reader(self, ref: TranscriptRef) -> TranscriptReader:
        """A fresh incremental reader positioned at the start of ``ref``."""

    def sessions(self, cwd: Path) -> list[TranscriptRef]:
        """Optional: the transcripts of past sessions run in ``cwd``, in any order.

        Providers that cannot list past sessions keep the default (none).
        """
        return []

    def run_sessions(self, context: RunContext) -> list[TranscriptRef]:
        """Optional: the transcripts a lab_widget run kept in its own isolated config home.

        Runs on a scripted model or an endpoint keep their sessions outside the user's
        config; :func:`lab_widget.history` lists them through this. Runs that used the
        user's own config return none here (:meth:`sessions` lists those).
        """
        return []

    def usage_summary(self, ref: TranscriptRef) -> SessionSummary:
        """The session's tokens (``usage``, ``models``), as its reader totals them.

        The default reads the transcript whole; a provider whose files let it count the
        responses without building messages overrides it with that cheaper scan (history
        and summaries over many sessions call this once per session).
        """
        reader = self.open_reader(ref)
        reader.read()
        return reader.summary

    def usage_summaries(self, refs: Sequence[TranscriptRef]) -> list[SessionSummary]:
        """The usage-only summaries of many sessions (a listing's), in the order of ``refs``.

        The default takes :meth:`usage_summary` of each; a provider whose sessions share a
        file (a database) overrides it to read them together, with the same results.
        """
        return [self.usage_summary(ref) for ref in refs]

    def preview(self, ref: TranscriptRef) -> tuple[str | None, str | None]:
        """Optional: ``(first prompt, model)`` of a transcript, read cheaply.

        Implementations read a bounded prefix of the transcript and stop as soon as both
        are found; either may be ``None``.
        """
        return None, None

    def previews(self, refs: Sequence[TranscriptRef]) -> list[tuple[str | None, str | None]]:
        """:meth:`preview` of many transcripts (a listing's), in the order of ``refs``.

        The default takes each one's; a provider whose sessions share a file (a database)
        overrides it to read them together, with the same results.
        """
        return [self.preview(ref) for ref in refs]

    def session_stats(self, refs: Sequence[TranscriptRef]) -> list[SessionStat | None]:
        """When each session of a listing last changed and the bytes it takes, in the order
        of ``refs`` (``None``: gone since it was listed).

        The default is each transcript file's own; a provider whose sessions share a file
        (a database) overrides it with each session's.
        """
        return [SessionStat.of_file(ref.path) for ref in refs]

    def watch_paths(self, context: RunContext) -> list[Path]:
        """Folders whose changes may mean a new epoch or a new signal."""
        return [context.runtime_dir]

    def live_session(self, context: RunContext, summary: SessionSummary) -> SessionSummary:
        """Optional: ``summary`` (the transcript's) with what the CLI reports live beside
        its transcript for that epoch: its own running cost, quotas, context window.

        Called whenever a run's session is asked for, so it reads only what its channel
        gained since the last call. The default adds nothing.
        """
        return summary

    def sandbox_paths(self, request: SpawnRequest) -> SandboxPaths:
        """Optional: what the CLI must see beyond the working folder, the run folder and
        its own installation when the run is sandboxed (``Run(..., sandbox=True)``).

        Runs on a scripted model or an endpoint keep everything in the run folder (an
        isolated config home), so the default names nothing; a provider whose CLI keeps
        the user's login in its home names those paths here for sandboxed runs on the
        user's own setup.
        """
        return SandboxPaths()

    def is_ready(self, context: RunContext) -> bool:
        """Whether the TUI takes input now (from a structured signal)."""
        return True

    def clear_opens_epoch(self, context: RunContext) -> bool:
        """Whether the clear command (``meta.clear_command``) records its effect at once:
        a new epoch (:meth:`locate_transcript` names it) whose reader shows the command's
        echo, before any next prompt.

        The chat counts a clear as work until then (for :attr:`clear_grace` seconds at
        most). ``False`` where this CLI records the new conversation only with its first
        message: the clear is settled once it is submitted, and the new epoch, echo first,
        shows with that message. The default is ``True``.
        """
        return True

    def startup_blocker(self, request: SpawnRequest) -> StartupBlocker | None:
        """What the agent will ask before it takes input, judged from its config."""
        return None

    def accept_startup(self, terminal: Terminal, blocker: StartupBlocker) -> None:
        """Accept what :meth:`startup_blocker` reported, in the live TUI."""
        raise NotImplementedError

    @abstractmethod
    def reply(self, terminal: Terminal, text: str) -> None:
        """Type a user message (or slash command) and submit it."""

    def submit(self, context: RunContext, terminal: Terminal, text: str) -> bool | None:
        """Type a user message into an idle agent and submit it, confirmed by the CLI.

        True once the CLI's own structured record says the prompt was submitted; False when
        it never said so (the chat raises :class:`~lab_widget.errors.ReplyDroppedError`);
        ``None`` when this CLI, or this kind of input (a slash command), has no such record
        and :meth:`reply` played its paced recipe. The default is the last.
        """
        self.reply(terminal, text)
        return None

    def initial_prompt_args(self, text: str) -> list[str] | None:
        """The words appended to the spawn's command line that give the CLI ``text`` as its
        first prompt, submitted by the CLI itself once it is up; ``None`` when it cannot
        carry this text (no such argument, too long, a slash command), which is then
        submitted once the TUI is ready. The default is the last.
        """
        return None

    def initial_prompt_watch(self, context: RunContext, text: str) -> SubmitWatch | None:
        """What confirms that the first prompt given on the command line was submitted,
        begun before the spawn; ``None``: its user message read from the transcript does.
        """
        return None

    @abstractmethod
    def interrupt(self, terminal: Terminal) -> None:
        """Stop the current turn without quitting the agent."""

    def discard_restored_input(self, terminal: Terminal) -> None:
        """Empty the prompt box after an interrupt that put the prompt back into it.

        Called before the next reply when the transcript shows the interrupted turn never
        answered; the default does nothing (the TUI keeps no such text).
        """
        return

    def answer(
        self, context: RunContext, terminal: Terminal, dialog: Dialog, answer: DialogAnswer
    ) -> None:
        """Answer ``dialog`` in the live agent: the keystrokes of a pinned recipe, or the
        agent's own structured channel where its pinned version offers one.
        """
        raise DialogNotAnswerableError(
            f"{self.meta.display_name} dialogs cannot be answered from lab_widget yet; "
            "answer it in the terminal (see the run's attach command)"
        )

    def approval_outcome(self, tool: ToolCall) -> ApprovalOutcome:
        """How a call that stopped at a permission prompt was answered, read from how it ended.

        Asked once the call is no longer ``running``. The default takes a failed call for a
        rejected one; a provider whose transcript tells a declined call from one that failed
        after approval says so here.
        """
        return "rejected" if tool.status == "error" else "approved"

    @abstractmethod
    def commands(self, cwd: Path) -> list[CommandSpec]:
        """The slash commands a run in ``cwd`` offers."""

    def run_commands(self, context: RunContext) -> list[CommandSpec]:
        """Optional: the commands a live run announces itself (an agent that sends its
        catalog over a protocol), beside :meth:`commands`. The default is none.
        """
        return []

    def command_sources(self, cwd: Path) -> list[Path]:
        """Folders whose files define commands; a change there invalidates a run's catalog.

        Folders that do not exist yet belong here too: creating one is a change.
        """
        return []

    @abstractmethod
    def auth(self) -> AuthDescriptor:
        """How this provider logs in."""

    @abstractmethod
    def auth_status(self) -> AuthStatus:
        """Whether the user's own environment is logged in."""

    def auth_flow(self) -> AuthFlow:
        """Status, login, code, key and logout for this provider.

        The default reports :meth:`auth_status` and, when :meth:`auth` lists an
        ``api-key`` method, keeps a key in memory for spawns; providers that can drive
        their CLI's own login override it.
        """
        return DescribedAuthFlow(self.meta.id, self.auth(), self.auth_status)

    def health_note(self) -> str:
        """Optional: what a user must know about the provider's service beside its CLI's
        health (a login kind the vendor stopped serving); shown by ``providers()``.
        """
        return ""

    def capabilities(self) -> ProviderCapabilities:
        """What this provider can do; the default claims only what the seam shows."""
        return ProviderCapabilities(live_signals=self.live_signals is not None)

    @abstractmethod
    def seed_meta(self) -> SeedMeta:
        """What the generic workspace seeder needs to know."""
