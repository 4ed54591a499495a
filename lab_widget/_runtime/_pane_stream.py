"""The live screen of a run's tmux pane, for the terminal view: one control-mode client.

A :class:`PaneStream` attaches a tmux control-mode client (``tmux -C attach-session``) to
the run's session while someone watches, and only then. tmux pushes the pane's output to
it as ``%output`` notifications, in order with the replies to the client's own commands,
so the stream needs no polling: a reader thread blocks on the client's stdout. The client
also carries the view's size (``refresh-client -C``), the first screen (``capture-pane``
with the cursor and the terminal modes, replied in band, so it sits at an exact point of
the output) and the keys typed when the user takes over (``send-keys -H``).

When the stream closes, its client detaches and the window goes back to the session's own
size. tmux does that itself, by a ``client-detached`` hook set while the stream is open, so
it also happens when the kernel dies with the client.

This is a view, never a source: the chat brain reads the transcript and the live signals
only (``tests/unit/test_architecture.py`` checks that nothing of it imports this module).
"""

from __future__ import annotations

import logging
import os
import subprocess
import threading
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from typing import Protocol

from ..errors import RunEndedError, TmuxError
from ._control import (
    ControlEvent,
    ControlParser,
    Exit,
    Notification,
    Output,
    Reply,
    layout_size,
)
from ._screen import MODES_FORMAT, SCROLLBACK, Screen, clamp_size
from ._tmux import TmuxTerminal, input_commands

__all__ = ["ControlClient", "PaneStream", "StreamListener"]

log = logging.getLogger(__name__)

ATTACH_TIMEOUT = 10.0
"""Seconds a control client may take to attach."""


class ControlClient:
    """One tmux control-mode client: commands in, an ordered stream of events out.

    ``on_event`` is called on the client's reader thread for every event in stream order
    (replies to this client's commands too, before their futures are set), and with
    ``None`` after each read's events. The reader blocks on the client's stdout; nothing
    polls.
    """

    def __init__(self, argv: list[str], on_event: Callable[[ControlEvent | None], None]) -> None:
        self._argv = argv
        self._on_event = on_event
        self._parser = ControlParser()
        self._lock = threading.Lock()
        self._waiting: deque[Future[Reply]] = deque()
        self._attached = threading.Event()
        self._ended = threading.Event()
        self._settled = threading.Event()
        """Set once the client is attached or has ended, whichever comes first."""
        self.exit_reason = ""
        self._proc: subprocess.Popen[bytes] | None = None
        self._reader: threading.Thread | None = None

    def start(self, timeout: float = ATTACH_TIMEOUT) -> None:
        """Start the client and wait until it is attached.

        tmux 3.3a refuses commands sent before that ("no current client").
        """
        # Its own session: an interrupt sent to the kernel's process group (Jupyter does
        # that) must not end the viewer's client.
        self._proc = subprocess.Popen(
            self._argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        self._reader = threading.Thread(target=self._read, name="lab-widget-terminal", daemon=True)
        self._reader.start()
        self._settled.wait(timeout)
        if not self._attached.is_set():
            self.close()
            why = self.exit_reason or "it did not attach"
            raise TmuxError(f"could not watch the agent's terminal: {why}")

    @property
    def running(self) -> bool:
        """Whether the client is attached and has not exited."""
        return self._attached.is_set() and not self._ended.is_set()

    def command(self, line: str) -> Future[Reply]:
        """Send one command (a line holding a single command); its future gets the reply."""
        return self.commands([line])[-1]

    def commands(self, lines: list[str]) -> list[Future[Reply]]:
        """Send commands, one per line, in one write; one future per command.

        Replies are matched to commands in order, so a line must hold exactly one command.
        """
        futures: list[Future[Reply]] = [Future() for _ in lines]
        with self._lock:
            proc = self._proc
            if proc is None or proc.stdin is None or self._ended.is_set():
                for f in futures:
                    f.set_exception(RunEndedError("the terminal stream has ended"))
                return futures
            self._waiting.extend(futures)
            try:
                proc.stdin.write("".join(f"{line}\n" for line in lines).encode())
                proc.stdin.flush()
            except (BrokenPipeError, OSError, ValueError):
                for f in futures:
                    self._waiting.remove(f)
                    f.set_exception(RunEndedError("the terminal stream has ended"))
        return futures

    def close(self, timeout: float = 2.0) -> None:
        """Detach (closing stdin makes tmux detach the client) and wait for the reader.

        A command write that blocks (tmux stopped reading while its own output waits) holds
        the lock; then the client is killed instead, which also ends the blocked write.
        """
        proc = self._proc
        if proc is None:
            return
        if self._lock.acquire(timeout=timeout):
            try:
                if proc.stdin is not None and not proc.stdin.closed:
                    try:
                        proc.stdin.close()
                    except OSError:
                        pass
            finally:
                self._lock.release()
        else:
            proc.kill()
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout)
        reader = self._reader
        if reader is not None and reader is not threading.current_thread():
            reader.join(timeout)

    # -- the reader thread -------------------------------------------------------------

    def _read(self) -> None:
        proc = self._proc
        assert proc is not None and proc.stdout is not None
        fd = proc.stdout.fileno()
        try:
            while True:
                chunk = os.read(fd, 65536)
                if not chunk:
                    break
                for event in self._parser.feed(chunk):
                    self._dispatch(event)
                self._dispatch(None)  # the end of one read: a moment to flush
        except OSError:
            pass
        finally:
            self._ended.set()
            self._settled.set()
            with self._lock:
                waiting, self._waiting = list(self._waiting), deque()
            for f in waiting:
                f.set_exception(RunEndedError("the terminal stream has ended"))
            proc.stdout.close()

    def _dispatch(self, event: ControlEvent | None) -> None:
        # The listener hears of a reply before the reply's future is set, so what a
        # future's callback sends goes after everything that came before it.
        if isinstance(event, Notification) and event.name == "session-changed":
            self._attached.set()
            self._settled.set()
        elif isinstance(event, Exit):
            self.exit_reason = event.reason
        try:
            self._on_event(event)
        except Exception:  # a broken listener must not stop the stream
            log.exception("a terminal stream listener failed")
        if isinstance(event, Reply) and event.from_client:
            with self._lock:
                future = self._waiting.popleft() if self._waiting else None
            if future is not None:
                future.set_result(event)


