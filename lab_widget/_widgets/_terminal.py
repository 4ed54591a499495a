"""The terminal pane of a run's chat view: the agent's real TUI, streamed while watched.

The front end (``js/src/terminal/pane.ts``) opens the pane with a viewer id and its size; the
kernel then attaches one :class:`~lab_widget._runtime._pane_stream.PaneStream` for every viewer
of the run, sends each new viewer its first screen, then the pane's output to all, and detaches
when the last viewer goes. Closed, the pane costs nothing: no tmux client, no thread, no
byte to the browser.

Protocol, as custom messages of the chat view's comm (``kind: "term"``):

Their shapes are typed in :mod:`~lab_widget._widgets._protocol` (``Term*Msg``):

- front end → kernel: ``open`` / ``ping`` (``viewer``, ``cols``, ``rows``), ``resize``
  (same), ``close`` (``viewer``), ``input`` (``viewer``, ``data``: what the terminal sends
  for the keys pressed, only while the user has taken over), ``paste`` (``viewer``,
  ``text``);
- kernel → front end: ``screen`` (``viewer``, ``cols``, ``rows``, ``live``; the bytes that
  draw it in the message's buffer), ``output`` (bytes in the buffer), ``size`` (``cols``,
  ``rows``: the pane's real size), ``ended`` (``reason``), ``error`` (``viewer``,
  ``message``).

A viewer that is not heard from for :data:`LEASE` seconds (its browser tab closed without
saying so) is dropped; the front end pings every :data:`PING` seconds while open.

The pane shows the TUI; it is never read for state or content (the chat brain reads the
transcript and the live signals; ``tests/unit/test_architecture.py`` guards it).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Protocol, runtime_checkable

from .._runtime._pane_stream import PaneStream
from .._runtime._screen import Screen, clamp_size, final_screen
from .._runtime._tmux import TmuxTerminal
from ..errors import NoTerminalError
from ._protocol import (
    TermEndedMsg,
    TermErrorMsg,
    TermOutputMsg,
    TermScreenMsg,
    TermSizeMsg,
)

__all__ = ["LEASE", "PING", "PaneSource", "TerminalFeed"]

log = logging.getLogger(__name__)

PING = 20.0
"""Seconds between a watching front end's pings (``js/src/terminal/pane.ts`` uses the same)."""

LEASE = 60.0
"""Seconds a viewer stays without a ping before the kernel stops streaming to it."""


@runtime_checkable
class PaneSource(Protocol):
    """A run whose tmux pane the terminal view can show (``Run`` is one)."""

    @property
    def pane(self) -> TmuxTerminal: ...


class _Widget(Protocol):
    @property
    def comm(self) -> object | None: ...

    def send(self, content: Mapping[str, object], buffers: Any = None) -> None: ...


_KernelTermMsg = TermScreenMsg | TermOutputMsg | TermSizeMsg | TermEndedMsg | TermErrorMsg
"""What the kernel sends the pane."""


