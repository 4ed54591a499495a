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
from dataclasses import dataclass, field
from typing import Protocol

from ._runner import FINAL_HISTORY, TmuxTerminal, input_commands
from ._tmux_control import (
    ControlEvent,
    ControlParser,
    Exit,
    Notification,
    Output,
    Reply,
    layout_size,
)
from .errors import RunEndedError, TmuxError

__all__ = [
    "ControlClient",
    "PaneStream",
    "Screen",
    "StreamListener",
    "final_screen",
]

log = logging.getLogger(__name__)

ATTACH_TIMEOUT = 10.0
"""Seconds a control client may take to attach."""

SCROLLBACK = 1000
"""Lines of tmux's history a viewer gets with its first screen."""

MIN_SIZE, MAX_SIZE = (10, 3), (1000, 500)
"""The smallest and largest size (columns, rows) a view may give the pane."""

_MODES = [
    *("pane_width", "pane_height", "cursor_x", "cursor_y", "cursor_flag", "alternate_on"),
    *("history_size", "keypad_cursor_flag", "keypad_flag", "insert_flag", "wrap_flag"),
    *("origin_flag", "scroll_region_upper", "scroll_region_lower", "mouse_standard_flag"),
    *("mouse_button_flag", "mouse_all_flag", "mouse_sgr_flag", "mouse_utf8_flag"),
]
# One line of numbers: the pane's size, cursor and the modes a terminal needs to go on
# from the screen (cursor keys, keypad, wrap, scroll region, mouse reports).
MODES_FORMAT = " ".join(f"#{{{name}}}" for name in _MODES)

_DEAD = b"Pane is dead ("


def clamp_size(cols: int, rows: int) -> tuple[int, int]:
    """A view's size kept within what tmux and a terminal can take.

    Examples
    --------
    >>> clamp_size(0, 9999)
    (10, 500)
    """
    return (
        max(MIN_SIZE[0], min(MAX_SIZE[0], int(cols))),
        max(MIN_SIZE[1], min(MAX_SIZE[1], int(rows))),
    )


@dataclass(frozen=True)
class Screen:
    """What a pane shows at one moment: enough for a terminal to take over from there.

    ``replay()`` is the byte stream that draws it into a freshly reset terminal of
    ``cols`` by ``rows``: the history, the visible lines, then the modes and the cursor.
    """

    cols: int
    rows: int
    lines: tuple[bytes, ...]
    """The visible lines, with their colours (``capture-pane -e``)."""
    history: tuple[bytes, ...] = ()
    """Lines scrolled off the top, oldest first."""
    cursor: tuple[int, int] = (0, 0)
    """Column and row of the cursor (0-based)."""
    modes: dict[str, int] = field(default_factory=dict)
    """The tmux format flags of :data:`MODES_FORMAT` (``cursor_flag``, ``alternate_on``...)."""

    @classmethod
    def parse(cls, modes: str, history: list[bytes], lines: list[bytes]) -> Screen:
        """A screen from the replies to ``display-message -p MODES_FORMAT`` and the two
        captures (history, visible lines).

        Examples
        --------
        >>> s = Screen.parse("80 2 3 1 1 0 1 0 0 0 1 0 0 1 0 0 0 0 0", [b"old"], [b"a", b"b"])
        >>> (s.cols, s.rows, s.cursor, s.history, s.lines)
        (80, 2, (3, 1), (b'old',), (b'a', b'b'))
        """
        values = [int(v) if v.lstrip("-").isdigit() else 0 for v in modes.split()]
        flags = dict(zip(_MODES, values, strict=False))
        cols, rows = flags.get("pane_width", 80) or 80, flags.get("pane_height", 24) or 24
        kept = history[-flags.get("history_size", 0) :] if flags.get("history_size") else []
        return cls(
            cols=cols,
            rows=rows,
            lines=tuple(lines[-rows:]),
            history=tuple(kept),
            cursor=(flags.get("cursor_x", 0), flags.get("cursor_y", 0)),
            modes=flags,
        )

    def replay(self) -> bytes:
        r"""The bytes that draw this screen into a reset terminal of its size.

        Examples
        --------
        >>> Screen(cols=10, rows=2, lines=(b"a", b"b"), cursor=(1, 0)).replay()
        b'a\r\nb\x1b[0m\x1b[1;2H'
        """
        m = self.modes
        out: list[bytes] = []
        body = [*self.history, *self.lines]
        if m.get("alternate_on"):
            # The history belongs to the main screen; the alternate one has none.
            out.append(b"\x1b[?1049h\x1b[H")
            body = list(self.lines)
        out.append(b"\r\n".join(body))
        out.append(b"\x1b[0m")
        upper, lower = m.get("scroll_region_upper", 0), m.get("scroll_region_lower", 0)
        if (upper, lower) != (0, 0) and (upper, lower) != (0, self.rows - 1):
            out.append(b"\x1b[%d;%dr" % (upper + 1, lower + 1))
        for flag, on in (
            ("keypad_cursor_flag", b"\x1b[?1h"),
            ("keypad_flag", b"\x1b="),
            ("insert_flag", b"\x1b[4h"),
            ("origin_flag", b"\x1b[?6h"),
            ("mouse_standard_flag", b"\x1b[?1000h"),
            ("mouse_button_flag", b"\x1b[?1002h"),
            ("mouse_all_flag", b"\x1b[?1003h"),
            ("mouse_utf8_flag", b"\x1b[?1005h"),
            ("mouse_sgr_flag", b"\x1b[?1006h"),
        ):
            if m.get(flag):
                out.append(on)
        if m.get("wrap_flag", 1) == 0:
            out.append(b"\x1b[?7l")
        x, y = self.cursor
        if m.get("origin_flag"):
            y -= upper  # with origin mode, rows count from the scroll region's top
        out.append(b"\x1b[%d;%dH" % (y + 1, x + 1))
        if m.get("cursor_flag", 1) == 0:
            out.append(b"\x1b[?25l")
        return b"".join(out)


def final_screen(terminal: TmuxTerminal) -> Screen | None:
    """The last screen of an ended run's pane (``terminal.final_screen``), if it was kept."""
    raw = terminal.final_screen.encode()
    if not raw:
        return None
    head, _, body = raw.partition(b"\n")
    size = head.split()
    lines = [line for line in body.split(b"\n") if not line.startswith(_DEAD)]
    if lines and lines[-1] == b"":
        lines.pop()  # the capture's own last line break
    while lines and not lines[-1].strip():
        lines.pop()  # the blank rows under the last words
    cols = int(size[0]) if size and size[0].isdigit() else 80
    rows = int(size[1]) if len(size) > 1 and size[1].isdigit() else 24
    # The lines above the bottom `rows` are history; a cursor under the last line keeps
    # the next terminal output, if any, from overwriting them.
    visible = lines[-rows:]
    history = lines[: len(lines) - len(visible)]
    return Screen(
        cols=cols,
        rows=rows,
        lines=tuple(visible),
        history=tuple(history[-FINAL_HISTORY:]),
        cursor=(0, min(len(visible), rows - 1)),
        modes={"cursor_flag": 0},
    )


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
        """Detach (closing stdin makes tmux detach the client) and wait for the reader."""
        with self._lock:
            proc = self._proc
            if proc is not None and proc.stdin is not None and not proc.stdin.closed:
                try:
                    proc.stdin.close()
                except OSError:
                    pass
        if proc is None:
            return
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
