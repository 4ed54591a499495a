"""TCP connections carried inside the worker's pipe: how the agent on the host reaches a
scripted model that lives in the kernel.

On the host, the worker listens on the loopback (:class:`Listener`), one port per run; each
connection the agent opens there becomes ``{"kind": "tcp", "op": "open", "conn", "run"}``
on the pipe, and the kernel connects it to the model's own address. A run given this
kernel's tools (``kernel_host=``) has a port for each of the kernel's own (shell, iopub,
stdin, control, heartbeat), whose ``open`` names it in ``to`` (``"kernel:shell_port"``).
Bytes go both ways as ``data`` (base64), a side that finished sending says ``eof`` (the other
half-closes its socket), and ``close`` aborts. Nothing listens anywhere but on the host's
loopback, and the pipe is the transport's own (ssh's authenticated channel, kubectl's exec
stream).

Both ends keep their sockets in a :class:`Sockets` table keyed by the connection id.
"""

from __future__ import annotations

import base64
import contextlib
import errno
import itertools
import logging
import socket
import threading
import time
from collections.abc import Callable
from typing import Any

__all__ = ["KERNEL_PORTS", "KERNEL_PREFIX", "Listener", "Sockets"]

log = logging.getLogger(__name__)

Send = Callable[[dict[str, Any]], None]

_CHUNK = 64 * 1024

KERNEL_PORTS = ("shell_port", "iopub_port", "stdin_port", "control_port", "hb_port")
"""A Jupyter kernel's ports, as its connection file names them; every connection to each is
opened by the client (the tools' server), so each goes through the pipe as the model's do."""
KERNEL_PREFIX = "kernel:"
"""Starts the ``to`` of a connection for one of the kernel's ports."""

REBIND_WAIT = 15.0
"""Seconds a re-adopting worker keeps trying to listen on its run's old port (the worker
that held it may still be going away)."""


class _Conn:
    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.sent_eof = False
        self.got_eof = False


class Sockets:
    """The forwarded connections of one end of a pipe, by connection id."""

    def __init__(self, send: Send) -> None:
        self._send = send
        self._lock = threading.Lock()
        self._conns: dict[int, _Conn] = {}

    def add(self, conn_id: int, sock: socket.socket) -> None:
        """Carry ``sock``'s bytes into the pipe as connection ``conn_id``."""
        with self._lock:
            self._conns[conn_id] = _Conn(sock)
        thread = threading.Thread(
            target=self._pump, args=(conn_id, sock), name=f"lab-widget-tcp-{conn_id}", daemon=True
        )
        thread.start()

    def _pump(self, conn_id: int, sock: socket.socket) -> None:
        try:
            while chunk := sock.recv(_CHUNK):
                data = base64.b64encode(chunk).decode("ascii")
                self._send({"kind": "tcp", "op": "data", "conn": conn_id, "data": data})
        except OSError:
            self._send({"kind": "tcp", "op": "close", "conn": conn_id})
            self._drop(conn_id)
            return
        self._send({"kind": "tcp", "op": "eof", "conn": conn_id})
        with self._lock:
            conn = self._conns.get(conn_id)
            if conn is None:
                return
            conn.sent_eof = True
            done = conn.got_eof
        if done:
            self._drop(conn_id)

    def receive(self, message: dict[str, Any]) -> None:
        """Play a ``tcp`` message from the other end onto the local socket."""
        conn_id = message.get("conn")
        with self._lock:
            conn = self._conns.get(conn_id) if isinstance(conn_id, int) else None
        if conn is None or not isinstance(conn_id, int):
            return
        op = message.get("op")
        if op == "data":
            try:
                conn.sock.sendall(base64.b64decode(str(message.get("data", ""))))
            except OSError:
                self._send({"kind": "tcp", "op": "close", "conn": conn_id})
                self._drop(conn_id)
        elif op == "eof":
            with contextlib.suppress(OSError):
                conn.sock.shutdown(socket.SHUT_WR)
            with self._lock:
                conn.got_eof = True
                done = conn.sent_eof
            if done:
                self._drop(conn_id)
        elif op == "close":
            self._drop(conn_id)

    def _drop(self, conn_id: int) -> None:
        with self._lock:
            conn = self._conns.pop(conn_id, None)
        if conn is not None:
            with contextlib.suppress(OSError):
                conn.sock.close()

    def close_all(self) -> None:
        """Abort every connection (the pipe is gone)."""
        with self._lock:
            ids = list(self._conns)
        for conn_id in ids:
            self._drop(conn_id)


_ids = itertools.count(1)


class Listener:
    """A run's loopback port on the host; each connection to it is forwarded.

    Parameters
    ----------
    run_id
        The run whose agent connects here (named in each ``open``).
    sockets
        The worker's table of forwarded connections.
    send
        Writes a message into the pipe.
    port
        The port to listen on (a re-adopted run keeps the one its agent was configured
        with); ``None`` picks a free one.
    to
        What the kernel connects these connections to, named in each ``open`` (``None``:
        the run's scripted model).
    """

    def __init__(
        self,
        run_id: str,
        sockets: Sockets,
        send: Send,
        port: int | None = None,
        to: str | None = None,
    ) -> None:
        self.run_id = run_id
        self.to = to
        self._sockets = sockets
        self._send = send
        self._server = self._bind(port)
        self.port: int = self._server.getsockname()[1]
        self._thread = threading.Thread(
            target=self._accept, name=f"lab-widget-forward-{run_id}", daemon=True
        )
        self._thread.start()

    @staticmethod
    def _bind(port: int | None) -> socket.socket:
        deadline = time.monotonic() + REBIND_WAIT
        while True:
            server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                server.bind(("127.0.0.1", port or 0))
            except OSError as exc:
                server.close()
                if exc.errno != errno.EADDRINUSE or time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
                continue
            server.listen(16)
            return server

    def _accept(self) -> None:
        while True:
            try:
                sock, _ = self._server.accept()
            except OSError:
                return  # closed
            conn_id = next(_ids)
            opened: dict[str, Any] = {"kind": "tcp", "op": "open", "conn": conn_id}
            opened["run"] = self.run_id
            if self.to is not None:
                opened["to"] = self.to
            self._send(opened)
            self._sockets.add(conn_id, sock)

    def close(self) -> None:
        """Stop listening (connections already open stay until they end)."""
        with contextlib.suppress(OSError):
            self._server.shutdown(socket.SHUT_RDWR)
        with contextlib.suppress(OSError):
            self._server.close()
