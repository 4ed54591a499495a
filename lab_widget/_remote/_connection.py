"""The kernel's pipe to a host's worker: one per host, shared by the runs there.

A :class:`Connection` starts the worker through its :class:`Host`'s command prefix and shakes
hands (:mod:`~lab_widget._remote._handshake`: a worker of another protocol, lab_widget version
or CLI pins is refused with :class:`~lab_widget.errors.WorkerVersionError`), then
multiplexes requests (futures by id), the runs' events (to each run's :class:`Sink`) and
forwarded TCP connections.

When the pipe drops (the transport exited: a killed ``ssh``, a network cut noticed by ssh's
keep-alives, a pod restart) the agents live on under tmux on the host. The connection starts
a new worker, with growing pauses, and every run re-adopts its agent there; requests that
are safe to repeat (``wait``, reads) are sent again, the others fail with
:class:`~lab_widget.errors.ConnectionLostError` (they may or may not have reached the agent).
A heartbeat (``ping`` every :data:`HEARTBEAT` s) notices a pipe that hangs without closing.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import socket
import subprocess
import threading
import time
import warnings
import weakref
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import IO, Any, Protocol

from ..errors import ConnectionLostError, HostUnreachableError, WorkerVersionError
from ._forward import Sockets
from ._handshake import HANDSHAKE_TIMEOUT, Lines, kill, start_worker
from ._protocol import decode, encode, error_from_json, warning_categories
from ._transports import Host

__all__ = ["HANDSHAKE_TIMEOUT", "HEARTBEAT", "Connection", "Sink", "connect"]

log = logging.getLogger(__name__)

HEARTBEAT = 15.0
"""Seconds between pings; a pipe that answers none for twice that is taken for dead."""

RECONNECT_PAUSES = (0.1, 0.3, 0.6, 1.0, 2.0, 4.0, 8.0, 15.0, 30.0)
"""Pauses between attempts to start a new worker after the pipe dropped (the last one
repeats)."""


class Sink(Protocol):
    """What a connection needs of a run it serves (the kernel-side proxy)."""

    def on_event(self, message: dict[str, Any]) -> None:
        """Apply one event (called on the connection's reader thread, in pipe order)."""

    def reattach(self, connection: Connection) -> None:
        """Re-adopt the run on a new worker (called once the pipe is back)."""

    def forward_target(self, to: str | None) -> tuple[str, int] | None:
        """Where a connection the agent opens on the host goes here: its scripted model
        (``to`` is ``None``), or the port ``to`` names (``"kernel:shell_port"``).
        """


@dataclass
class _Pending:
    apply: Callable[[Any], None] | None
    done: threading.Event = field(default_factory=threading.Event)
    value: Any = None
    error: Mapping[str, Any] | None = None
    warnings: list[dict[str, str]] = field(default_factory=list)
    dropped: bool = False


class Connection:
    """The pipe to one host's worker."""

    def __init__(self, host: Host) -> None:
        self.host = host
        self._lock = threading.Condition(threading.Lock())
        self._write_lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = None
        self._generation = 0
        # The generation whose runs are all adopted: requests for runs wait for it.
        self._usable = 0
        self._connected = False
        self._closed = False
        self._reconnecting = False
        self._ids = itertools.count(1)
        self._pending: dict[int, _Pending] = {}
        # Weak: a run nobody holds any more goes (its finalizer releases it on the host).
        self._sinks: weakref.WeakValueDictionary[str, Sink] = weakref.WeakValueDictionary()
        self._sockets = Sockets(self._write)
        self._stderr: deque[str] = deque(maxlen=40)
        self._last_error: Exception | None = None
        self.peer: dict[str, Any] = {}
        """The worker's ``hello`` (its host name, user, versions)."""
        self.reconnects = 0
        """How many times the pipe was re-established."""

    def __repr__(self) -> str:
        return f"<Connection {self.host.name} {'up' if self._connected else 'down'}>"

    # -- the pipe ----------------------------------------------------------------------

    def open(self) -> Connection:
        """Start the worker and shake hands; raises when the host cannot be reached."""
        generation = self._connect()
        with self._lock:
            self._usable = generation
        threading.Thread(target=self._heartbeat, name="lab-widget-heartbeat", daemon=True).start()
        return self

    @property
    def connected(self) -> bool:
        """Whether the pipe is up now."""
        return self._connected

    def _connect(self) -> int:
        started = start_worker(self.host, self._stderr)
        with self._lock:
            self._proc = started.proc
            self._generation += 1
            generation = self._generation
            self._connected = True
            self.peer = started.peer
            self._lock.notify_all()
        threading.Thread(
            target=self._read,
            args=(started.lines, generation, started.proc.stdout),
            name="lab-widget-worker-in",
            daemon=True,
        ).start()
        return generation

    def _write(self, message: Mapping[str, Any]) -> None:
        proc = self._proc
        if proc is None or proc.stdin is None:
            return
        with self._write_lock:
            try:
                proc.stdin.write(encode(message))
                proc.stdin.flush()
            except (OSError, ValueError):
                pass  # the reader sees the end of the pipe and reconnects

    def _read(self, lines: Lines, generation: int, stream: IO[bytes]) -> None:
        with stream:
            self._read_lines(lines)
        self._dropped(generation)

    def _read_lines(self, lines: Lines) -> None:
        for line in lines:
            try:
                message = decode(line)
            except Exception:
                log.warning("%s sent a line that is not a message: %r", self.host.name, line[:200])
                continue
            kind = message["kind"]
            try:
                if kind == "result":
                    self._on_result(message)
                elif kind == "event":
                    sink = self._sinks.get(str(message.get("run")))
                    if sink is not None:
                        sink.on_event(message)
                elif kind == "tcp":
                    self._on_tcp(message)
                elif kind == "refused":
                    log.warning("%s refused: %s", self.host.name, message.get("reason"))
            except Exception:
                log.exception("handling a message from %s failed", self.host.name)

    def _on_result(self, message: dict[str, Any]) -> None:
        with self._lock:
            pending = self._pending.pop(message.get("id"), None)  # type: ignore[arg-type]
        if pending is None:
            return  # a request that gave up waiting
        if message.get("ok"):
            pending.value = message.get("value")
            if pending.apply is not None:
                # On the reader thread: applied before any later event is.
                pending.apply(pending.value)
        else:
            pending.error = message.get("error") or {}
        pending.warnings = list(message.get("warnings") or [])
        pending.done.set()

    def _on_tcp(self, message: dict[str, Any]) -> None:
        if message.get("op") != "open":
            self._sockets.receive(message)
            return
        conn_id = message.get("conn")
        sink = self._sinks.get(str(message.get("run")))
        to = message.get("to")
        target = sink.forward_target(to if isinstance(to, str) else None) if sink else None
        if target is None or not isinstance(conn_id, int):
            self._write({"kind": "tcp", "op": "close", "conn": conn_id})
            return
        try:
            sock = socket.create_connection(target, timeout=10)
            sock.settimeout(None)
        except OSError:
            self._write({"kind": "tcp", "op": "close", "conn": conn_id})
            return
        self._sockets.add(conn_id, sock)

    def _dropped(self, generation: int) -> None:
        with self._lock:
            if generation != self._generation:
                return
            self._connected = False
            proc, self._proc = self._proc, None
            pending = list(self._pending.values())
            self._pending.clear()
            start = not self._closed and bool(self._sinks) and not self._reconnecting
            if start:
                self._reconnecting = True
            self._lock.notify_all()
        for item in pending:
            item.dropped = True
            item.done.set()
        self._sockets.close_all()
        if proc is not None:
            kill(proc)
        if not self._closed:
            log.warning("the connection to %s dropped", self.host.name)
        if start:
            threading.Thread(
                target=self._reconnect, name="lab-widget-reconnect", daemon=True
            ).start()

    def _reconnect(self) -> None:
        generation = 0
        try:
            for attempt in itertools.count():
                if self._closed:
                    return
                time.sleep(RECONNECT_PAUSES[min(attempt, len(RECONNECT_PAUSES) - 1)])
                try:
                    generation = self._connect()
                except (HostUnreachableError, WorkerVersionError) as exc:
                    self._last_error = exc
                    log.warning("reconnecting to %s: %s", self.host.name, exc)
                    continue
                self.reconnects += 1
                break
        finally:
            with self._lock:
                self._reconnecting = False
        # Every run is adopted by the new worker before any request for one goes out (a
        # wait sent again must find its run there).
        for sink in list(self._sinks.values()):
            sink.reattach(self)
        with self._lock:
            if self._generation == generation and self._connected:
                self._usable = generation
            self._lock.notify_all()

    def _heartbeat(self) -> None:
        while not self._closed:
            time.sleep(HEARTBEAT)
            if not self._connected or self._closed:
                continue
            proc = self._proc
            try:
                self.request("ping", timeout=2 * HEARTBEAT, wait_connected=False)
            except (ConnectionLostError, HostUnreachableError):
                if proc is not None and proc is self._proc:
                    log.warning("%s did not answer a ping: reconnecting", self.host.name)
                    kill(proc)  # its reader sees the end and reconnects

    def close(self) -> None:
        """Let the worker go (it exits; the agents live on under tmux)."""
        with self._lock:
            self._closed = True
            proc = self._proc
            self._lock.notify_all()
        if proc is not None and proc.stdin is not None:
            with contextlib.suppress(OSError):
                proc.stdin.close()
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                kill(proc)
        with _registry_lock:
            if _connections.get(self.host) is self:
                del _connections[self.host]

    # -- runs --------------------------------------------------------------------------

    def attach(self, run_id: str, sink: Sink) -> None:
        """Route ``run_id``'s events and forwarded connections to ``sink``."""
        with self._lock:
            self._sinks[run_id] = sink

    def detach(self, run_id: str) -> None:
        """Stop routing to ``run_id``; the last run to go closes the connection."""
        with self._lock:
            self._sinks.pop(run_id, None)
        self.close_if_idle()

    def release(self, run_id: str) -> None:
        """Tell the worker to stop following ``run_id`` (no answer awaited), and detach it."""
        if not self._closed:
            self._write({"kind": "request", "id": 0, "op": "release", "run": run_id, "args": {}})
            self.detach(run_id)

    def close_if_idle(self) -> None:
        """Close the connection when no run follows it any more."""
        with self._lock:
            idle = not self._sinks and not self._pending
        if idle:
            self.close()

    # -- requests ----------------------------------------------------------------------

    def _wait_connected(self, deadline: float | None) -> None:
        with self._lock:
            while not (self._connected and self._usable == self._generation):
                if self._closed:
                    raise HostUnreachableError(f"the connection to {self.host.name} is closed")
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    said = f": {self._last_error}" if self._last_error else ""
                    raise HostUnreachableError(f"{self.host.name} is not reachable{said}")
                self._lock.wait(1.0 if left is None else min(left, 1.0))

    def request(
        self,
        op: str,
        run: str | None = None,
        args: Mapping[str, Any] | Callable[[float | None], Mapping[str, Any]] | None = None,
        *,
        timeout: float | None = 60.0,
        retry: bool = False,
        apply: Callable[[Any], None] | None = None,
        wait_connected: bool = True,
    ) -> Any:
        """Send one request and return its value (its error raised as the worker raised it,
        its warnings warned here).

        Parameters
        ----------
        op, run, args
            The operation, the run it is for and its arguments; ``args`` may be a function
            of the seconds left (a wait sent again after a reconnect waits only that long).
        timeout
            Seconds to wait for the result (``None``: as long as it takes).
        retry
            Whether the request is safe to send again after a reconnect; if not, a dropped
            pipe raises :class:`~lab_widget.errors.ConnectionLostError`.
        apply
            Called with the value on the reader thread, before any later event is handled.
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            if wait_connected:
                self._wait_connected(deadline)
            elif not self._connected:
                raise ConnectionLostError(f"the connection to {self.host.name} is down")
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            pending = _Pending(apply)
            with self._lock:
                request_id = next(self._ids)
                self._pending[request_id] = pending
            payload = args(left) if callable(args) else (args or {})
            self._write(
                {"kind": "request", "id": request_id, "op": op, "run": run, "args": payload}
            )
            if not pending.done.wait(left):
                with self._lock:
                    self._pending.pop(request_id, None)
                raise HostUnreachableError(
                    f"no answer from the worker on {self.host.name} to {op!r} after {timeout:g} s"
                )
            if pending.dropped:
                if retry and not self._closed:
                    continue
                raise ConnectionLostError(
                    f"the connection to {self.host.name} dropped during {op!r}: it may or may "
                    "not have reached the agent; the run is being re-adopted"
                )
            categories = warning_categories()
            for warning in pending.warnings:
                category = categories.get(warning.get("category", ""), UserWarning)
                warnings.warn(str(warning.get("message")), category, stacklevel=3)
            if pending.error is not None:
                raise error_from_json(pending.error, self.host.name)
            return pending.value


_registry_lock = threading.Lock()
_connections: dict[Host, Connection] = {}


def connect(host: Host) -> Connection:
    """The open connection to ``host`` (started on first use, shared after)."""
    with _registry_lock:
        found = _connections.get(host)
        if found is not None and not found._closed:
            return found
        connection = Connection(host).open()
        _connections[host] = connection
        return connection
