"""What a run on another host shows: the read side of the :class:`~lab_widget.Run` surface.

:class:`MirroredRun` answers every property from the run's :class:`~._mirror.Mirror` (no
round trip), and the few reads the mirror does not keep (earlier conversations read again,
the screen, the workspace's changes) with a request to the worker. Building, following and
acting are :class:`~lab_widget._remote._proxy.RemoteRun`'s.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from .._chat import ChatEvent, Epoch
from .._run import Run
from .._runner import TmuxTerminal
from .._seed import Workspace
from .._turns import derive_turns
from ..errors import ConnectionLostError, RemoteError, WorkspaceError
from ..provider import AgentProvider, TranscriptRef
from ..schema import Chat, CommandSpec, Dialog, Message, SessionSummary, State
from ._connection import Connection
from ._mirror import Mirror
from ._pane import RemoteTerminal
from ._protocol import strings
from ._transports import Host

__all__ = ["MirroredRun", "RemoteWorkspace"]


class RemoteWorkspace(Workspace):
    """A remote run's workspace as its record describes it; git runs on the host."""

    _run: MirroredRun

    def diff(self) -> str:
        """The workspace's changes since the run started (see :meth:`Run.diff`)."""
        return self._run.diff()

    def commit(self, message: str) -> str:
        """Commit every change on the host (see :meth:`Run.commit`)."""
        return self._run.commit(message)

    def changes(self) -> list[str]:
        """``git status --porcelain`` lines of the workspace on the host."""
        return list(strings(self._run._request("changes", retry=True)))

    def cleanup(self, *, discard: bool = False) -> list[str]:
        """Refused: a remote workspace is cleaned up with ``run.stop(cleanup=True)``."""
        raise WorkspaceError("clean up a workspace on another host with run.stop(cleanup=True)")


class MirroredRun(Run):
    """The read side of a run on another host, over its mirror (see the module's doc)."""

    _host: Host
    _provider: AgentProvider
    _mirror: Mirror
    _run_id: str
    _connection: Connection | None
    _remote_cwd: Path
    _record_json: dict[str, Any]
    _host_attach: str
    _pane: RemoteTerminal | None

    def _request(
        self,
        op: str,
        args: Mapping[str, Any] | Callable[[float | None], Mapping[str, Any]] | None = None,
        *,
        timeout: float | None = 60.0,
        retry: bool = False,
    ) -> Any:
        connection = self._connection
        if connection is None:
            raise ConnectionLostError("this run is not connected to its host")
        return connection.request(op, self.id, args, timeout=timeout, retry=retry)

    @property
    def host(self) -> Host:
        """Where the agent runs."""
        return self._host

    @property
    def connected(self) -> bool:
        """Whether the pipe to the host's worker is up now (it reconnects by itself)."""
        return self._connection is not None and self._connection.connected

    @property
    def lock(self) -> threading.RLock:
        """The lock the mirror is updated under; events are delivered holding it."""
        return self._mirror.lock

    @property
    def id(self) -> str:
        """The run's id (its tmux session name on the host)."""
        return self._run_id

    @property
    def cwd(self) -> Path:
        """The folder the agent works in, on the host."""
        return self._remote_cwd

    @property
    def state(self) -> State:
        """``idle | working | needs_input | question | ended``, as the worker last said."""
        return self._mirror.state

    @property
    def messages(self) -> list[Message]:
        """The current conversation, oldest first."""
        return self._mirror.messages

    @property
    def session(self) -> SessionSummary:
        """The session summary as the worker computed it (costs included)."""
        return self._mirror.summary

    @property
    def turns(self) -> list[Any]:
        """The current conversation's turns (see :attr:`Run.turns`)."""
        mirror = self._mirror
        with mirror.lock:
            return derive_turns(mirror.messages, mirror.summary, mirror.state)

    @property
    def transcript_id(self) -> str | None:
        """The id of the current epoch."""
        return self._mirror.transcript_id

    @property
    def transcript_path(self) -> Path | None:
        """The agent's transcript file on the host."""
        path = self._mirror.fact("transcript_path")
        return Path(path) if path else None

    @property
    def attach_command(self) -> str:
        """A command that opens the agent's TUI on the host from a terminal here."""
        return self._host.attach(self._host_attach) if self._host_attach else ""

    @property
    def needs_input_reason(self) -> str | None:
        """Why the run is ``needs_input``, when it is."""
        return self._mirror.fact("needs_input_reason")

    @property
    def state_reason(self) -> str:
        """Why the run needs input or has ended; empty otherwise."""
        return self._mirror.fact("state_reason") or ""

    @property
    def pane(self) -> TmuxTerminal:
        """The agent's tmux session on the host, as the chat view's terminal pane shows it
        (its control-mode client runs there, through the transport).
        """
        if self._pane is None:
            raise RemoteError("this run has not heard from its host yet")
        return self._pane

    @property
    def commands(self) -> list[CommandSpec]:
        """The slash commands the run offers (as of its last idle moment)."""
        return list(self._mirror.commands)

    @property
    def past_epochs(self) -> list[TranscriptRef]:
        """The transcripts (on the host) of the conversations before each clear."""
        with self._mirror.lock:
            return list(self._mirror.past_refs)

    @property
    def past_conversations(self) -> list[Epoch]:
        """The conversations before each clear, as this kernel saw them."""
        with self._mirror.lock:
            return list(self._mirror.past)

    @property
    def pending_dialog(self) -> Dialog | None:
        """The dialog the agent waits on, if any."""
        return self._mirror.dialog

    @property
    def workspace(self) -> Workspace:
        """The run's workspace as its record on the host describes it; ``diff`` and
        ``commit`` run there.
        """
        record = self._record_json.get("workspace") or {"cwd": str(self._remote_cwd)}
        base = Workspace.from_record(record, self._provider.seed_meta())
        workspace = RemoteWorkspace(**{k: getattr(base, k) for k in base.__dataclass_fields__})
        workspace._run = self
        return workspace

    def history(self) -> list[Chat]:
        """The conversations before each clear, read again on the host."""
        value = self._request("history", retry=True)
        return [Chat.model_validate(c) for c in value or []]

    def chat(self) -> Chat:
        """A snapshot: messages, state, session summary and turns."""
        mirror = self._mirror
        with mirror.lock:
            messages, state, session = mirror.messages, mirror.state, mirror.summary
        return Chat(
            messages=messages,
            state=state,
            session=session,
            turns=derive_turns(messages, session, state),
        )

    def screen(self) -> str:
        """The TUI's visible screen on the host, for diagnostics."""
        return str(self._request("screen", retry=True))

    def subscribe(self, listener: Callable[[ChatEvent], None]) -> Callable[[], None]:
        """Call ``listener`` with every change; returns an unsubscribe function."""
        return self._mirror.subscribe(listener)

    def wait_for(self, predicate: Callable[[Run], bool], timeout: float = 60.0) -> bool:
        """Block until ``predicate(run)`` holds (re-checked on every event)."""
        return self._mirror.wait_for(lambda: predicate(self), timeout)
