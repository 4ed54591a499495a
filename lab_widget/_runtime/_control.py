r"""The protocol of a tmux control-mode client (``tmux -C``): its output parsed into events.

A control client writes one line per event on its stdout, as tmux 3.3a does it (verified by
hand, see ``docs/adr/0047-terminal-view-through-tmux-control-mode.md``):

- ``%output %<pane> <data>``: bytes the pane's program wrote, every byte below 0x20 and the
  backslash written as ``\ooo`` (three octal digits), everything else as is;
- ``%begin <time> <number> <flags>``, the command's output lines unescaped, then ``%end`` or
  ``%error`` with the same three fields: the reply to one command (``flags`` 1 for commands
  this client sent, 0 for the attach itself);
- ``%exit [<reason>]``: the client detaches (the session went, the server stopped, stdin
  closed);
- other notifications (``%layout-change``, ``%session-changed``...): a name and its
  arguments.

Nothing here runs tmux: the parser takes bytes as they arrive, in chunks of any size (a
line split over two reads is joined), so it is tested without a server.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = [
    "ControlEvent",
    "ControlParser",
    "Exit",
    "Notification",
    "Output",
    "Reply",
    "layout_size",
    "unescape",
]

_OCTAL = re.compile(rb"\\([0-7]{3})")


def unescape(data: bytes) -> bytes:
    r"""The pane's bytes from a ``%output`` line's escaped data.

    Examples
    --------
    >>> unescape(rb"echo hi\015\012\033[?2004h")
    b'echo hi\r\n\x1b[?2004h'
    >>> unescape(rb"back\134slash \0331")
    b'back\\slash \x1b1'
    """
    if b"\\" not in data:
        return data
    return _OCTAL.sub(lambda m: bytes([int(m[1], 8) & 0xFF]), data)


_LAYOUT = re.compile(r"^[0-9a-f]{4},(\d+)x(\d+),")


def layout_size(layout: str) -> tuple[int, int] | None:
    """The window's ``(columns, rows)`` from a ``%layout-change`` layout string.

    Examples
    --------
    >>> layout_size("a87d,100x30,0,0,0")
    (100, 30)
    >>> layout_size("nonsense") is None
    True
    """
    match = _LAYOUT.match(layout)
    return (int(match[1]), int(match[2])) if match else None


@dataclass(frozen=True)
class Output:
    """Bytes a pane's program wrote (``%output``, or ``%extended-output``)."""

    pane: str
    """The pane's id, ``%<n>``."""
    data: bytes


@dataclass(frozen=True)
class Reply:
    """The output of one command, between ``%begin`` and ``%end`` (or ``%error``)."""

    number: int
    """tmux's command number."""
    ok: bool
    """``False`` when the block ended with ``%error``."""
    lines: tuple[bytes, ...]
    """The command's output lines, without their line breaks."""
    from_client: bool
    """Whether this client sent the command (flags 1), not the attach itself (flags 0)."""

    @property
    def text(self) -> str:
        """The lines as text (an error's message, a format's value)."""
        return b"\n".join(self.lines).decode(errors="replace")


@dataclass(frozen=True)
class Exit:
    """The client detached; ``reason`` is what tmux said, often empty."""

    reason: str


@dataclass(frozen=True)
class Notification:
    """Any other ``%<name> <args>`` line (``layout-change``, ``session-changed``...)."""

    name: str
    args: str


ControlEvent = Output | Reply | Exit | Notification


class ControlParser:
    r"""Turns a control client's stdout into events, fed one chunk at a time.

    Examples
    --------
    >>> parser = ControlParser()
    >>> parser.feed(b"%begin 1 2 1\nhello\n%end 1 2 1\n%output %0 hi\\015")
    [Reply(number=2, ok=True, lines=(b'hello',), from_client=True)]
    >>> parser.feed(b"\\012\n%exit\n")
    [Output(pane='%0', data=b'hi\r\n'), Exit(reason='')]
    """

    def __init__(self) -> None:
        self._partial = b""
        self._block: tuple[bytes, int, bool] | None = None
        """The open ``%begin``: its guard fields, its number and its flags."""
        self._lines: list[bytes] = []

    @property
    def in_block(self) -> bool:
        """Whether a command's reply is open (its ``%end`` not seen yet)."""
        return self._block is not None

    def feed(self, chunk: bytes) -> list[ControlEvent]:
        """The events completed by ``chunk`` (a trailing partial line waits for the next)."""
        data = self._partial + chunk
        *lines, self._partial = data.split(b"\n")
        events: list[ControlEvent] = []
        for line in lines:
            event = self._line(line.removesuffix(b"\r"))
            if event is not None:
                events.append(event)
        return events

    def _line(self, line: bytes) -> ControlEvent | None:
        if self._block is not None:
            guard, number, from_client = self._block
            # Only the guard with the same time, number and flags closes the block: a line
            # of a command's output may itself start with "%end".
            for word, ok in ((b"%end ", True), (b"%error ", False)):
                if line.startswith(word) and line[len(word) :] == guard:
                    self._block = None
                    lines, self._lines = tuple(self._lines), []
                    return Reply(number=number, ok=ok, lines=lines, from_client=from_client)
            self._lines.append(line)
            return None
        if line.startswith(b"\x1bP1000p"):
            line = line[len(b"\x1bP1000p") :]  # -CC mode wraps the stream in a DCS
        if not line.startswith(b"%"):
            return None  # the DCS terminator of -CC mode, or noise: not an event
        name, _, rest = line[1:].partition(b" ")
        if name == b"output":
            pane, _, data = rest.partition(b" ")
            return Output(pane=pane.decode(errors="replace"), data=unescape(data))
        if name == b"extended-output":
            # %extended-output %<pane> <age> ... : <data>
            head, _, data = rest.partition(b" : ")
            pane = head.partition(b" ")[0]
            return Output(pane=pane.decode(errors="replace"), data=unescape(data))
        if name == b"begin":
            fields = rest.split(b" ")
            if len(fields) >= 3 and fields[1].isdigit():
                self._block = (rest, int(fields[1]), fields[2] == b"1")
                self._lines = []
            return None
        if name == b"exit":
            return Exit(reason=rest.decode(errors="replace"))
        return Notification(name=name.decode(errors="replace"), args=rest.decode(errors="replace"))
