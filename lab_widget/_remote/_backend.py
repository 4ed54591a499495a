"""The backend of a run on another host: its agent, tmux session, reader and tailer live in a
worker there.

:class:`~lab_widget.Run` picks it for ``Run(..., host=...)``. What it shows comes from a
mirror of the worker's run (:mod:`~lab_widget._remote._mirror`), updated by the worker's
events in pipe order, so reading it costs no round trip and the chat view, the runs dashboard
and the magics work on it unchanged. It builds the run on the host (start or adopt), follows
the worker (its snapshots and events, re-adoption after a reconnect) and acts: send, wait,
answer, clear, interrupt, stop, diff, commit are requests to the worker; the few reads the
mirror does not keep (earlier conversations read again, the screen, the workspace's changes)
are requests too.

A scripted model stays in this kernel: the worker listens on the host's loopback and the
agent's requests reach the model through the pipe (:mod:`lab_widget._remote._forward`).
"""

from __future__ import annotations

import logging
import os
import threading
import time
import uuid
import weakref
from collections.abc import Callable, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit

import orjson

from .._chat._answers import UserAnswer
from .._chat._session import ChatEvent, Epoch
from .._run._backend import Announce, StartedBy
from .._run._launch import _safe_name
from .._runtime._tmux import TmuxTerminal
from .._workspace._git import Workspace
from .._workspace._sandbox import Sandbox
from .._workspace._seed import Seed
from ..errors import (
    ConnectionLostError,
    LabWidgetError,
    RemoteError,
    RemoteOptionsError,
    RunNotFoundError,
    WorkspaceError,
)
from ..provider import AgentProvider, Endpoint, TranscriptRef, get_provider
from ..provider.kit import iso_time
from ..schema import Chat, CommandSpec, Dialog, Message, SessionSummary, State
from ..scripted import ScriptedModel
from ._connection import Connection, connect
from ._forward import KERNEL_PORTS, KERNEL_PREFIX
from ._mirror import Mirror
from ._pane import HostTmux, RemoteTerminal
from ._protocol import encode_answer, strings
from ._transports import Host, parse_host

__all__ = ["RemoteBackend", "RemoteWorkspace"]

log = logging.getLogger(__name__)

START_TIMEOUT = 180.0
"""Seconds a run's start may take on the host (preparing a worktree, spawning the CLI)."""

SLACK = 30.0
"""Seconds a request may take beyond the time the worker was asked to wait."""


T = TypeVar("T")


class RemoteWorkspace(Workspace):
    """A remote run's workspace as its record describes it; git runs on the host."""

    _backend: RemoteBackend

    def diff(self) -> str:
        """The workspace's changes since the run started (see :meth:`Run.diff`)."""
        return self._backend.diff()

    def commit(self, message: str) -> str:
        """Commit every change on the host (see :meth:`Run.commit`)."""
        return self._backend.commit(message)

    def changes(self) -> list[str]:
        """``git status --porcelain`` lines of the workspace on the host."""
        return list(strings(self._backend.request("changes", retry=True)))

    def cleanup(self, *, discard: bool = False) -> list[str]:
        """Refused: a remote workspace is cleaned up with ``run.stop(cleanup=True)``."""
        raise WorkspaceError("clean up a workspace on another host with run.stop(cleanup=True)")


