"""The worker: ``python -m lab_widget worker`` on the agent's host.

It runs today's run machinery unchanged (a :class:`~lab_widget.Run` per run: tmux, the
reader, the tailer, live signals) and speaks :mod:`~lab_widget._remote._protocol` on its
stdio. It owns nothing that must outlive it: when the pipe closes it lets go of its runs
and exits, and tmux keeps the agents alive for the next worker to adopt.

The protocol owns stdout: the worker moves the pipe to descriptors of its own that no child
inherits (a long-lived tmux server holding the pipe would keep the connection open after
the worker is gone), and points 0 at ``/dev/null`` and 1 at stderr, so nothing a library
prints can corrupt a line.
"""

from __future__ import annotations

import argparse
import base64
import getpass
import importlib
import logging
import os
import queue
import socket
import sys
import threading
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, TextIO

import orjson

from .._chat import _PENDING_GRACE, ChatEvent
from .._launch import runner as _runner
from .._live import live_records
from .._run import Run
from .._sandbox import Sandbox
from .._seed import Seed
from ..errors import LabWidgetError, RunNotFoundError
from ..provider import Endpoint, get_provider, register
from ..schema import Message
from ._forward import Listener, Sockets
from ._pane import allowed
from ._protocol import decode, decode_answer, encode, error_json, hello, mismatch

__all__ = ["Worker", "main"]

log = logging.getLogger(__name__)

_SENT = object()  # a handler that wrote its own result (under its run's lock)


def _dump(messages: list[Message]) -> list[dict[str, Any]]:
    return [m.model_dump(mode="json", exclude_none=True) for m in messages]


@dataclass
class _Hosted:
    """A run this worker serves, and what it last told the kernel about it."""

    run: Run
    listener: Listener | None = None
    unsubscribe: Callable[[], None] | None = None
    facts: dict[str, bytes] = field(default_factory=dict)
    state: str = ""
    transcript_id: str | None = None