class StreamListener(Protocol):
    """What a stream tells its owner; called on the stream's reader thread, in order."""

    def on_screen(self, tag: object, screen: Screen) -> None:
        """A screen asked for with ``request_screen(tag)``; output after it follows it."""

    def on_output(self, data: bytes) -> None:
        """Bytes the agent wrote to its terminal."""

    def on_size(self, cols: int, rows: int) -> None:
        """The pane's size changed (to the view's, or to another client's)."""

    def on_end(self, reason: str) -> None:
        """The stream ended: the session went, or the client was closed."""


class PaneStream:
    """A run's pane as a stream: first screens, live output, size and keys, while open.

    Parameters
    ----------
    terminal
        The run's tmux session.
    listener
        Gets screens, output, sizes and the end, on the stream's reader thread.
    """

    def __init__(self, terminal: TmuxTerminal, listener: StreamListener) -> None:
        self.terminal = terminal
        self._listener = listener
        self._client: ControlClient | None = None
        self._pane = ""
        self._own_size: tuple[int, int] | None = None
        self._size: tuple[int, int] | None = None
        self._last: Future[Reply] | None = None
        self._lock = threading.Lock()
        self._closing = False
        self._pending: list[bytes] = []

    @property
    def open(self) -> bool:
        """Whether the control client is attached."""
        return self._client is not None and self._client.running

    def start(self, cols: int, rows: int) -> None:
        """Attach, give the pane the view's size, and start streaming.

        Raises :class:`~lab_widget.errors.RunEndedError` when the session is gone and
        :class:`~lab_widget.errors.TmuxError` when tmux refuses.
        """
        pane = self.terminal.pane_id()
        if pane is None or not self.terminal.alive():
            raise RunEndedError("the agent's terminal has ended")
        self._pane = pane
        self._own_size = self._session_size()
        self._restore_on_detach()
        client = ControlClient(self.terminal.control_argv(), self._on_event)
        self._client = client
        client.start()
        self.resize(cols, rows)

    def resize(self, cols: int, rows: int) -> None:
        """Make the pane follow a view of ``cols`` by ``rows`` (the latest view wins)."""
        size = clamp_size(cols, rows)
        self._size = size
        self._send([f"refresh-client -C {size[0]}x{size[1]}"])

    def request_screen(self, tag: object, scrollback: int = SCROLLBACK) -> None:
        """Ask for the pane's screen; ``on_screen(tag, screen)`` comes in stream order."""
        client = self._client
        if client is None:
            raise RunEndedError("the terminal stream is not open")
        pane = self._pane
        futures = client.commands(
            [
                f"display-message -p -t {pane} '{MODES_FORMAT}'",
                f"capture-pane -p -e -t {pane} -S -{int(scrollback)} -E -1",
                f"capture-pane -p -e -N -t {pane}",
            ]
        )
        self._last = futures[-1]

        # The last reply completes on the reader thread, right where the screen was
        # taken, before any output that came after it is dispatched.
        def done(_last: Future[Reply]) -> None:
            try:
                modes, history, lines = (f.result(0) for f in futures)
            except Exception as exc:
                log.debug("the pane's screen could not be read: %s", exc)
                return
            if not (modes.ok and lines.ok):
                log.debug("tmux refused the screen: %s %s", modes.text, lines.text)
                return
            screen = Screen.parse(
                modes.text, list(history.lines) if history.ok else [], list(lines.lines)
            )
            self._listener.on_screen(tag, screen)

        futures[-1].add_done_callback(done)

    def send(self, data: bytes) -> None:
        """Type ``data`` into the pane: the bytes a terminal sends for the keys pressed."""
        if data:
            self._send([" ".join(c) for c in input_commands(self._pane, data)])

    def settle(self, timeout: float = 2.0) -> None:
        """Wait until tmux has taken every command sent so far (keys before a paste)."""
        last = self._last
        if last is not None:
            try:
                last.result(timeout)
            except Exception:
                pass

    def close(self) -> None:
        """Detach; tmux gives the window back its own size (the hook) and the hook goes."""
        with self._lock:
            client, self._client = self._client, None
            self._closing = True
        if client is None:
            return
        client.close()
        # A clean close: no later detach needs the hook (a new stream sets it again),
        # unless another client still watches (a view in another kernel).
        try:
            watching = self.terminal.runner.tmux(
                "list-clients", "-t", f"={self.terminal.session_name}", "-F", "#{client_name}"
            ).split()
            if not watching:
                self.terminal.runner.tmux(
                    "set-hook", "-u", "-t", self.terminal.target, "client-detached"
                )
        except TmuxError:
            pass

    # -- inside ------------------------------------------------------------------------

    def _send(self, lines: list[str]) -> None:
        client = self._client
        if client is None:
            raise RunEndedError("the terminal stream is not open")
        futures = client.commands(lines)
        if futures:
            self._last = futures[-1]

    def _session_size(self) -> tuple[int, int] | None:
        # The size the session was made with (new-session -x/-y sets its default-size).
        try:
            out = self.terminal.runner.tmux(
                "display-message", "-p", "-t", self.terminal.target, "#{default-size}"
            )
        except TmuxError:
            return None
        cols, _, rows = out.strip().partition("x")
        return (int(cols), int(rows)) if cols.isdigit() and rows.isdigit() else None

    def _restore_on_detach(self) -> None:
        size = self._own_size
        if size is None:
            return
        window = self._pane
        # When the last client leaves (this one closing, or dying with the kernel), the
        # window gets its own size back and follows clients again (resize-window would
        # otherwise leave it at a fixed size).
        restore = (
            f"resize-window -t {window} -x {size[0]} -y {size[1]} ; "
            f"set-option -wu -t {window} window-size"
        )
        hook = f'if-shell -F "#{{==:#{{session_attached}},0}}" "{restore}"'
        try:
            self.terminal.runner.tmux(
                "set-hook", "-t", self.terminal.target, "client-detached", hook
            )
        except TmuxError as exc:
            log.debug("the size-restoring hook could not be set: %s", exc)

    def _on_event(self, event: ControlEvent | None) -> None:
        # Output of one read goes out as one piece; anything else flushes it first.
        if isinstance(event, Output):
            if event.pane == self._pane and event.data:
                self._pending.append(event.data)
            return
        if self._pending:
            data, self._pending = b"".join(self._pending), []
            self._listener.on_output(data)
        if isinstance(event, Notification) and event.name == "layout-change":
            parts = event.args.split(" ")
            size = layout_size(parts[1]) if len(parts) > 1 else None
            if size is not None:
                self._listener.on_size(*size)
        elif isinstance(event, Exit):
            with self._lock:
                closing = self._closing
            self._listener.on_end("closed" if closing else (event.reason or "ended"))
