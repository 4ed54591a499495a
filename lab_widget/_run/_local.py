"""A run's parts wired together, and what they hold besides the conversation itself.

:class:`RunParts` is the base of :class:`~lab_widget.Run`: it wires a run's parts once the
agent is spawned or found (the chat brain and its tailer, the slash-command catalog, the
workspace, the record, the exit watch) and adopts a run an earlier kernel started from its
record. It answers what those parts fix for the run's life (its id, provider, folder, lock
and terminal), what its workspace holds, and which conversations came before the current
one; ``Run`` adds the current conversation and acting on it.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any, Self

from .._chat._commands import CommandCatalog
from .._chat._session import ChatSession, Epoch
from .._home import RunRecord
from .._reading._transcripts import read_chat
from .._runtime._tailer import Tailer
from .._runtime._tmux import TmuxTerminal
from .._widgets import RunView
from .._workspace._seed import Workspace
from ..provider import AgentProvider, RunContext, StartupBlocker, TranscriptRef, get_provider
from ..schema import Chat
from ..scripted import ScriptedModel
from ._held_prompt import HeldPrompt

__all__ = ["RunParts"]


class RunParts:
    """The parts of one run and the facts they fix (see :class:`~lab_widget.Run`)."""

    _provider: AgentProvider
    scripted_model: ScriptedModel | None
    """The scripted model this run was started against, if any (started with the run)."""
    _spawned_at: float
    _held_prompt: HeldPrompt | None
    """A first prompt held until a start-up screen is accepted."""
    _context: RunContext
    _commands: CommandCatalog
    _view: RunView | None
    _view_lock: threading.Lock
    _terminal: TmuxTerminal
    _record: RunRecord
    _workspace: Workspace
    _chat: ChatSession
    _tailer: Tailer

    @classmethod
    def _adopt(cls, record: RunRecord, terminal: TmuxTerminal) -> Self:
        run = cls.__new__(cls)
        run._provider = get_provider(record.provider)
        run.scripted_model = None
        context = RunContext(run_id=record.run_id, cwd=record.cwd, runtime_dir=record.runtime_dir)
        run._setup(context, terminal, None, record)
        run._spawned_at = 0.0
        run._held_prompt = None
        return run

    def _setup(
        self,
        context: RunContext,
        terminal: TmuxTerminal,
        blocker: StartupBlocker | None,
        record: RunRecord,
    ) -> None:
        self._context = context
        self._commands = CommandCatalog(self._provider, context.cwd)
        self._view = None
        self._view_lock = threading.Lock()
        self._terminal = terminal
        self._record = record
        self._workspace = Workspace.from_record(
            record.workspace or {"cwd": str(context.cwd)}, self._provider.seed_meta()
        )
        self._chat = ChatSession(self._provider, context, terminal, blocker)
        self._tailer = Tailer(self._chat.watch_paths, self._chat.refresh).start()
        self._chat.refresh()
        terminal.on_exit(self._on_exit)
        self._announce(True)

    def _on_exit(self) -> None:
        self._chat.refresh()  # read what the agent wrote last
        self._chat.mark_ended(self._terminal.exit_screen)
        self._tailer.stop(timeout=0)
        self._announce(False)

    def _announce(self, live: bool) -> None:
        """Tell the registry and the dashboards that the run is live, or no longer."""
        raise NotImplementedError

    # -- what the parts fix ------------------------------------------------------------

    @property
    def lock(self) -> threading.RLock:
        """The lock the run's reading happens under; its events are delivered holding it."""
        return self._chat.lock

    @property
    def id(self) -> str:
        """The run's id (also its tmux session name)."""
        return self._context.run_id

    @property
    def provider(self) -> AgentProvider:
        """The provider behind this run (its ``meta`` names it)."""
        return self._provider

    @property
    def cwd(self) -> Path:
        """The folder the agent works in."""
        return self._context.cwd

    @property
    def display_name(self) -> str:
        """The provider's display name."""
        return self._provider.meta.display_name

    @property
    def clear_command(self) -> str:
        """The provider's command that starts a new conversation."""
        return self._provider.meta.clear_command

    @property
    def transcript_path(self) -> Path | None:
        """The agent's own transcript file for the current epoch."""
        ref = self._provider.locate_transcript(self._context, None)
        return ref.path if ref else None

    @property
    def attach_command(self) -> str:
        """A copyable command that opens the agent's real TUI in a terminal."""
        return self._terminal.attach_command

    @property
    def pane(self) -> TmuxTerminal:
        """The agent's tmux session: what the chat view's terminal pane shows.

        A view of the TUI, never read for state or content.
        """
        return self._terminal

    def __repr__(self) -> str:
        # No ids, paths or addresses: notebooks compare text output across runs.
        return f"Run({self.display_name})"

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(repr(self))

    # -- the workspace -----------------------------------------------------------------

    @property
    def workspace(self) -> Workspace:
        """The run's folder as git sees it: start commit, worktree, branch, seeded files."""
        return self._workspace

    def diff(self) -> str:
        """The workspace's changes since the run started, as a unified diff.

        Untracked files count; excluded (seeded) files do not. Lines matching the
        provider's attribution patterns are scrubbed from added lines.
        """
        return self._workspace.diff()

    def commit(self, message: str) -> str:
        """Commit every change in the workspace; the message is scrubbed of attribution
        lines first. Returns the commit id.
        """
        return self._workspace.commit(message)

    # -- the conversations before this one ----------------------------------------------

    def history(self) -> list[Chat]:
        """The conversations this run had before each clear, oldest first."""
        return [read_chat(self._provider, ref) for ref in self.past_epochs]

    @property
    def past_epochs(self) -> list[TranscriptRef]:
        """The transcripts of the conversations before each clear, oldest first."""
        with self._chat.lock:
            return list(self._chat.past_epochs)

    @property
    def past_conversations(self) -> list[Epoch]:
        """The conversations before each clear as this run read them, oldest first (what the
        chat shows collapsed above the current one); :meth:`history` reads them again.
        """
        return self._chat.past
