"""The kernel side of a run on another host: a :class:`~lab_widget.Run` whose agent, tmux
session, reader and tailer live in a worker there.

``Run(..., host=...)`` returns one. What it shows comes from a mirror of the worker's run
(:mod:`~lab_widget._remote._mirror`, read through :mod:`~lab_widget._remote._surface`),
updated by the worker's events in pipe order, so reading it costs no round trip and the chat
view, the runs dashboard and the magics work on it unchanged. This module builds it (start
or adopt), follows the worker (its snapshots and events, re-adoption after a reconnect) and
acts: send, wait, answer, clear, interrupt, stop, diff, commit are requests to the worker.

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
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import orjson

from .._answers import UserAnswer
from .._context import expand
from .._launch import _safe_name
from .._live import announce, find, register
from .._run import Run
from .._sandbox import Sandbox
from .._seed import Seed
from ..errors import InvalidHostError, LabWidgetError, RemoteOptionsError, RunNotFoundError
from ..provider import Endpoint, default_provider, get_provider
from ..schema import Dialog, State
from ..scripted import ScriptedModel
from ._connection import Connection, connect
from ._mirror import Mirror
from ._pane import HostTmux, RemoteTerminal
from ._protocol import encode_answer
from ._surface import MirroredRun, RemoteWorkspace
from ._transports import Host, parse_host

__all__ = ["RemoteRun", "RemoteWorkspace"]

log = logging.getLogger(__name__)

START_TIMEOUT = 180.0
"""Seconds a run's start may take on the host (preparing a worktree, spawning the CLI)."""

SLACK = 30.0
"""Seconds a request may take beyond the time the worker was asked to wait."""


