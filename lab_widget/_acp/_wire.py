"""The client side of one ACP connection: the agent's process, a guard on its stdout, the
official SDK's connection over it, and the handshake.

The guard reads the agent's stdout line by line before the SDK does: a line that is not a
JSON-RPC message (a log line, a banner, broken JSON) becomes a warning and is dropped, so
the SDK only ever sees messages; a response to an id never sent is a warning too. Both go
to ``warn``, which the host writes to its log.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from acp import PROTOCOL_VERSION, RequestError
from acp.client.connection import ClientSideConnection
from acp.connection import StreamDirection, StreamEvent
from acp.schema import (
    ClientCapabilities,
    ElicitationCapabilities,
    ElicitationFormCapabilities,
    FileSystemCapabilities,
    Implementation,
    InitializeResponse,
)

from .._version import __version__
from ..errors import AcpHandshakeError

__all__ = ["LINE_LIMIT", "Refusing", "Wire", "handshake", "spawn"]

LINE_LIMIT = 64 * 1024 * 1024
"""The longest line taken from an agent (a huge update is read whole, not cut)."""

STDERR_TAIL = 40
"""Lines of the agent's stderr kept for the ended run's message."""

Warn = Callable[[str], None]


def _shorten(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


def classify(line: bytes) -> tuple[dict[str, Any] | None, str | None]:
    """A line of the agent's stdout as a JSON-RPC message, or why it is not one.

    Examples
    --------
    >>> classify(b'{"jsonrpc": "2.0", "id": 1, "result": {}}')[0]["id"]
    1
    >>> classify(b"Starting server...")[1]
    "the agent wrote a line that is not JSON-RPC: 'Starting server...'"
    >>> classify(b'[1, 2]')[1]
    'the agent wrote JSON that is not a JSON-RPC message: [1, 2]'
    >>> classify(b"   ")
    (None, None)
    """
    text = line.decode("utf-8", "replace").strip()
    if not text:
        return None, None
    try:
        message = json.loads(text)
    except ValueError:
        return None, f"the agent wrote a line that is not JSON-RPC: {_shorten(text)!r}"
    if not isinstance(message, dict) or not ("method" in message or "id" in message):
        return None, f"the agent wrote JSON that is not a JSON-RPC message: {_shorten(text)}"
    return message, None


@dataclass
class Wire:
    """One agent process and the SDK connection to it."""

    process: asyncio.subprocess.Process
    connection: ClientSideConnection
    stderr_tail: deque[str]
    pumps: list[asyncio.Task[None]]

    def signal_all(self, signum: int) -> None:
        """Signal the agent and every process it started (its own process group)."""
        try:
            os.killpg(self.process.pid, signum)
        except ProcessLookupError:
            pass  # all gone already

    async def exited(self, timeout: float | None = None) -> int | None:
        """The agent's exit code once it has exited (``None`` after ``timeout``).

        Polled, not awaited from the transport: a child the agent started may hold its
        stdout open long after the agent itself is gone.
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.process.returncode is None:
            if deadline is not None and time.monotonic() > deadline:
                return None
            await asyncio.sleep(0.05)
        return self.process.returncode

    async def close(self) -> None:
        """End the agent and whatever it started: SIGTERM, then SIGKILL after 5 s."""
        for task in self.pumps:
            task.cancel()
        await self.connection.close()
        if self.process.returncode is None:
            self.signal_all(signal.SIGTERM)
            if await self.exited(5) is None:
                self.signal_all(signal.SIGKILL)
                await self.exited(5)
        self.signal_all(signal.SIGKILL)  # an orphan the agent left behind


async def _guard(
    source: asyncio.StreamReader, sink: asyncio.StreamReader, sent: set[Any], warn: Warn
) -> None:
    # Only whole JSON-RPC messages reach the SDK; everything else is said, never lost.
    while True:
        try:
            line = await source.readuntil(b"\n")
        except asyncio.IncompleteReadError as end:
            line = end.partial
            if line:
                _pass(line, sink, sent, warn)
            sink.feed_eof()
            return
        except asyncio.LimitOverrunError:
            warn(f"the agent wrote a line longer than {LINE_LIMIT} bytes; it was dropped")
            await source.read(LINE_LIMIT)
            continue
        _pass(line, sink, sent, warn)


