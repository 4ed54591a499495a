"""The backend of a run on this machine: the agent under the lab home's tmux server, read here.

A :class:`LocalBackend` wires a run's parts once the agent is spawned or found (the chat
brain and its tailer, the slash-command catalog, the workspace, the record, the exit watch),
adopts a run an earlier kernel started from its record, and acts on the agent through its
terminal. :class:`~lab_widget.Run` is the façade over it (and over the remote backend).
"""

from __future__ import annotations

import logging
import os
import threading
import time
import warnings
from collections.abc import Callable, Mapping
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any

from .._acp._agent import restore
from .._chat._allow import RUN_APPROVE, RunAllowance
from .._chat._answering import await_recorded, play_answer
from .._chat._answers import UserAnswer
from .._chat._commands import CommandCatalog
from .._chat._session import ChatEvent, ChatSession, Epoch
from .._home import Holder, RunRecord
from .._reading._pricing import enrich_summary
from .._reading._transcripts import read_chat
from .._runtime._tailer import Tailer
from .._runtime._tmux import TmuxTerminal
from .._widgets import offer_login
from .._workspace._git import Workspace
from .._workspace._sandbox import Sandbox
from .._workspace._seed import Seed
from ..errors import (
    AnswerMismatchWarning,
    AuthRequiredError,
    InvalidCwdError,
    ReplyDroppedError,
)
from ..provider import (
    AgentProvider,
    Endpoint,
    RunContext,
    StartupBlocker,
    ToolServer,
    TranscriptRef,
    get_provider,
    require_login,
)
from ..provider.kit import iso_time
from ..schema import Answer, Chat, CommandSpec, Dialog, DialogAnswer, Message, SessionSummary, State
from ._backend import Announce, StartedBy
from ._held_prompt import HeldPrompt
from ._launch import accept_startup, launch, new_run_id

__all__ = ["LocalBackend"]

log = logging.getLogger(__name__)

FIRST_PROMPT_TIMEOUT = 60.0
"""Seconds a CLI has, from its spawn, to confirm the first prompt its command line carried
(its start-up included, as ``send``'s default wait for the TUI)."""
_SCREEN_TAIL_LINES = 12
"""Lines of the screen a dropped message's error shows."""