class RemoteRun(MirroredRun, remote=True):
    """A run whose agent lives on another host (``Run(..., host=...)``).

    It has the whole :class:`~lab_widget.Run` surface. Paths (``cwd``,
    ``transcript_path``, ``past_epochs``) are paths on the host; ``cwd`` is taken there
    (``~`` is the home of the host's user). It has no terminal pane in the chat view:
    ``attach_command`` opens the agent's TUI through the same transport.
    """

    def __init__(
        self,
        provider: str | None = None,
        cwd: str | os.PathLike[str] = ".",
        *,
        model: ScriptedModel | str | None = None,
        endpoint: Endpoint | None = None,
        name: str | None = None,
        seed: Seed | None = None,
        worktree: bool = False,
        sandbox: bool | Sandbox = False,
        host: str | Host | None = None,
        prompt: str | None = None,
        **options: Any,
    ) -> None:
        if host is None:
            raise InvalidHostError("a remote run needs a host")
        provider_id = provider or default_provider()
        self._begin(parse_host(host), provider_id)
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
        if isinstance(model, ScriptedModel):
            self.scripted_model = model.start()
            path = urlsplit(model.base_url).path.rstrip("/")
            # The key rides the pipe, never a command line.
            args["forward"] = {"path": path, "api_key": model.api_key}
        elif isinstance(model, str):
            args["model"] = model
        if endpoint is not None:
            args["endpoint"] = {"base_url": endpoint.base_url, "api_key": endpoint.api_key}
        if seed is not None:
            args["seed"] = {"context": seed.context, "skills": dict(seed.skills)}
        box = Sandbox.of(sandbox)
        if box is not None:
            args["sandbox"] = box.to_json()
        run_id = _safe_name(name) if name else f"{provider_id}-{uuid.uuid4().hex[:8]}"
        self._follow(run_id, "start", args, START_TIMEOUT)

    # -- building ----------------------------------------------------------------------

    def _begin(self, host: Host, provider_id: str) -> None:
        self._host = host
        self._provider = get_provider(provider_id)
        self.scripted_model = None
        self._mirror = Mirror()
        self._remote_cwd = Path()
        self._record_json = {}
        self._host_attach = ""
        self._pane = None
        self._forward_port: int | None = None
        self._gone = False
        self._view = None
        self._view_lock = threading.Lock()
        self._run_id = ""
        self._connection = None

    def _follow(self, run_id: str, op: str, args: Mapping[str, Any], timeout: float) -> None:
        self._run_id = run_id
        connection = connect(self._host)
        connection.attach(run_id, self)
        try:
            connection.request(op, run_id, args, timeout=timeout, apply=self._apply_snapshot)
        except BaseException:
            connection.detach(run_id)
            raise
        self._connection = connection
        weakref.finalize(self, _release, connection, run_id)
        register(self)
        announce(self, True)

    @classmethod
    def _runs_on(cls, host: str | Host) -> list[Run]:
        where = parse_host(host)
        connection = connect(where)
        records = connection.request("list", retry=True)
        found: list[Run] = []
        for record in records if isinstance(records, list) else []:
            run_id = str(record.get("run_id"))
            existing = find(run_id)
            if isinstance(existing, RemoteRun) and existing._host == where and not existing._gone:
                found.append(existing)
                continue
            run = object.__new__(RemoteRun)
            run._begin(where, str(record.get("provider")))
            run._follow(run_id, "adopt", {}, START_TIMEOUT)
            found.append(run)
        connection.close_if_idle()  # nothing follows it: let the worker go
        return found

    # -- following the worker (on the connection's reader thread) ----------------------

    def _apply_snapshot(self, value: Any) -> None:
        with self._mirror.lock:
            first = not self._record_json
            self._remote_cwd = Path(str(value.get("cwd") or "."))
            self._record_json = dict(value.get("record") or {})
            self._host_attach = str(value.get("attach_command") or "")
            tmux = value.get("tmux")
            if isinstance(tmux, dict) and self._pane is None:
                runner = HostTmux(self._tmux, str(tmux["binary"]), Path(str(tmux["socket"])))
                self._pane = RemoteTerminal(runner, str(value.get("run_id")), self._host)
            port = value.get("forward_port")
            self._forward_port = port if isinstance(port, int) else self._forward_port
            self._mirror.take_snapshot(value, announce=not first)

    def on_event(self, message: dict[str, Any]) -> None:
        """Apply one of the worker's events (the connection calls it, in pipe order)."""
        if self._mirror.apply_event(message):
            announce(self, False)

    def reattach(self, connection: Connection) -> None:
        """Re-adopt the agent on a new worker after the pipe dropped."""
        if self._gone:
            return
        try:
            connection.request(
                "adopt",
                self.id,
                {"forward_port": self._forward_port},
                timeout=START_TIMEOUT,
                apply=self._apply_snapshot,
                wait_connected=False,
            )
        except RunNotFoundError:
            # The agent is gone from the host too (its tmux session ended meanwhile).
            self.on_event(
                {"state": "ended", "transcript_id": self._mirror.transcript_id, "changed": []}
            )
        except Exception:
            log.exception("re-adopting %s on %s failed", self.id, self._host.name)

    def forward_target(self) -> tuple[str, int] | None:
        """The scripted model's own address, for connections the agent opens on the host."""
        model = self.scripted_model
        if model is None or not model.running:
            return None
        parts = urlsplit(model.base_url)
        return (parts.hostname or "127.0.0.1", parts.port or 80)

    def _tmux(self, args: dict[str, Any]) -> str:
        return str(self._request("tmux", args))

    # -- acting ------------------------------------------------------------------------

    def send(
        self,
        text: str,
        *,
        context: Mapping[str, object] | None = None,
        ready_timeout: float = 60.0,
    ) -> None:
        """Type ``text`` into the agent on the host (see :meth:`Run.send`; ``@name``
        mentions are described here, from this kernel's variables).
        """
        if context is not None:
            text = expand(text, context)
        self._request(
            "send", {"text": text, "ready_timeout": ready_timeout}, timeout=ready_timeout + SLACK
        )

    def wait(self, timeout: float | None = 120.0) -> State:
        """Block until the agent is no longer ``working`` (see :meth:`Run.wait`)."""
        end = None if timeout is None else time.monotonic() + timeout

        def args(_left: float | None) -> dict[str, Any]:
            return {"timeout": None if end is None else max(0.0, end - time.monotonic())}

        state = self._request(
            "wait", args, timeout=None if timeout is None else timeout + SLACK, retry=True
        )
        # The result left the worker after every event it waited for: the mirror has them.
        return state  # type: ignore[no-any-return]

    def answer(
        self,
        answers: UserAnswer,
        *,
        feedback: str | None = None,
        timeout: float = 60.0,
    ) -> Dialog:
        """Answer the pending dialog in the TUI on the host (see :meth:`Run.answer`)."""
        value = self._request(
            "answer",
            {"answers": encode_answer(answers), "feedback": feedback, "timeout": timeout},
            timeout=timeout + SLACK,
        )
        return Dialog.model_validate(value)

    def interrupt(self) -> None:
        """Stop the current turn (the agent keeps running)."""
        self._request("interrupt")

    def accept(self, timeout: float = 30.0) -> None:
        """Accept what the agent asks before it starts (see :meth:`Run.accept`)."""
        self._request("accept", {"timeout": timeout}, timeout=timeout + SLACK)

    def stop(self, cleanup: bool = False, *, discard: bool = False) -> None:
        """End the agent and its tmux session on the host (see :meth:`Run.stop`)."""
        if self._pane is not None and self.state != "ended":
            try:
                self._pane.capture_final()  # what an ended run's terminal view shows
            except LabWidgetError:
                log.debug("the last screen of %s could not be kept", self.id)
        try:
            self._request("stop", {"cleanup": cleanup, "discard": discard}, timeout=60.0)
        finally:
            self._gone = True
            self._mirror.end("This run was stopped.")
            connection, self._connection = self._connection, None
            if connection is not None:
                connection.detach(self.id)
            announce(self, False)

    def diff(self) -> str:
        """The workspace's changes since the run started, from git on the host."""
        return str(self._request("diff", retry=True))

    def commit(self, message: str) -> str:
        """Commit every change in the workspace on the host; returns the commit id."""
        return str(self._request("commit", {"message": message}))


def _release(connection: Connection, run_id: str) -> None:
    # The run object is gone: the worker stops following the agent (which lives on).
    connection.release(run_id)
