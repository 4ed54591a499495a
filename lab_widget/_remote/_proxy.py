"""The kernel side of a run on another host: a :class:`~lab_widget.Run` whose agent, tmux
session, reader and tailer live in a worker there.

``Run(..., host=...)`` returns one. It keeps a mirror of what the worker's run shows (the
messages by seq, the state, the transcript id, the earlier conversations and the facts a
view reads: state reason, pending dialog, session, commands), updated by the worker's events
in pipe order, so reading it costs no round trip and the chat view, the runs dashboard and
the magics work on it unchanged. Acting (send, wait, answer, clear, interrupt, stop, diff,
commit) is a request to the worker.

When the pipe drops, the connection re-adopts the run on a new worker and the mirror takes
the new worker's snapshot: listeners get the messages that differ (none twice, none lost;
seqs are stable across re-reads) as one event.

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
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import orjson

from .._answers import UserAnswer
from .._chat import ChatEvent, Epoch
from .._context import expand
from .._launch import _safe_name
from .._live import announce, find, register
from .._run import Run
from .._runner import TmuxTerminal
from .._sandbox import Sandbox
from .._seed import Seed, Workspace
from .._turns import derive_turns
from ..errors import LabWidgetError, RunNotFoundError, WorkspaceError
from ..provider import Endpoint, TranscriptRef, default_provider, get_provider
from ..schema import Chat, CommandSpec, Dialog, Message, SessionSummary, State
from ..scripted import ScriptedModel
from ._connection import Connection, connect
from ._pane import HostTmux, RemoteTerminal
from ._protocol import encode_answer, strings
from ._transports import Host, parse_host

__all__ = ["RemoteRun", "RemoteWorkspace"]

log = logging.getLogger(__name__)

START_TIMEOUT = 180.0
"""Seconds a run's start may take on the host (preparing a worktree, spawning the CLI)."""

SLACK = 30.0
"""Seconds a request may take beyond the time the worker was asked to wait."""


def _ref(data: Mapping[str, Any]) -> TranscriptRef:
    return TranscriptRef(str(data.get("transcript_id")), Path(str(data.get("path"))))


def _messages(data: object) -> list[Message]:
    return [Message.model_validate(m) for m in data] if isinstance(data, list) else []


class RemoteWorkspace(Workspace):
    """A remote run's workspace as its record describes it; git runs on the host."""

    _run: RemoteRun

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


