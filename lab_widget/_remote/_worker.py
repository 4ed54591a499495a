"""The worker: ``python -m lab_widget worker`` on the agent's host.

It runs today's run machinery unchanged (a :class:`~lab_widget.Run` per run: tmux, the
reader, the tailer, live signals) and speaks :mod:`~lab_widget._remote._protocol` on its
stdio. It owns nothing that must outlive it: when the pipe closes it lets go of its runs
and exits, and tmux keeps the agents alive for the next worker to adopt. What it tells the
kernel about each run is :mod:`~lab_widget._remote._hosted`'s; the requests on one run it
serves are :mod:`~lab_widget._remote._operations`'.

The protocol owns stdout: the worker moves the pipe to descriptors of its own that no child
inherits (a long-lived tmux server holding the pipe would keep the connection open after
the worker is gone), and points 0 at ``/dev/null`` and 1 at stderr, so nothing a library
prints can corrupt a line.
"""

from __future__ import annotations

import argparse
import getpass
import importlib
import json
import logging
import os
import queue
import socket
import sys
import threading
import warnings
from pathlib import Path
from typing import IO, Any, TextIO

from .._home import runtime_dir
from .._run._launch import runner as _runner
from .._run._registry import live_records
from .._run._run import Run
from .._run._runs import adopt
from .._workspace._sandbox import Sandbox
from .._workspace._seed import Seed
from ..errors import LabWidgetError, RemoteError, RunNotFoundError
from ..provider import Endpoint, get_provider, register
from ._forward import KERNEL_PORTS, KERNEL_PREFIX, Listener, Sockets
from ._hosted import Hosted
from ._operations import OPERATIONS
from ._protocol import decode, encode, error_json, hello, mismatch

__all__ = ["Worker", "main"]

log = logging.getLogger(__name__)

_SENT = object()  # a handler that wrote its own result (under its run's lock)


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
        self._runs: dict[str, Hosted] = {}
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
            item.let_go()
        self._sockets.close_all()
        self._queue.put(None)
        self._writer.join(timeout=5)
        return status

    # -- requests ----------------------------------------------------------------------

    def _handle(self, message: dict[str, Any]) -> None:
        request_id = message.get("id")
        op = str(message.get("op"))
        run_id = message.get("run")
        args = message.get("args") or {}
        self._local.warnings = []
        try:
            handler = getattr(self, f"_op_{op}", None)
            if handler is not None:
                value = handler(request_id, run_id, args)
            elif op in OPERATIONS:
                value = OPERATIONS[op](self._hosted(run_id), args)
            else:
                raise RemoteError(f"the worker has no operation {op!r}")
            if value is _SENT:
                return
            self.send(self._result(request_id, value))
        except BaseException as exc:
            if not isinstance(exc, LabWidgetError):
                log.exception("request %s failed", op)
            self.send(self._result(request_id, error=error_json(exc)))

    def _result(
        self, request_id: object, value: object = None, *, error: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        outcome = {"ok": True, "value": value} if error is None else {"ok": False, "error": error}
        warned = list(getattr(self._local, "warnings", []))
        return {"kind": "result", "id": request_id, **outcome, "warnings": warned}

    def note_warning(self, category: type[Warning], message: str) -> bool:
        """Keep a warning for the result of the request this thread serves."""
        found: list[dict[str, str]] | None = getattr(self._local, "warnings", None)
        if found is None:
            return False
        found.append({"category": category.__name__, "message": message})
        return True

    def _hosted(self, run_id: object) -> Hosted:
        with self._lock:
            hosted = self._runs.get(str(run_id))
        if hosted is None:
            raise RunNotFoundError(f"this worker serves no run {run_id!r}; adopt it first")
        return hosted

    def _snapshot_reply(self, request_id: object, hosted: Hosted, follow: bool) -> object:
        hosted.snapshot(lambda value: self.send(self._result(request_id, value)), follow=follow)
        return _SENT

    # -- what the worker serves (the requests on one run are in _operations) ----------

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
        kernel_json = args.get("kernel")
        kernel_listeners: list[Listener] = []
        kernel: Path | bool = False
        if isinstance(kernel_json, dict):
            kernel, kernel_listeners = self._kernel_here(str(run_id), kernel_json)
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
                kernel=kernel,
                **dict(args.get("options") or {}),
            )
        except BaseException:
            for opened in [listener, *kernel_listeners]:
                if opened is not None:
                    opened.close()
            if isinstance(kernel, Path):
                kernel.unlink(missing_ok=True)  # the kernel's key stays nowhere unused
            raise
        hosted = Hosted(run, self.send, listener, kernel_listeners)
        with self._lock:
            self._runs[run.id] = hosted
        return self._snapshot_reply(request_id, hosted, follow=True)

    def _kernel_here(self, run_id: str, kernel: dict[str, Any]) -> tuple[Path, list[Listener]]:
        """The kernel's tools for ``run_id``: a port here for each of the kernel's, and a
        connection file naming them, as the tools' server reads one (only its owner reads it:
        the key lets it run code in the kernel).
        """
        ports = kernel.get("ports")
        if not isinstance(ports, dict) or set(ports) != set(KERNEL_PORTS):
            raise RemoteError(f"a kernel's connection names the ports {', '.join(KERNEL_PORTS)}")
        listeners = [
            Listener(run_id, self._sockets, self.send, to=f"{KERNEL_PREFIX}{name}")
            for name in KERNEL_PORTS
        ]
        connection = {
            **{name: listener.port for name, listener in zip(KERNEL_PORTS, listeners, strict=True)},
            "ip": "127.0.0.1",
            "transport": "tcp",
            "key": str(kernel.get("key") or ""),
            "signature_scheme": str(kernel.get("signature_scheme") or "hmac-sha256"),
            "kernel_name": "",
        }
        folder = runtime_dir(run_id)
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        path = folder / "kernel-connection.json"
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as out:
            json.dump(connection, out)
        return path, listeners

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
            # The tools' server was configured with these: listen on them again.
            ports = args.get("kernel_ports")
            kernel_listeners = [
                Listener(record.run_id, self._sockets, self.send, port=p, to=KERNEL_PREFIX + name)
                for name, p in (ports.items() if isinstance(ports, dict) else ())
                if name in KERNEL_PORTS and isinstance(p, int)
            ]
            hosted = Hosted(adopt(record, terminal), self.send, listener, kernel_listeners)
            with self._lock:
                self._runs[record.run_id] = hosted
        return self._snapshot_reply(request_id, hosted, follow=True)

    def _op_messages(self, request_id: object, run_id: object, _args: dict[str, Any]) -> object:
        return self._snapshot_reply(request_id, self._hosted(run_id), follow=False)

    def _op_release(self, _id: object, run_id: object, _args: dict[str, Any]) -> None:
        with self._lock:
            hosted = self._runs.pop(str(run_id), None)
        if hosted is not None:
            hosted.let_go()

    def _op_stop(self, _id: object, run_id: object, args: dict[str, Any]) -> None:
        hosted = self._hosted(run_id)
        try:
            hosted.run.stop(bool(args.get("cleanup")), discard=bool(args.get("discard")))
        finally:
            with self._lock:
                self._runs.pop(hosted.run.id, None)
            hosted.let_go()


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