class RemoteBackend:
    """A run on another host, over its mirror (see the module's doc).

    Paths (``cwd``, ``transcript_path``, ``past_epochs``) are paths on the host. It is the
    :class:`~lab_widget._remote._connection.Sink` its connection routes the run's events to.
    """

    def __init__(self, host: Host, provider_id: str, announce: Announce) -> None:
        self.host = host
        self.provider: AgentProvider = get_provider(provider_id)
        self.scripted_model: ScriptedModel | None = None
        self.mirror = Mirror()
        self.connection: Connection | None = None
        self._announce = announce
        self._remote_cwd = Path()
        self._record_json: dict[str, Any] = {}
        self._host_attach = ""
        self._pane: RemoteTerminal | None = None
        self._forward_port: int | None = None
        self._kernel: Mapping[str, Any] | None = None
        """This kernel's connection (its ports and key), for a run given its tools."""
        self._kernel_ports: dict[str, int] = {}
        """The host's loopback ports the agent's tools reach those on (kept across a
        reconnect, as the model's is: the tools' server is configured with them)."""
        self._gone = False
        self._run_id = ""

    @classmethod
    def start(
        cls,
        provider_id: str,
        cwd: str | os.PathLike[str],
        announce: Announce,
        *,
        host: str | Host,
        scripted_model: ScriptedModel | None,
        endpoint: Endpoint | None,
        model: str | None,
        name: str | None,
        seed: Seed | None,
        worktree: bool,
        sandbox: bool | Sandbox,
        prompt: str | None,
        options: Mapping[str, Any],
        kernel: Mapping[str, Any] | None = None,
    ) -> RemoteBackend:
        """Start an agent on ``host`` (see :class:`~lab_widget.Run` for the parameters;
        ``kernel``: the connection of the kernel whose tools it gets, see ``kernel_host``).
        """
        backend = cls(parse_host(host), provider_id, announce)
        args: dict[str, Any] = {
            "provider": provider_id,
            "cwd": os.fspath(cwd),
            "worktree": worktree,
            "options": dict(options),
            "prompt": prompt,
        }
        try:
            orjson.dumps(args["options"])
        except TypeError as exc:
            raise RemoteOptionsError(
                f"options of a remote run must be plain JSON values: {exc}"
            ) from exc
        if scripted_model is not None:
            backend.scripted_model = scripted_model
            path = urlsplit(scripted_model.base_url).path.rstrip("/")
            # The key rides the pipe, never a command line.
            args["forward"] = {"path": path, "api_key": scripted_model.api_key}
        if kernel is not None:
            backend._kernel = kernel
            # Its ports are forwarded; its key rides the pipe, as the model's does.
            args["kernel"] = {
                "ports": {name: kernel[name] for name in KERNEL_PORTS},
                "key": kernel.get("key", ""),
                "signature_scheme": kernel.get("signature_scheme", "hmac-sha256"),
            }
        if model is not None:
            args["model"] = model
        if endpoint is not None:
            args["endpoint"] = {"base_url": endpoint.base_url, "api_key": endpoint.api_key}
        if seed is not None:
            args["seed"] = {"context": seed.context, "skills": dict(seed.skills)}
        box = Sandbox.of(sandbox)
        if box is not None:
            args["sandbox"] = box.to_json()
        run_id = _safe_name(name) if name else f"{provider_id}-{uuid.uuid4().hex[:8]}"
        backend._follow(run_id, "start", args, START_TIMEOUT)
        return backend

    @classmethod
    def adopt(cls, host: Host, run_id: str, provider_id: str, announce: Announce) -> RemoteBackend:
        """Follow a live run on ``host`` through its worker."""
        backend = cls(host, provider_id, announce)
        backend._follow(run_id, "adopt", {}, START_TIMEOUT)
        return backend

    @staticmethod
    def runs_on(host: str | Host, follow: Callable[[Host, str, str], T]) -> list[T]:
        """``follow(host, run_id, provider_id)`` for each live run on ``host``, in its order."""
        where = parse_host(host)
        connection = connect(where)
        records = connection.request("list", retry=True)
        found = [
            follow(where, str(record.get("run_id")), str(record.get("provider")))
            for record in (records if isinstance(records, list) else [])
        ]
        connection.close_if_idle()  # nothing follows it: let the worker go
        return found

    def _follow(self, run_id: str, op: str, args: Mapping[str, Any], timeout: float) -> None:
        self._run_id = run_id
        connection = connect(self.host)
        connection.attach(run_id, self)
        try:
            connection.request(op, run_id, args, timeout=timeout, apply=self._apply_snapshot)
        except BaseException:
            connection.detach(run_id)
            raise
        self.connection = connection
        weakref.finalize(self, _release, connection, run_id)

    @property
    def forward_port(self) -> int | None:
        """The host's loopback port the agent reaches the kernel's scripted model on."""
        return self._forward_port

    @property
    def gone(self) -> bool:
        """Whether this kernel stopped the run."""
        return self._gone

    def request(
        self,
        op: str,
        args: Mapping[str, Any] | Callable[[float | None], Mapping[str, Any]] | None = None,
        *,
        timeout: float | None = 60.0,
        retry: bool = False,
    ) -> Any:
        """One request about this run to the host's worker."""
        connection = self.connection
        if connection is None:
            raise ConnectionLostError("this run is not connected to its host")
        return connection.request(op, self.id, args, timeout=timeout, retry=retry)

    # -- following the worker (on the connection's reader thread) ----------------------

    def _apply_snapshot(self, value: Any) -> None:
        with self.mirror.lock:
            first = not self._record_json
            self._remote_cwd = Path(str(value.get("cwd") or "."))
            self._record_json = dict(value.get("record") or {})
            self._host_attach = str(value.get("attach_command") or "")
            tmux = value.get("tmux")
            if isinstance(tmux, dict) and self._pane is None:
                runner = HostTmux(self._tmux, str(tmux["binary"]), Path(str(tmux["socket"])))
                self._pane = RemoteTerminal(runner, str(value.get("run_id")), self.host)
            port = value.get("forward_port")
            self._forward_port = port if isinstance(port, int) else self._forward_port
            ports = value.get("kernel_ports")
            if isinstance(ports, dict) and ports:
                self._kernel_ports = {str(k): v for k, v in ports.items() if isinstance(v, int)}
            self.mirror.take_snapshot(value, announce=not first)

    def on_event(self, message: dict[str, Any]) -> None:
        """Apply one of the worker's events (the connection calls it, in pipe order)."""
        if self.mirror.apply_event(message):
            self._announce(False)

    def reattach(self, connection: Connection) -> None:
        """Re-adopt the agent on a new worker after the pipe dropped."""
        if self._gone:
            return
        try:
            connection.request(
                "adopt",
                self.id,
                {"forward_port": self._forward_port, "kernel_ports": self._kernel_ports},
                timeout=START_TIMEOUT,
                apply=self._apply_snapshot,
                wait_connected=False,
            )
        except RunNotFoundError:
            # The agent is gone from the host too (its tmux session ended meanwhile).
            self.on_event(
                {"state": "ended", "transcript_id": self.mirror.transcript_id, "changed": []}
            )
        except Exception:
            log.exception("re-adopting %s on %s failed", self.id, self.host.name)

    def forward_target(self, to: str | None) -> tuple[str, int] | None:
        """The scripted model's own address, or the kernel's port ``to`` names, for
        connections the agent opens on the host.
        """
        if to is not None:
            kernel = self._kernel
            port = kernel.get(to.removeprefix(KERNEL_PREFIX)) if kernel is not None else None
            if not to.startswith(KERNEL_PREFIX) or not isinstance(port, int) or kernel is None:
                return None
            return (str(kernel.get("ip") or "127.0.0.1"), port)
        model = self.scripted_model
        if model is None or not model.running:
            return None
        parts = urlsplit(model.base_url)
        return (parts.hostname or "127.0.0.1", parts.port or 80)

    def _tmux(self, args: dict[str, Any]) -> str:
        return str(self.request("tmux", args))

    # -- what the run shows ------------------------------------------------------------

    @property
    def connected(self) -> bool:
        return self.connection is not None and self.connection.connected

    @property
    def lock(self) -> threading.RLock:
        return self.mirror.lock

    @property
    def id(self) -> str:
        return self._run_id

    @property
    def cwd(self) -> Path:
        return self._remote_cwd

    @property
    def state(self) -> State:
        return self.mirror.state

    @property
    def messages(self) -> list[Message]:
        return self.mirror.messages

    @property
    def session(self) -> SessionSummary:
        return self.mirror.summary  # the worker computed it, costs included

    @property
    def transcript_id(self) -> str | None:
        return self.mirror.transcript_id

    @property
    def transcript_path(self) -> Path | None:
        path = self.mirror.fact("transcript_path")
        return Path(path) if path else None

    @property
    def needs_input_reason(self) -> str | None:
        return self.mirror.fact("needs_input_reason")

    @property
    def state_reason(self) -> str:
        return self.mirror.fact("state_reason") or ""

    @property
    def attach_command(self) -> str:
        return self.host.attach(self._host_attach) if self._host_attach else ""

    @property
    def memory(self) -> int | None:
        return None  # the agent's processes are on the host

    @property
    def started_by(self) -> StartedBy | None:
        return None  # the host's worker holds the run

    @property
    def started_at(self) -> datetime | None:
        return iso_time(self._record_json.get("created"))  # the host's record, once heard

    @property
    def pane(self) -> TmuxTerminal:
        if self._pane is None:
            raise RemoteError("this run has not heard from its host yet")
        return self._pane

    @property
    def commands(self) -> list[CommandSpec]:
        return list(self.mirror.commands)  # as of the run's last idle moment

    @property
    def pending_dialog(self) -> Dialog | None:
        return self.mirror.dialog

    @property
    def past_epochs(self) -> list[TranscriptRef]:
        with self.mirror.lock:
            return list(self.mirror.past_refs)

    @property
    def past_conversations(self) -> list[Epoch]:
        with self.mirror.lock:
            return list(self.mirror.past)

    @property
    def workspace(self) -> Workspace:
        record = self._record_json.get("workspace") or {"cwd": str(self._remote_cwd)}
        base = Workspace.from_record(record, self.provider.seed_meta())
        workspace = RemoteWorkspace(**{k: getattr(base, k) for k in base.__dataclass_fields__})
        workspace._backend = self
        return workspace

    def history(self) -> list[Chat]:
        value = self.request("history", retry=True)  # read again on the host
        return [Chat.model_validate(c) for c in value or []]

    def screen(self) -> str:
        return str(self.request("screen", retry=True))

    def subscribe(self, listener: Callable[[ChatEvent], None]) -> Callable[[], None]:
        return self.mirror.subscribe(listener)

    def wait_for(self, predicate: Callable[[], bool], timeout: float) -> bool:
        return self.mirror.wait_for(predicate, timeout)

    # -- acting ------------------------------------------------------------------------

    def send(self, text: str, ready_timeout: float = 60.0) -> None:
        self.request(
            "send", {"text": text, "ready_timeout": ready_timeout}, timeout=ready_timeout + SLACK
        )

    def wait(self, timeout: float | None) -> State:
        end = None if timeout is None else time.monotonic() + timeout

        def args(_left: float | None) -> dict[str, Any]:
            return {"timeout": None if end is None else max(0.0, end - time.monotonic())}

        state = self.request(
            "wait", args, timeout=None if timeout is None else timeout + SLACK, retry=True
        )
        # The result left the worker after every event it waited for: the mirror has them.
        return state  # type: ignore[no-any-return]

    def answer(self, answers: UserAnswer, feedback: str | None, timeout: float) -> Dialog:
        value = self.request(
            "answer",
            {"answers": encode_answer(answers), "feedback": feedback, "timeout": timeout},
            timeout=timeout + SLACK,
        )
        return Dialog.model_validate(value)

    def interrupt(self) -> None:
        self.request("interrupt")

    def accept(self, timeout: float) -> None:
        self.request("accept", {"timeout": timeout}, timeout=timeout + SLACK)

    def stop(self, cleanup: bool, discard: bool) -> None:
        if self._pane is not None and self.state != "ended":
            try:
                self._pane.capture_final()  # what an ended run's terminal view shows
            except LabWidgetError:
                log.debug("the last screen of %s could not be kept", self.id)
        try:
            self.request("stop", {"cleanup": cleanup, "discard": discard}, timeout=60.0)
        finally:
            self._gone = True
            self.mirror.end("This run was stopped.")
            connection, self.connection = self.connection, None
            if connection is not None:
                connection.detach(self.id)
            self._announce(False)

    def diff(self) -> str:
        return str(self.request("diff", retry=True))

    def commit(self, message: str) -> str:
        return str(self.request("commit", {"message": message}))


def _release(connection: Connection, run_id: str) -> None:
    # The run object is gone: the worker stops following the agent (which lives on).
    connection.release(run_id)
