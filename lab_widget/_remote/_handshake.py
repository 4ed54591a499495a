"""Starting a host's worker through its transport, and the version handshake.

:func:`start_worker` runs the :class:`~._transports.Host`'s command, waits (with a deadline)
for the worker's ``hello``, refuses a worker of another protocol, lab_widget version or CLI
pins with :class:`~lab_widget.errors.WorkerVersionError`, and answers with the kernel's own.
What the worker says on stderr is kept for the error that explains a failed start.
"""

from __future__ import annotations

import contextlib
import logging
import os
import select
import subprocess
import threading
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, Any

from ..errors import HostUnreachableError, WorkerVersionError
from ._protocol import decode, encode, hello, mismatch
from ._transports import Host

__all__ = ["HANDSHAKE_TIMEOUT", "Lines", "Started", "kill", "start_worker"]

log = logging.getLogger(__name__)

HANDSHAKE_TIMEOUT = 60.0
"""Seconds for the worker's ``hello`` (the transport's connection, Python's start-up)."""

STDERR_DRAIN = 2.0
"""Seconds a failed start waits for the rest of the worker's stderr."""


class Lines:
    """Lines from a raw pipe, read with ``os.read`` so a first line can have a deadline."""

    def __init__(self, stream: IO[bytes]) -> None:
        self._fd = stream.fileno()
        self._buffer = b""

    def read(self, deadline: float | None = None) -> bytes | None:
        """The next line; ``b""`` at the end of the pipe, ``None`` when the deadline passed."""
        while b"\n" not in self._buffer:
            if deadline is not None:
                left = deadline - time.monotonic()
                if left <= 0 or not select.select([self._fd], [], [], left)[0]:
                    return None
            try:
                chunk = os.read(self._fd, 1 << 16)
            except OSError:
                chunk = b""
            if not chunk:
                return b""
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line + b"\n"

    def __iter__(self) -> Iterator[bytes]:
        while line := self.read():
            yield line


def kill(proc: subprocess.Popen[bytes]) -> None:
    """End a worker's transport process and close the pipe's end that writes to it."""
    with contextlib.suppress(OSError):
        proc.kill()
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=5)
    if proc.stdin is not None:
        with contextlib.suppress(OSError):
            proc.stdin.close()


def _abandon(proc: subprocess.Popen[bytes]) -> None:
    # A start that failed: nothing reads the worker's stdout any more.
    kill(proc)
    if proc.stdout is not None:
        proc.stdout.close()


@dataclass
class Started:
    """A worker that shook hands: its process, the lines it sends, and its ``hello``."""

    proc: subprocess.Popen[bytes]
    lines: Lines
    peer: dict[str, Any]


def _keep_stderr(host: Host, stream: IO[bytes], said: deque[str]) -> None:
    with stream:
        for raw in iter(stream.readline, b""):
            line = raw.decode(errors="replace").rstrip()
            said.append(line)
            log.debug("%s: %s", host.name, line)


def start_worker(host: Host, said: deque[str]) -> Started:
    """Start ``host``'s worker and shake hands; its stderr lines go to ``said``.

    Raises :class:`~lab_widget.errors.HostUnreachableError` when the transport cannot run or
    the worker does not answer, :class:`~lab_widget.errors.WorkerVersionError` when it is of
    another version.
    """
    try:
        proc = subprocess.Popen(
            host.worker_argv(),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=host.process_env(),
            bufsize=0,
            # Its own session: an interrupt sent to the kernel's process group must not
            # reach the transport.
            start_new_session=True,
        )
    except OSError as exc:
        raise HostUnreachableError(f"could not run the transport for {host.name}: {exc}") from exc
    assert proc.stdout is not None and proc.stderr is not None and proc.stdin is not None
    said.clear()
    errors = threading.Thread(
        target=_keep_stderr, args=(host, proc.stderr, said), name="lab-widget-worker-err"
    )
    errors.daemon = True
    errors.start()
    lines = Lines(proc.stdout)
    first = lines.read(time.monotonic() + HANDSHAKE_TIMEOUT)
    mine = hello()
    if not first:
        _abandon(proc)
        # Its stdout can end before its last words on stderr are read: let the reader
        # drain them (bounded, since a transport's own children may hold the pipe open).
        errors.join(STDERR_DRAIN)
        text = "\n".join(said).strip()
        why = "no answer" if first is None else "the worker ended"
        raise HostUnreachableError(
            f"could not start the worker on {host.name} ({why})" + (f":\n{text}" if text else "")
        )
    theirs = decode(first)
    problems = mismatch(mine, theirs)
    if problems:
        _abandon(proc)
        raise WorkerVersionError(
            f"the worker on {host.name} does not match this kernel: "
            + "; ".join(problems)
            + ". Install the same lab_widget (and its pinned CLIs) on both sides."
        )
    try:
        proc.stdin.write(encode(mine))
        proc.stdin.flush()
    except OSError as exc:
        _abandon(proc)
        raise HostUnreachableError(f"the worker on {host.name} went away: {exc}") from exc
    return Started(proc, lines, theirs)
