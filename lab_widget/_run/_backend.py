"""What :class:`~lab_widget.Run` needs of a backend: where the agent is and how to reach it.

Two backends implement it: :class:`~lab_widget._run._local.LocalBackend` (the agent under
this machine's tmux server, read in this process) and
:class:`~lab_widget._remote._backend.RemoteBackend` (a worker on another host runs it; this
process keeps a mirror). Everything that follows from these members (usage, turns, a
snapshot, DataFrames, the view, export, ``clear``) is the façade's, written once.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Literal, Protocol

from .._chat._answers import UserAnswer
from .._chat._session import ChatEvent, Epoch
from .._remote._transports import Host
from .._runtime._tmux import TmuxTerminal
from .._workspace._git import Workspace
from ..provider import AgentProvider, TranscriptRef
from ..schema import Chat, CommandSpec, Dialog, Message, SessionSummary, State

__all__ = ["Announce", "RunBackend", "StartedBy"]

Announce = Callable[[bool], None]
"""Tells the registry and the dashboards that a run is live (``True``) or no longer; a
backend gets the façade's and calls it when the run ends."""


StartedBy = Literal["this process", "another process", "an ended process"]
"""Who started a run: this kernel (or script), another one still running, or one that has
ended (no kernel holds the run but those that list it)."""


class RunBackend(Protocol):
    """One run's agent, wherever it runs (see :class:`~lab_widget.Run` for each member)."""

    @property
    def host(self) -> Host | None:
        """Where the agent runs (``None``: this machine)."""

    @property
    def connected(self) -> bool: ...

    @property
    def provider(self) -> AgentProvider: ...

    @property
    def id(self) -> str: ...

    @property
    def cwd(self) -> Path: ...

    @property
    def lock(self) -> threading.RLock: ...

    @property
    def state(self) -> State: ...

    @property
    def messages(self) -> list[Message]: ...

    @property
    def session(self) -> SessionSummary:
        """The summary with its costs (priced where the run is read)."""

    @property
    def transcript_id(self) -> str | None: ...

    @property
    def transcript_path(self) -> Path | None: ...

    @property
    def needs_input_reason(self) -> str | None: ...

    @property
    def state_reason(self) -> str: ...

    @property
    def attach_command(self) -> str: ...

    @property
    def memory(self) -> int | None: ...

    @property
    def started_by(self) -> StartedBy | None: ...

    @property
    def started_at(self) -> datetime | None: ...

    @property
    def pane(self) -> TmuxTerminal: ...

    @property
    def commands(self) -> list[CommandSpec]: ...

    @property
    def pending_dialog(self) -> Dialog | None: ...

    @property
    def past_epochs(self) -> list[TranscriptRef]: ...

    @property
    def past_conversations(self) -> list[Epoch]: ...

    @property
    def workspace(self) -> Workspace: ...

    def history(self) -> list[Chat]: ...

    def screen(self) -> str: ...

    def subscribe(self, listener: Callable[[ChatEvent], None]) -> Callable[[], None]: ...

    def wait_for(self, predicate: Callable[[], bool], timeout: float) -> bool: ...

    def send(self, text: str, ready_timeout: float = 60.0) -> None: ...

    def wait(self, timeout: float | None) -> State: ...

    def answer(self, answers: UserAnswer, feedback: str | None, timeout: float) -> Dialog: ...

    def interrupt(self) -> None: ...

    def accept(self, timeout: float) -> None: ...

    def stop(self, cleanup: bool, discard: bool) -> None: ...

    def diff(self) -> str: ...

    def commit(self, message: str) -> str: ...