def _pass(line: bytes, sink: asyncio.StreamReader, sent: set[Any], warn: Warn) -> None:
    message, problem = classify(line)
    if problem is not None:
        warn(problem)
        return
    if message is None:
        return
    if "method" not in message and message.get("id") not in sent:
        warn(f"the agent answered a request never sent (id {message.get('id')!r}); ignored")
        return
    sink.feed_data(line if line.endswith(b"\n") else line + b"\n")


async def _keep_tail(stream: asyncio.StreamReader, tail: deque[str], echo: bool) -> None:
    while True:
        line = await stream.readline()
        if not line:
            return
        text = line.decode("utf-8", "replace").rstrip("\n")
        tail.append(text)
        if echo:
            print(text, flush=True)  # the pane shows the agent's stderr as it comes


async def spawn(
    command: Sequence[str],
    client: Callable[[Any], Any],
    *,
    env: Mapping[str, str] | None,
    cwd: str,
    warn: Warn,
    observe: Callable[[StreamEvent], None] | None = None,
    echo_stderr: bool = False,
) -> Wire:
    """Start the agent and connect the SDK's client connection to it; ``client`` builds
    the object the agent calls back (the SDK's ``Client`` methods it offers).

    The agent gets a session of its own, so an interrupt pressed in the host's pane (which
    the host turns into ``session/cancel``) never reaches it as a signal.
    """
    process = await asyncio.create_subprocess_exec(
        *command,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={**os.environ, **(env or {})},
        cwd=cwd,
        start_new_session=True,
        limit=LINE_LIMIT,
    )
    assert process.stdout and process.stdin and process.stderr
    sent: set[Any] = set()
    sink = asyncio.StreamReader(limit=LINE_LIMIT)
    tail: deque[str] = deque(maxlen=STDERR_TAIL)

    def watch(event: StreamEvent) -> None:
        message = event.message
        if event.direction is StreamDirection.OUTGOING and "method" in message:
            sent.add(message.get("id"))
        if observe is not None:
            observe(event)

    # Form elicitation is stable in the protocol (2026-07), still flagged unstable by this SDK.
    connection = ClientSideConnection(
        client, process.stdin, sink, observers=[watch], use_unstable_protocol=True
    )
    pumps = [
        asyncio.create_task(_guard(process.stdout, sink, sent, warn)),
        asyncio.create_task(_keep_tail(process.stderr, tail, echo_stderr)),
    ]
    return Wire(process, connection, tail, pumps)


async def handshake(
    wire: Wire, command: Sequence[str], timeout: float
) -> tuple[InitializeResponse, float]:
    """``initialize``, advertising what this client offers; returns the answer and its
    round trip in seconds.

    Raises :class:`~lab_widget.errors.AcpHandshakeError`, naming the command, when the agent
    exits, fails or stays silent for ``timeout`` seconds.
    """
    started = time.perf_counter()
    request = wire.connection.initialize(
        protocol_version=PROTOCOL_VERSION,
        client_capabilities=ClientCapabilities(
            fs=FileSystemCapabilities(read_text_file=False, write_text_file=False),
            terminal=False,
            # Form elicitation: the agent's questions (Claude's AskUserQuestion) reach the chat.
            elicitation=ElicitationCapabilities(form=ElicitationFormCapabilities()),
        ),
        client_info=Implementation(name="lab_widget", title="lab_widget", version=__version__),
    )
    shown = " ".join(command)
    try:
        answer = await asyncio.wait_for(request, timeout)
    except TimeoutError:
        raise AcpHandshakeError(
            f"the ACP agent `{shown}` did not answer initialize within {timeout:g} s"
        ) from None
    except Exception as exc:
        said = "\n".join(wire.stderr_tail)
        raise AcpHandshakeError(
            f"the ACP agent `{shown}` failed initialize: {exc}" + (f"\n{said}" if said else "")
        ) from exc
    return answer, time.perf_counter() - started


class Refusing:
    """An ACP client that offers only the methods it defines: any other call of the agent's
    (files, terminals, elicitation where not defined) is answered "method not found", and
    :meth:`refused` hears of it.
    """

    def on_connect(self, conn: Any) -> None:
        return None

    def refused(self, name: str) -> None:
        """The agent called ``name``, which this client does not offer."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)

        async def refuse(*args: Any, **kwargs: Any) -> Any:
            self.refused(name)
            raise RequestError.method_not_found(name)

        return refuse