class RemoteRun(Run, remote=True):
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
            raise LabWidgetError("a remote run needs a host")
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
            raise LabWidgetError(
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
        self._lock = threading.RLock()
        self._changed = threading.Condition(self._lock)
        self._by_seq: dict[int, Message] = {}
        self._ordered: list[Message] | None = None
        self._state: State = "idle"
        self._transcript_id: str | None = None
        self._facts: dict[str, Any] = {}
        self._dialog: Dialog | None = None
        self._summary = SessionSummary()
        self._command_specs: list[CommandSpec] = []
        self._past: list[Epoch] = []
        self._past_refs: list[TranscriptRef] = []
        self._listeners: list[Callable[[ChatEvent], None]] = []
        self._remote_cwd = Path()
        self._record_json: dict[str, Any] = {}
        self._host_attach = ""
        self._pane: RemoteTerminal | None = None
        self._forward_port: int | None = None
        self._gone = False
        self._view = None
        self._view_lock = threading.Lock()
        self._run_id = ""
        self._connection: Connection | None = None

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

    # -- the mirror (applied on the connection's reader thread) -------------------------

    def _apply_facts(self, facts: Mapping[str, Any]) -> None:
        self._facts.update(facts)
        if "pending_dialog" in facts:
            raw = facts["pending_dialog"]
            self._dialog = Dialog.model_validate(raw) if raw else None
        if facts.get("session"):
            self._summary = SessionSummary.model_validate(facts["session"])
        if "commands" in facts:
            self._command_specs = [CommandSpec.model_validate(c) for c in facts["commands"] or []]

    def _emit(self, event: ChatEvent) -> None:
        for listener in list(self._listeners):
            try:
                listener(event)
            except Exception:
                log.exception("chat listener failed")

    def _apply_snapshot(self, value: Any) -> None:
        first = not self._record_json
        with self._lock:
            fresh = {m.seq: m for m in _messages(value.get("messages"))}
            transcript_id = value.get("transcript_id")
            reset = (not first) and transcript_id != self._transcript_id
            if reset:
                # A clear happened while the pipe was down.
                self._past.append(Epoch(self._transcript_id or "", self.messages))
            vanished = not reset and any(seq not in fresh for seq in self._by_seq)
            reset = reset or vanished
            if reset:
                changed = [fresh[s] for s in sorted(fresh)]
            else:
                changed = [fresh[s] for s in sorted(fresh) if self._by_seq.get(s) != fresh[s]]
            self._by_seq, self._ordered = fresh, None
            past = value.get("past") or []
            if len(past) > len(self._past):  # a new worker knows only what it saw itself
                self._past = [
                    Epoch(str(e.get("transcript_id")), _messages(e.get("messages"))) for e in past
                ]
            refs = value.get("past_refs") or []
            if len(refs) > len(self._past_refs):
                self._past_refs = [_ref(r) for r in refs]
            self._apply_facts(value.get("facts") or {})
            self._state = value.get("state") or "idle"
            self._transcript_id = transcript_id
            self._remote_cwd = Path(str(value.get("cwd") or "."))
            self._record_json = dict(value.get("record") or {})
            self._host_attach = str(value.get("attach_command") or "")
            tmux = value.get("tmux")
            if isinstance(tmux, dict) and self._pane is None:
                runner = HostTmux(self._tmux, str(tmux["binary"]), Path(str(tmux["socket"])))
                self._pane = RemoteTerminal(runner, str(value.get("run_id")), self._host)
            port = value.get("forward_port")
            self._forward_port = port if isinstance(port, int) else self._forward_port
            if not first:
                self._emit(ChatEvent(changed, reset, self._state, transcript_id))
            self._changed.notify_all()

    def on_event(self, message: dict[str, Any]) -> None:
        """Apply one of the worker's events (the connection calls it, in pipe order)."""
        ended = False
        with self._lock:
            changed = _messages(message.get("changed"))
            reset = bool(message.get("reset"))
            if reset:
                past = message.get("past")
                if isinstance(past, dict):
                    epoch = Epoch(str(past.get("transcript_id")), _messages(past.get("messages")))
                else:
                    epoch = Epoch(self._transcript_id or "", self.messages)
                self._past.append(epoch)
                ref = message.get("past_ref")
                if isinstance(ref, dict):
                    self._past_refs.append(_ref(ref))
                self._by_seq = {m.seq: m for m in changed}
            else:
                for m in changed:
                    self._by_seq[m.seq] = m
            self._ordered = None
            state: State = message.get("state") or self._state
            ended = state == "ended" and self._state != "ended"
            self._state = state
            self._transcript_id = message.get("transcript_id")
            self._apply_facts(message.get("facts") or {})
            self._emit(ChatEvent(changed, reset, state, self._transcript_id))
            self._changed.notify_all()
        if ended:
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
            self.on_event({"state": "ended", "transcript_id": self._transcript_id, "changed": []})
        except Exception:
            log.exception("re-adopting %s on %s failed", self.id, self._host.name)

    def forward_target(self) -> tuple[str, int] | None:
        """The scripted model's own address, for connections the agent opens on the host."""
        model = self.scripted_model
        if model is None or not model.running:
            return None
        parts = urlsplit(model.base_url)
        return (parts.hostname or "127.0.0.1", parts.port or 80)

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
            raise LabWidgetError("this run is not connected to its host")
        return connection.request(op, self.id, args, timeout=timeout, retry=retry)

    # -- what the run shows ------------------------------------------------------------

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
        return self._lock

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
        return self._state

    @property
    def messages(self) -> list[Message]:
        """The current conversation, oldest first."""
        with self._lock:
            if self._ordered is None:
                self._ordered = [self._by_seq[s] for s in sorted(self._by_seq)]
            return list(self._ordered)

    @property
    def session(self) -> SessionSummary:
        """The session summary as the worker computed it (costs included)."""
        return self._summary

    @property
    def turns(self) -> list[Any]:
        """The current conversation's turns (see :attr:`Run.turns`)."""
        with self._lock:
            return derive_turns(self.messages, self._summary, self._state)

    @property
    def transcript_id(self) -> str | None:
        """The id of the current epoch."""
        return self._transcript_id

    @property
    def transcript_path(self) -> Path | None:
        """The agent's transcript file on the host."""
        path = self._facts.get("transcript_path")
        return Path(path) if path else None

    @property
    def attach_command(self) -> str:
        """A command that opens the agent's TUI on the host from a terminal here."""
        return self._host.attach(self._host_attach) if self._host_attach else ""

    @property
    def needs_input_reason(self) -> str | None:
        """Why the run is ``needs_input``, when it is."""
        reason = self._facts.get("needs_input_reason")
        return str(reason) if reason else None

    @property
    def state_reason(self) -> str:
        """Why the run needs input or has ended; empty otherwise."""
        return str(self._facts.get("state_reason") or "")

    @property
    def pane(self) -> TmuxTerminal:
        """The agent's tmux session on the host, as the chat view's terminal pane shows it
        (its control-mode client runs there, through the transport).
        """
        if self._pane is None:
            raise LabWidgetError("this run has not heard from its host yet")
        return self._pane

    def _tmux(self, args: dict[str, Any]) -> str:
        return str(self._request("tmux", args))

    @property
    def commands(self) -> list[CommandSpec]:
        """The slash commands the run offers (as of its last idle moment)."""
        return list(self._command_specs)

    @property
    def past_epochs(self) -> list[TranscriptRef]:
        """The transcripts (on the host) of the conversations before each clear."""
        with self._lock:
            return list(self._past_refs)

    @property
    def past_conversations(self) -> list[Epoch]:
        """The conversations before each clear, as this kernel saw them."""
        with self._lock:
            return list(self._past)

    @property
    def pending_dialog(self) -> Dialog | None:
        """The dialog the agent waits on, if any."""
        return self._dialog

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
        with self._lock:
            messages, state, session = self.messages, self._state, self._summary
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
        with self._lock:
            self._listeners.append(listener)

        def unsubscribe() -> None:
            with self._lock:
                if listener in self._listeners:
                    self._listeners.remove(listener)

        return unsubscribe

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

    def wait_for(self, predicate: Callable[[Run], bool], timeout: float = 60.0) -> bool:
        """Block until ``predicate(run)`` holds (re-checked on every event)."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while not predicate(self):
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._changed.wait(min(left, 1.0))
            return True

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
            with self._lock:
                was = self._state
                self._state = "ended"
                if was != "ended":
                    self._facts.setdefault("state_reason", "This run was stopped.")
                    self._emit(ChatEvent([], False, "ended", self._transcript_id))
                self._changed.notify_all()
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
    if not connection._closed:
        connection._send_quietly(
            {"kind": "request", "id": 0, "op": "release", "run": run_id, "args": {}}
        )
        connection.detach(run_id)