class Worker:
    """Serves one pipe: requests in, results and events out.

    Parameters
    ----------
    reader, writer
        The pipe (binary): requests arrive on ``reader`` one per line.
    """

    def __init__(self, reader: IO[bytes], writer: IO[bytes]) -> None:
        self._in = reader
        self._out = writer
        self._queue: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._runs: dict[str, _Hosted] = {}
        self._sockets = Sockets(self.send)
        self._local = threading.local()
        self._writer = threading.Thread(target=self._write, name="lab-widget-worker-out")
        self._writer.daemon = True

    # -- the pipe ----------------------------------------------------------------------

    def send(self, message: dict[str, Any]) -> None:
        """Queue one line (events are sent from the runs' reader threads: never block them)."""
        self._queue.put(encode(message))

    def _write(self) -> None:
        while (line := self._queue.get()) is not None:
            try:
                self._out.write(line)
                self._out.flush()
            except (OSError, ValueError):
                return  # the pipe is gone: the reading side sees it too

    def serve(self) -> int:
        """Shake hands, then serve until the pipe closes; returns the exit status."""
        self._writer.start()
        mine = hello(host=socket.gethostname(), user=getpass.getuser())
        self.send(mine)
        first = self._in.readline()
        if not first:
            return self._finish(0)
        try:
            problems = mismatch(mine, decode(first))
        except LabWidgetError as exc:
            problems = [str(exc)]
        if problems:
            self.send({"kind": "refused", "reason": "; ".join(problems)})
            return self._finish(3)
        for line in iter(self._in.readline, b""):
            try:
                message = decode(line)
            except LabWidgetError:
                log.warning("ignored a line that is not a message: %r", line[:200])
                continue
            if message["kind"] == "request":
                threading.Thread(
                    target=self._handle, args=(message,), name="lab-widget-request", daemon=True
                ).start()
            elif message["kind"] == "tcp":
                self._sockets.receive(message)
        return self._finish(0)

    def _finish(self, status: int) -> int:
        with self._lock:
            hosted = list(self._runs.values())
            self._runs.clear()
        for item in hosted:
            self._let_go(item)
        self._sockets.close_all()
        self._queue.put(None)
        self._writer.join(timeout=5)
        return status

    def _let_go(self, hosted: _Hosted) -> None:
        # The agent keeps running under tmux; only this process's watch of it ends.
        if hosted.unsubscribe is not None:
            hosted.unsubscribe()
        if hosted.listener is not None:
            hosted.listener.close()
        hosted.run._tailer.stop(timeout=0)

    # -- requests ----------------------------------------------------------------------

    def _handle(self, message: dict[str, Any]) -> None:
        request_id = message.get("id")
        op = str(message.get("op"))
        run_id = message.get("run")
        args = message.get("args") or {}
        self._local.warnings = []
        try:
            handler = getattr(self, f"_op_{op}", None)
            if handler is None:
                raise LabWidgetError(f"the worker has no operation {op!r}")
            value = handler(request_id, run_id, args)
            if value is _SENT:
                return
            self.send(self._result(request_id, value))
        except BaseException as exc:
            if not isinstance(exc, LabWidgetError):
                log.exception("request %s failed", op)
            self.send(
                {
                    "kind": "result",
                    "id": request_id,
                    "ok": False,
                    "error": error_json(exc),
                    "warnings": self._local.warnings,
                }
            )

    def _result(self, request_id: object, value: object) -> dict[str, Any]:
        return {
            "kind": "result",
            "id": request_id,
            "ok": True,
            "value": value,
            "warnings": list(getattr(self._local, "warnings", [])),
        }

    def note_warning(self, category: type[Warning], message: str) -> bool:
        """Keep a warning for the result of the request this thread serves."""
        found: list[dict[str, str]] | None = getattr(self._local, "warnings", None)
        if found is None:
            return False
        found.append({"category": category.__name__, "message": message})
        return True

    def _hosted(self, run_id: object) -> _Hosted:
        with self._lock:
            hosted = self._runs.get(str(run_id))
        if hosted is None:
            raise RunNotFoundError(f"this worker serves no run {run_id!r}; adopt it first")
        return hosted

    def _run(self, run_id: object) -> Run:
        return self._hosted(run_id).run

    # -- following a run ---------------------------------------------------------------

    def _facts(self, hosted: _Hosted, state: str) -> dict[str, Any]:
        run = hosted.run
        dialog = run.pending_dialog
        facts: dict[str, Any] = {
            "state_reason": run.state_reason,
            "needs_input_reason": run.needs_input_reason,
            "pending_dialog": dialog.model_dump(mode="json", exclude_none=True) if dialog else None,
            "session": run.session.model_dump(mode="json"),
        }
        if state == "idle" or not hosted.facts:
            # Cheap when nothing changed (a signature of the command folders).
            facts["commands"] = [c.model_dump(mode="json") for c in run.commands]
        if run.transcript_id != hosted.transcript_id or not hosted.facts:
            path = run.transcript_path
            facts["transcript_path"] = str(path) if path else None
            hosted.transcript_id = run.transcript_id
        return facts

    def _changed_facts(self, hosted: _Hosted, facts: dict[str, Any]) -> dict[str, Any]:
        changed: dict[str, Any] = {}
        for key, value in facts.items():
            encoded = orjson.dumps(value)
            if hosted.facts.get(key) != encoded:
                hosted.facts[key] = encoded
                changed[key] = value
        return changed

    def _listener(self, hosted: _Hosted) -> Callable[[ChatEvent], None]:
        def on_event(event: ChatEvent) -> None:
            # Called under the run's lock, so events leave in the order they happened.
            run = hosted.run
            message: dict[str, Any] = {
                "kind": "event",
                "run": run.id,
                "changed": _dump(event.changed),
                "reset": event.reset,
                "state": event.state,
                "transcript_id": event.transcript_id,
                "facts": self._changed_facts(hosted, self._facts(hosted, event.state)),
            }
            if event.reset:
                past, refs = run.past_conversations, run.past_epochs
                if past:
                    message["past"] = {
                        "transcript_id": past[-1].transcript_id,
                        "messages": _dump(past[-1].messages),
                    }
                if refs:
                    message["past_ref"] = {
                        "transcript_id": refs[-1].transcript_id,
                        "path": str(refs[-1].path),
                    }
            hosted.state = event.state
            self.send(message)

        return on_event

    def _snapshot_reply(self, request_id: object, hosted: _Hosted, follow: bool) -> object:
        # Snapshot, subscription and result under the run's lock: every event after the
        # snapshot leaves after the result, so the kernel never applies an older picture
        # over a newer one.
        run = hosted.run
        with run.lock:
            hosted.facts = {}
            state = run.state
            facts = self._facts(hosted, state)
            self._changed_facts(hosted, facts)
            hosted.state = state
            snapshot = {
                "run_id": run.id,
                "provider": hosted.run.provider.meta.id,
                "cwd": str(run.cwd),
                "state": state,
                "transcript_id": run.transcript_id,
                "messages": _dump(run.messages),
                "past": [
                    {"transcript_id": e.transcript_id, "messages": _dump(e.messages)}
                    for e in run.past_conversations
                ],
                "past_refs": [
                    {"transcript_id": r.transcript_id, "path": str(r.path)} for r in run.past_epochs
                ],
                "facts": facts,
                "attach_command": run.attach_command,
                "tmux": {
                    "binary": run.pane.runner.binary,
                    "socket": str(run.pane.runner.socket_path),
                },
                "record": run._record.to_json(),
                "forward_port": hosted.listener.port if hosted.listener else None,
                "host": socket.gethostname(),
            }
            if follow and hosted.unsubscribe is None:
                hosted.unsubscribe = run.subscribe(self._listener(hosted))
            self.send(self._result(request_id, snapshot))
        return _SENT

    def _recheck_later(self, hosted: _Hosted) -> None:
        # A prompt that never shows up stops counting as work after a grace period, with no
        # event to say so: look again then, and tell the kernel if the state moved.
        def recheck() -> None:
            run = hosted.run
            with run.lock:
                if hosted.unsubscribe is not None and run.state != hosted.state:
                    self._listener(hosted)(ChatEvent([], False, run.state, run.transcript_id))

        timer = threading.Timer(_PENDING_GRACE + 0.5, recheck)
        timer.daemon = True
        timer.start()

    # -- operations --------------------------------------------------------------------

    def _op_ping(self, _id: object, _run: object, _args: dict[str, Any]) -> str:
        return "pong"

    def _op_list(self, _id: object, _run: object, _args: dict[str, Any]) -> list[dict[str, Any]]:
        return [
            {**record.to_json(), "run_id": record.run_id}
            for record, _terminal in live_records(_runner())
        ]

    def _op_start(self, request_id: object, run_id: object, args: dict[str, Any]) -> object:
        endpoint_json = args.get("endpoint")
        forward = args.get("forward")
        listener = None
        endpoint = None
        if isinstance(forward, dict):
            listener = Listener(str(run_id), self._sockets, self.send)
            base = f"http://127.0.0.1:{listener.port}{forward.get('path') or ''}"
            endpoint = Endpoint(base_url=base, api_key=str(forward.get("api_key") or ""))
        elif isinstance(endpoint_json, dict):
            endpoint = Endpoint(
                base_url=str(endpoint_json["base_url"]),
                api_key=str(endpoint_json.get("api_key") or ""),
            )
        seed_json = args.get("seed")
        seed = (
            Seed(context=seed_json.get("context"), skills=dict(seed_json.get("skills") or {}))
            if isinstance(seed_json, dict)
            else None
        )
        sandbox_json = args.get("sandbox")
        try:
            run = Run(
                str(args["provider"]),
                cwd=Path(str(args["cwd"])).expanduser(),
                endpoint=endpoint,
                model=args.get("model"),
                name=str(run_id),
                seed=seed,
                worktree=bool(args.get("worktree")),
                sandbox=Sandbox.from_json(sandbox_json)
                if isinstance(sandbox_json, dict)
                else False,
                prompt=args["prompt"] if isinstance(args.get("prompt"), str) else None,
                **dict(args.get("options") or {}),
            )
        except BaseException:
            if listener is not None:
                listener.close()
            raise
        hosted = _Hosted(run, listener)
        with self._lock:
            self._runs[run.id] = hosted
        return self._snapshot_reply(request_id, hosted, follow=True)

    def _op_adopt(self, request_id: object, run_id: object, args: dict[str, Any]) -> object:
        with self._lock:
            hosted = self._runs.get(str(run_id))
        if hosted is None:
            found = [(r, t) for r, t in live_records(_runner()) if r.run_id == run_id]
            if not found:
                raise RunNotFoundError(f"no live run {run_id!r} on this host")
            record, terminal = found[0]
            port = args.get("forward_port")
            listener = (
                Listener(record.run_id, self._sockets, self.send, port=port)
                if isinstance(port, int)
                else None
            )
            hosted = _Hosted(Run._adopt(record, terminal), listener)
            with self._lock:
                self._runs[record.run_id] = hosted
        return self._snapshot_reply(request_id, hosted, follow=True)

    def _op_messages(self, request_id: object, run_id: object, _args: dict[str, Any]) -> object:
        return self._snapshot_reply(request_id, self._hosted(run_id), follow=False)

    def _op_release(self, _id: object, run_id: object, _args: dict[str, Any]) -> None:
        with self._lock:
            hosted = self._runs.pop(str(run_id), None)
        if hosted is not None:
            self._let_go(hosted)

    def _op_send(self, _id: object, run_id: object, args: dict[str, Any]) -> None:
        hosted = self._hosted(run_id)
        hosted.run.send(str(args["text"]), ready_timeout=float(args.get("ready_timeout", 60.0)))
        self._recheck_later(hosted)

    def _op_wait(self, _id: object, run_id: object, args: dict[str, Any]) -> str:
        timeout = args.get("timeout")
        return self._run(run_id).wait(timeout=None if timeout is None else float(timeout))

    def _op_answer(self, _id: object, run_id: object, args: dict[str, Any]) -> dict[str, Any]:
        dialog = self._run(run_id).answer(
            decode_answer(args["answers"]),
            feedback=args.get("feedback"),
            timeout=float(args.get("timeout", 60.0)),
        )
        return dialog.model_dump(mode="json", exclude_none=True)

    def _op_clear(self, _id: object, run_id: object, _args: dict[str, Any]) -> None:
        hosted = self._hosted(run_id)
        hosted.run.clear()
        self._recheck_later(hosted)

    def _op_interrupt(self, _id: object, run_id: object, _args: dict[str, Any]) -> None:
        self._run(run_id).interrupt()

    def _op_accept(self, _id: object, run_id: object, args: dict[str, Any]) -> None:
        self._run(run_id).accept(timeout=float(args.get("timeout", 30.0)))

    def _op_stop(self, _id: object, run_id: object, args: dict[str, Any]) -> None:
        hosted = self._hosted(run_id)
        try:
            hosted.run.stop(bool(args.get("cleanup")), discard=bool(args.get("discard")))
        finally:
            with self._lock:
                self._runs.pop(hosted.run.id, None)
            self._let_go(hosted)

    def _op_session(self, _id: object, run_id: object, _args: dict[str, Any]) -> dict[str, Any]:
        return self._run(run_id).session.model_dump(mode="json")

    def _op_dialogs(self, _id: object, run_id: object, _args: dict[str, Any]) -> object:
        dialog = self._run(run_id).pending_dialog
        return dialog.model_dump(mode="json", exclude_none=True) if dialog else None

    def _op_commands(self, _id: object, run_id: object, _args: dict[str, Any]) -> object:
        return [c.model_dump(mode="json") for c in self._run(run_id).commands]

    def _op_history(self, _id: object, run_id: object, _args: dict[str, Any]) -> object:
        return [chat.model_dump(mode="json") for chat in self._run(run_id).history()]

    def _op_diff(self, _id: object, run_id: object, _args: dict[str, Any]) -> str:
        return self._run(run_id).diff()

    def _op_commit(self, _id: object, run_id: object, args: dict[str, Any]) -> str:
        return self._run(run_id).commit(str(args["message"]))

    def _op_changes(self, _id: object, run_id: object, _args: dict[str, Any]) -> list[str]:
        return self._run(run_id).workspace.changes()

    def _op_attach(self, _id: object, run_id: object, _args: dict[str, Any]) -> str:
        return self._run(run_id).attach_command

    def _op_screen(self, _id: object, run_id: object, _args: dict[str, Any]) -> str:
        return self._run(run_id).screen()

    def _op_tmux(self, _id: object, run_id: object, args: dict[str, Any]) -> str:
        # For the terminal view of the kernel: the run's own server, a few commands only.
        argv = [str(a) for a in args.get("argv") or []]
        if not allowed(argv):
            raise LabWidgetError(f"tmux {argv[:1]} is not a command the terminal view runs")
        data = args.get("data")
        raw = base64.b64decode(str(data)) if data is not None else None
        return self._run(run_id).pane.runner.tmux(*argv, data=raw)