class TerminalFeed:
    """The kernel side of one chat view's terminal pane.

    Parameters
    ----------
    widget
        The chat view whose comm carries the messages.
    terminal
        The run's tmux session, or ``None`` when the view's source has none.
    """

    def __init__(self, widget: _Widget, terminal: TmuxTerminal | None) -> None:
        self._widget = widget
        self._terminal = terminal
        self._lock = threading.Lock()
        self._viewers: dict[str, float] = {}
        """Viewer id → when it was last heard from (monotonic)."""
        self._stream: PaneStream | None = None
        self._worker: ThreadPoolExecutor | None = None
        self._timer: threading.Timer | None = None
        self._closed = False
        self._queued = 0
        """Messages waiting for, or running on, the worker."""
        self._size = (100, 30)
        """The size the viewers asked for last (a new session's stream starts at it)."""

    @property
    def available(self) -> bool:
        """Whether this view has a terminal to show."""
        return self._terminal is not None

    @property
    def streaming(self) -> bool:
        """Whether a tmux client streams the pane now (someone watches)."""
        stream = self._stream
        return stream is not None and stream.open

    @property
    def viewers(self) -> list[str]:
        """The ids of the front ends watching."""
        with self._lock:
            return sorted(self._viewers)

    def receive(self, content: dict[str, Any]) -> None:
        """Take one ``term`` message from the front end (on the comm thread).

        The work runs on the feed's one worker thread, in the order messages came: keys
        must reach the agent in the order they were pressed. Keys typed while nothing else
        waits are written at once, on this thread (a write to the tmux client's pipe): a
        hop to the worker would only add to the keystroke's way to its echo.
        """
        op = content.get("op")
        viewer = content.get("viewer")
        if not isinstance(viewer, str) or not viewer:
            return
        handler = {
            "open": self._open,
            "ping": self._ping,
            "resize": self._resize,
            "close": self._close_viewer,
            "input": self._input,
            "paste": self._paste,
        }.get(str(op))
        if handler is None:
            return
        with self._lock:
            if self._closed:
                return
            if op in ("open", "ping"):
                self._viewers[viewer] = time.monotonic()
            elif op != "close" and viewer not in self._viewers:
                return  # keys or a size from a front end that is not watching: not its
            stream = self._stream
            if op == "input" and self._queued == 0 and stream is not None and stream.open:
                inline = True
            else:
                inline = False
                self._queued += 1
                if self._worker is None:
                    self._worker = ThreadPoolExecutor(1, thread_name_prefix="lab-widget-term")
                worker = self._worker
        if inline:
            self._guarded(handler, viewer, content)
            return
        try:
            worker.submit(self._queued_job, handler, viewer, content)
        except RuntimeError:  # closed meanwhile
            with self._lock:
                self._queued -= 1

    def follow(self, terminal: TmuxTerminal) -> None:
        """Show ``terminal`` from now on: the run's agent was started again in a new
        session. The old session's stream is let go, and who watched it gets the new one.
        """
        with self._lock:
            self._terminal = terminal
            watching = list(self._viewers)
            worker = self._worker
            if worker is None or self._closed:
                return
            self._queued += 1 + len(watching)
        size = {"cols": self._size[0], "rows": self._size[1]}
        jobs = [(self._stop_stream_for, ""), *((self._open, viewer) for viewer in watching)]
        for handler, viewer in jobs:
            try:
                worker.submit(self._queued_job, handler, viewer, size)
            except RuntimeError:  # closed meanwhile
                with self._lock:
                    self._queued -= 1

    def close(self) -> None:
        """Stop streaming and take no more messages (the view is closing)."""
        with self._lock:
            self._closed = True
            self._viewers.clear()
            worker, self._worker = self._worker, None
            timer, self._timer = self._timer, None
        if timer is not None:
            timer.cancel()
        if worker is not None:
            worker.submit(self._stop_stream)
            worker.shutdown(wait=False)

    # -- on the worker thread ------------------------------------------------------------

    def _queued_job(self, handler: Any, viewer: str, content: dict[str, Any]) -> None:
        try:
            self._guarded(handler, viewer, content)
        finally:
            with self._lock:
                self._queued -= 1

    def _guarded(self, handler: Any, viewer: str, content: dict[str, Any]) -> None:
        try:
            handler(viewer, content)
        except Exception as exc:
            log.debug("terminal %s failed", content.get("op"), exc_info=True)
            message = str(exc) or type(exc).__name__
            self._send(TermErrorMsg(kind="term", op="error", viewer=viewer, message=message))

    def _open(self, viewer: str, content: dict[str, Any]) -> None:
        terminal = self._terminal
        if terminal is None:
            raise NoTerminalError("this view has no terminal to show")
        cols, rows = self._size = _size(content)
        if not terminal.alive():
            self._drop(viewer)
            self._send_ended_screen(viewer, terminal)
            return
        stream = self._stream
        if stream is None or not stream.open:
            stream = PaneStream(terminal, _Listener(self, terminal))
            self._stream = stream
            try:
                stream.start(cols, rows)
            except Exception:
                self._stream = None
                self._drop(viewer)
                raise
        else:
            stream.resize(cols, rows)
        stream.request_screen(viewer)
        self._arm_lease()

    def _ping(self, viewer: str, content: dict[str, Any]) -> None:
        stream = self._stream
        if stream is None or not stream.open:
            self._open(viewer, content)  # the lease ran out meanwhile (a sleeping laptop)
        self._arm_lease()

    def _resize(self, viewer: str, content: dict[str, Any]) -> None:
        stream = self._stream
        self._size = _size(content)
        if stream is not None and stream.open:
            stream.resize(*self._size)

    def _close_viewer(self, viewer: str, _content: dict[str, Any]) -> None:
        self._drop(viewer)
        with self._lock:
            watched = bool(self._viewers)
        if not watched:
            self._stop_stream()

    def _input(self, viewer: str, content: dict[str, Any]) -> None:
        data = content.get("data")
        stream = self._stream
        if not isinstance(data, str) or stream is None or not stream.open:
            return
        # A lone surrogate (a broken emoji from the browser) must not lose the rest.
        stream.send(data.encode("utf-8", "replace"))

    def _paste(self, viewer: str, content: dict[str, Any]) -> None:
        text = content.get("text")
        stream, terminal = self._stream, self._terminal
        if not isinstance(text, str) or stream is None or terminal is None or not stream.open:
            return
        # Keys typed before the paste reach the pane first. The paste itself goes the
        # runner's way (a bracketed paste when the TUI asked for one, control characters
        # dropped): a newline in it must never submit.
        stream.settle()
        terminal.paste(text)

    def stream_ended(self, terminal: TmuxTerminal) -> None:
        """The stream of ``terminal`` ended by itself (the agent's session went): tell the
        viewers, unless the feed follows another session now (the run was restarted).
        """
        with self._lock:
            if terminal is not self._terminal:
                return
            worker = self._worker
            self._viewers.clear()
        self._send(TermEndedMsg(kind="term", op="ended", reason="The agent's terminal has ended."))
        if worker is not None:
            try:
                worker.submit(self._stop_stream)
            except RuntimeError:
                pass

    def _stop_stream_for(self, _viewer: str, _content: dict[str, Any]) -> None:
        self._stop_stream()

    def _stop_stream(self) -> None:
        stream, self._stream = self._stream, None
        if stream is not None:
            stream.close()

    def _expire(self) -> None:
        now = time.monotonic()
        with self._lock:
            self._timer = None
            for viewer, seen in list(self._viewers.items()):
                if now - seen >= LEASE:
                    del self._viewers[viewer]
            watched = bool(self._viewers)
        if not watched:
            self._stop_stream()
        else:
            self._arm_lease()

    # -- helpers -------------------------------------------------------------------------

    def _arm_lease(self) -> None:
        with self._lock:
            if self._closed or not self._viewers:
                return
            if self._timer is not None:
                self._timer.cancel()
            due = max(0.0, min(self._viewers.values()) + LEASE - time.monotonic())
            timer = threading.Timer(due + 0.05, self._on_lease_timer)
            timer.daemon = True
            self._timer = timer
        timer.start()

    def _on_lease_timer(self) -> None:
        with self._lock:
            worker = self._worker
        if worker is not None:
            try:
                worker.submit(self._expire)
            except RuntimeError:
                pass

    def _drop(self, viewer: str) -> None:
        with self._lock:
            self._viewers.pop(viewer, None)

    def _send_ended_screen(self, viewer: str, terminal: TmuxTerminal) -> None:
        screen = final_screen(terminal)
        if screen is None and terminal.exit_screen:
            lines = tuple(line.encode() for line in terminal.exit_screen.splitlines())
            screen = Screen(cols=200, rows=max(len(lines), 1), lines=lines)
        if screen is not None:
            self.send_screen(viewer, screen, live=False)
        reason = "The run has ended; this is its last screen."
        self._send(TermEndedMsg(kind="term", op="ended", reason=reason))

    def send_screen(self, viewer: str, screen: Screen, *, live: bool) -> None:
        """Send one viewer its screen (every front end hears it; only that viewer draws it)."""
        message = TermScreenMsg(
            kind="term", op="screen", viewer=viewer, cols=screen.cols, rows=screen.rows, live=live
        )
        self._send(message, screen.replay())

    def _send(self, content: _KernelTermMsg, data: bytes | None = None) -> None:
        if self._widget.comm is None:
            return  # closed, or never shown
        try:
            self._widget.send(content, [data] if data is not None else None)
        except Exception:  # a broken front-end channel must not stop the stream
            log.exception("sending to the terminal view failed")


class _Listener:
    """The stream's events, turned into messages (on the stream's reader thread)."""

    def __init__(self, feed: TerminalFeed, terminal: TmuxTerminal) -> None:
        self._feed = feed
        self._terminal = terminal

    def on_screen(self, tag: object, screen: Screen) -> None:
        self._feed.send_screen(str(tag), screen, live=True)

    def on_output(self, data: bytes) -> None:
        self._feed._send(TermOutputMsg(kind="term", op="output"), data)

    def on_size(self, cols: int, rows: int) -> None:
        self._feed._send(TermSizeMsg(kind="term", op="size", cols=cols, rows=rows))

    def on_end(self, reason: str) -> None:
        if reason != "closed":
            self._feed.stream_ended(self._terminal)


def _size(content: dict[str, Any]) -> tuple[int, int]:
    cols, rows = content.get("cols"), content.get("rows")
    if not isinstance(cols, int) or not isinstance(rows, int):
        return (100, 30)
    return clamp_size(cols, rows)