class LocalBackend:
    """One agent under this machine's tmux server, its transcript read in this process.

    Built by :meth:`start` (a new agent) or :meth:`adopt` (one an earlier kernel started);
    ``announce`` is the façade's, called when the run ends (the façade announces it live once
    it holds the backend, then calls :meth:`begin`).
    """

    host = None
    """Where the agent runs: here."""

    connected = True
    """A local run has no pipe to lose."""

    def __init__(
        self,
        provider: AgentProvider,
        context: RunContext,
        terminal: TmuxTerminal,
        blocker: StartupBlocker | None,
        record: RunRecord,
        announce: Announce,
        *,
        spawned_at: float = 0.0,
        lock: threading.RLock | None = None,
    ) -> None:
        self.provider = provider
        self.context = context
        self.terminal = terminal
        self.record = record
        self.spawned_at = spawned_at
        """``time.monotonic()`` of the spawn (``0.0`` for a re-adopted run)."""
        self.held_prompt: HeldPrompt | None = None
        """A first prompt held until a start-up screen is accepted."""
        self._announce = announce
        self.catalog = CommandCatalog(provider, context.cwd)
        self.workspace = Workspace.from_record(
            record.workspace or {"cwd": str(context.cwd)}, provider.seed_meta()
        )
        self.chat = ChatSession(provider, context, terminal, blocker, lock)
        self.allowance: RunAllowance | None = None
        """The tools of the run's servers approved for the rest of the run (None: none)."""
        self.tailer = Tailer(self.chat.watch_paths, self.chat.refresh).start()
        self.chat.refresh()
        self._first_prompt: Callable[[], None] | None = None
        terminal.on_exit(self._on_exit)

    @classmethod
    def start(
        cls,
        provider_id: str,
        cwd: str | os.PathLike[str],
        announce: Announce,
        *,
        endpoint: Endpoint | None,
        model: str | None,
        name: str | None,
        seed: Seed | None,
        worktree: bool,
        sandbox: bool | Sandbox,
        prompt: str | None,
        options: Mapping[str, Any],
        tool_servers: tuple[ToolServer, ...] = (),
        lock: threading.RLock | None = None,
    ) -> LocalBackend:
        """Spawn a new agent (see :class:`~lab_widget.Run` for the parameters; ``lock``: the
        run's lock when this agent takes over from another, see :meth:`Run.restart`).
        """
        provider = get_provider(provider_id)
        folder = Path(cwd).expanduser().resolve()
        if not folder.is_dir():
            raise InvalidCwdError(f"cwd {folder} is not a folder")
        run_id = new_run_id(provider_id, name)
        if endpoint is None:
            # The user's own credentials: refuse before spawning rather than strand a TUI
            # on its login screen; in a notebook the login card shows above the error.
            try:
                require_login(provider.auth_flow(), provider.meta.display_name)
            except AuthRequiredError:
                offer_login(provider_id)
                raise
        started = launch(
            provider,
            provider_id,
            run_id,
            folder,
            endpoint=endpoint,
            model=model,
            seed=seed,
            worktree=worktree,
            options=options,
            sandbox=Sandbox.of(sandbox),
            prompt=prompt,
            tool_servers=tool_servers,
        )
        backend = cls(
            provider,
            started.context,
            started.terminal,
            started.blocker,
            started.record,
            announce,
            spawned_at=time.monotonic(),
            lock=lock,
        )
        if tool_servers:
            backend.allow_for_run(RunAllowance(tool_servers))
        if started.first_prompt is not None:
            watch = started.first_watch
            backend._first_prompt = lambda: backend.chat.confirm_first_prompt(
                watch, FIRST_PROMPT_TIMEOUT
            )
        elif prompt is not None and started.blocker is not None:
            # Sent once the start-up screen is accepted, here or in the terminal view.
            backend.held_prompt = HeldPrompt(backend.chat, prompt, backend.send)
        elif prompt is not None:
            backend._first_prompt = lambda: backend.send(prompt)
        return backend

    def allow_for_run(self, allowance: RunAllowance) -> None:
        """Offer "Approve for this run" for the tools of the run's servers, and approve the
        later asks of a tool so approved.
        """
        self.allowance = allowance
        self.chat.run_answers = self._answers_itself

    def _answers_itself(self, dialog: Dialog) -> bool:
        """Whether the run answers ``dialog`` itself; the first time it is asked, the answer
        starts. Asked whenever the run's state is, under its lock: so no ask is missed (a
        state read follows every read of the agent), and the answer goes in a thread.
        """
        allowance = self.allowance
        if allowance is None or not allowance.answers(dialog):
            return False
        if allowance.due(dialog):
            threading.Thread(
                target=self._approve_for_run,
                args=(dialog,),
                name=f"lab-widget-allowed-{self.id}",
                daemon=True,
            ).start()
        return True

    def _approve_for_run(self, dialog: Dialog) -> None:
        # Answered as the user's run-wide choice is: the CLI gets its Approve, the chat
        # shows the call approved for this run.
        answer = DialogAnswer(tool_id=dialog.tool_id, answers=[Answer(selected=[RUN_APPROVE])])
        try:
            self.answer(answer, None, FIRST_PROMPT_TIMEOUT)
        except Exception:  # whatever went wrong, the ask must not wait on the run for ever
            log.exception("approving %s for the run failed", dialog.tool_name)
            if self.allowance is not None:
                self.allowance.give_back(dialog)
            self.chat.restate()  # the user's to answer now: the state says question

    def take_workspace(self, earlier: LocalBackend) -> None:
        """Work on as ``earlier`` did, in its workspace: its start commit, worktree, branch
        and seeded files (a restart of the same run, see :meth:`Run.restart`).
        """
        self.workspace = earlier.workspace
        self.record = replace(self.record, workspace=earlier.workspace.to_record())
        self.record.write()

    def held_by(self, holder: Holder) -> None:
        """Record the process the run cannot work without (the one serving its model)."""
        self.record = replace(self.record, holder=holder)
        self.record.write()

    @classmethod
    def adopt(cls, record: RunRecord, terminal: TmuxTerminal, announce: Announce) -> LocalBackend:
        """Follow an agent an earlier kernel started, from the record it left."""
        context = RunContext(run_id=record.run_id, cwd=record.cwd, runtime_dir=record.runtime_dir)
        # An ACP agent was described in its run's folder: a fresh kernel never built it.
        provider = restore(record.runtime_dir) or get_provider(record.provider)
        return cls(provider, context, terminal, None, record, announce)

    def adopted(self, announce: Announce, prompt: str | None) -> LocalBackend:
        """Hand this agent, started ahead as a spare, to a run: ``announce`` is the run's,
        ``prompt`` its first message (typed once the TUI is ready, by :meth:`begin`).
        """
        self._announce = announce
        if prompt is not None:
            self._first_prompt = lambda: self.send(prompt)
        return self

    def begin(self) -> None:
        """Deliver the first prompt, if the run was started with one (and returns once the
        agent has taken it).
        """
        first, self._first_prompt = self._first_prompt, None
        if first is not None:
            first()

    def _on_exit(self) -> None:
        try:
            self.chat.refresh()  # read what the agent wrote last
        except Exception:
            # Whatever the last read met, the agent has gone: the run must say it ended.
            log.exception("reading run %s's last lines failed", self.context.run_id)
        self.chat.mark_ended(self.terminal.exit_screen)
        self.tailer.stop(timeout=0)
        self._announce(False)

    # -- what the run shows ------------------------------------------------------------

    @property
    def lock(self) -> threading.RLock:
        return self.chat.lock

    @property
    def id(self) -> str:
        return self.context.run_id

    @property
    def cwd(self) -> Path:
        return self.context.cwd

    @property
    def state(self) -> State:
        return self.chat.state

    @property
    def messages(self) -> list[Message]:
        return self.chat.messages

    @property
    def session(self) -> SessionSummary:
        summary = self.chat.summary
        requested = self.record.model
        if summary.model_requested is None and requested is not None:
            summary = summary.model_copy(update={"model_requested": requested})
        return enrich_summary(summary)

    @property
    def transcript_id(self) -> str | None:
        return self.chat.transcript_id

    @property
    def transcript_path(self) -> Path | None:
        ref = self.provider.locate_transcript(self.context, None)
        return ref.path if ref else None

    @property
    def needs_input_reason(self) -> str | None:
        return self.chat.needs_input_reason

    @property
    def state_reason(self) -> str:
        return self.chat.state_reason

    @property
    def attach_command(self) -> str:
        return self.terminal.attach_command

    @property
    def memory(self) -> int | None:
        return self.terminal.memory()

    @property
    def started_by(self) -> StartedBy | None:
        owner = self.record.owner
        if owner is None:
            return None
        if not owner.alive():
            return "an ended process"
        return "this process" if owner.pid == os.getpid() else "another process"

    @property
    def started_at(self) -> datetime | None:
        return iso_time(self.record.created)

    @property
    def pane(self) -> TmuxTerminal:
        return self.terminal

    @property
    def commands(self) -> list[CommandSpec]:
        return self.catalog.get() + self.provider.run_commands(self.context)

    @property
    def pending_dialog(self) -> Dialog | None:
        dialog = self.chat.pending_dialog
        if dialog is None or self.allowance is None:
            return dialog
        if self.allowance.answers(dialog):
            return None  # the run answers it itself: nothing for the user to answer
        return self.allowance.offer(dialog)

    @property
    def past_epochs(self) -> list[TranscriptRef]:
        with self.chat.lock:
            return list(self.chat.past_epochs)

    @property
    def past_conversations(self) -> list[Epoch]:
        return self.chat.past

    def history(self) -> list[Chat]:
        return [read_chat(self.provider, ref) for ref in self.past_epochs]

    def screen(self) -> str:
        return self.terminal.capture()

    def subscribe(self, listener: Callable[[ChatEvent], None]) -> Callable[[], None]:
        return self.chat.subscribe(listener)

    def wait_for(self, predicate: Callable[[], bool], timeout: float) -> bool:
        return self.chat.wait_for(predicate, timeout)

    # -- acting ------------------------------------------------------------------------

    def send(self, text: str, ready_timeout: float = 60.0) -> None:
        self.chat.wait_ready(ready_timeout)
        is_command = text.lstrip().startswith("/")
        try:
            self.chat.send(text, counts_as_work=not is_command)
        except ReplyDroppedError as dropped:
            raise ReplyDroppedError(f"{dropped}{self._screen_tail()}") from None

    def _screen_tail(self) -> str:
        # What the TUI shows says why it did not take a message (a picker, a busy turn).
        lines = self.terminal.capture().rstrip().splitlines()
        shown = "\n".join(lines[-_SCREEN_TAIL_LINES:])
        return f"\nIts screen now:\n{shown}" if shown else ""

    def wait(self, timeout: float | None) -> State:
        return self.chat.wait(timeout)

    def answer(self, answers: UserAnswer, feedback: str | None, timeout: float) -> Dialog:
        run_wide = False
        if self.allowance is not None:
            pending = self.chat.pending_dialog
            taken = self.allowance.take(pending, answers) if pending is not None else answers
            run_wide, answers = taken is not answers, taken
        dialog, intended = play_answer(self.chat, self.terminal, answers, self.attach_command)
        if run_wide:
            self.chat.note_chosen(dialog.tool_id, RUN_APPROVE)
        final, warning = await_recorded(self.chat, dialog, intended, timeout)
        if warning is not None:
            warnings.warn(warning, AnswerMismatchWarning, stacklevel=3)
        if feedback and final.status == "rejected":
            self.send(feedback)
        return final

    def interrupt(self) -> None:
        self.chat.interrupt()

    def accept(self, timeout: float) -> None:
        accept_startup(self.chat, self.terminal, self.spawned_at, timeout, self.attach_command)
        if self.held_prompt is not None:
            self.held_prompt.release(FIRST_PROMPT_TIMEOUT)

    def stop(self, cleanup: bool, discard: bool) -> None:
        self.chat.stopped = True
        self.terminal.kill()
        self.chat.wait_for(lambda: self.chat.ended, 5.0)
        self.chat.mark_ended()
        self.tailer.stop()
        self._announce(False)
        if cleanup:
            for note in self.workspace.cleanup(discard=discard):
                warnings.warn(note, UserWarning, stacklevel=3)

    def diff(self) -> str:
        return self.workspace.diff()

    def commit(self, message: str) -> str:
        return self.workspace.commit(message)