def _register(specs: list[str]) -> None:
    for spec in specs:
        provider_id, _, target = spec.partition("=")
        module, _, attribute = target.partition(":")
        if not (provider_id and module and attribute):
            raise SystemExit(f"--provider takes ID=module:attribute, not {spec!r}")
        factory = getattr(importlib.import_module(module), attribute)
        register(provider_id, factory)
        get_provider(provider_id)  # fail now, not on the first request


def main(argv: list[str] | None = None) -> int:
    """``python -m lab_widget worker``: serve the protocol on this process's stdio."""
    parser = argparse.ArgumentParser(prog="lab_widget worker")
    parser.add_argument(
        "--provider",
        action="append",
        default=[],
        metavar="ID=MODULE:ATTRIBUTE",
        help="register a provider that is not built in",
    )
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="worker: %(message)s")
    _register(args.provider)
    # The pipe on descriptors of its own (not inherited by children), then 0 and 1 away.
    reader = os.fdopen(os.dup(0), "rb")
    writer = os.fdopen(os.dup(1), "wb")
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    worker = Worker(reader, writer)
    warnings.simplefilter("always")
    shown = warnings.showwarning

    def keep(
        message: Warning | str,
        category: type[Warning],
        filename: str,
        lineno: int,
        file: TextIO | None = None,
        line: str | None = None,
    ) -> None:
        if not worker.note_warning(category, str(message)):
            shown(message, category, filename, lineno, file, line)

    warnings.showwarning = keep
    status = worker.serve()
    sys.stderr.flush()
    # Daemon threads (tailers, exit watches) hold nothing that must be finished.
    os._exit(status)
