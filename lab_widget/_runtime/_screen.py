"""A pane's screen as a terminal can take it over: the capture, the modes, the size.

A :class:`Screen` is what a pane shows at one moment (its history, its visible lines, the
cursor and the terminal modes), parsed from tmux's replies and replayed as the bytes that
draw it into a fresh terminal. :func:`final_screen` is the last screen an ended run's pane
kept; :func:`clamp_size` keeps a view's size within what tmux and a terminal take.

Part of the terminal view: the chat brain never reads a screen
(``tests/unit/test_architecture.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ._tmux import FINAL_HISTORY, TmuxTerminal

__all__ = ["MODES_FORMAT", "SCROLLBACK", "Screen", "clamp_size", "final_screen"]

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
