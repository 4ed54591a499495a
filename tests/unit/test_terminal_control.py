"""Unit: tmux control mode parsed into events, and screens replayed into a terminal."""

from __future__ import annotations

import pytest

from lab_widget._runtime._control import (
    ControlParser,
    Exit,
    Notification,
    Output,
    Reply,
    layout_size,
    unescape,
)
from lab_widget._runtime._screen import MODES_FORMAT, Screen, clamp_size, final_screen
from lab_widget._runtime._tmux import TmuxTerminal, input_commands

# What tmux 3.3a's control client printed, by hand, for an attach, a resize, a command and
# a typed line (see docs/adr/0047-terminal-view-through-tmux-control-mode.md).
SEEN = (
    b"%begin 1796138533 276 0\n"
    b"%end 1796138533 276 0\n"
    b"%session-changed $0 t1\n"
    b"%begin 1796138533 281 1\n"
    b"%end 1796138533 281 1\n"
    b"%layout-change @0 a87d,100x30,0,0,0 a87d,100x30,0,0,0 *\n"
    b"%output %0 \\015\\033[K\\015bash-5.2# \n"
    b"%begin 1796138534 284 1\n"
    b"100x30\n"
    b"%end 1796138534 284 1\n"
    b"%output %0 echo hi\\015\\012\\033[?2004l\\015hi\\015\\012\\033[?2004hbash-5.2# \n"
    b"%exit\n"
)

EXPECTED = [
    Reply(number=276, ok=True, lines=(), from_client=False),
    Notification("session-changed", "$0 t1"),
    Reply(number=281, ok=True, lines=(), from_client=True),
    Notification("layout-change", "@0 a87d,100x30,0,0,0 a87d,100x30,0,0,0 *"),
    Output("%0", b"\r\x1b[K\rbash-5.2# "),
    Reply(number=284, ok=True, lines=(b"100x30",), from_client=True),
    Output("%0", b"echo hi\r\n\x1b[?2004l\rhi\r\n\x1b[?2004hbash-5.2# "),
    Exit(""),
]


def test_a_recorded_session_parses_into_its_events() -> None:
    assert ControlParser().feed(SEEN) == EXPECTED


@pytest.mark.parametrize("size", [1, 2, 3, 7, 64])
def test_lines_split_across_reads_at_any_byte_are_joined(size: int) -> None:
    parser = ControlParser()
    events = []
    for i in range(0, len(SEEN), size):
        events += parser.feed(SEEN[i : i + size])
    assert events == EXPECTED


def test_octal_escapes_come_back_as_bytes() -> None:
    # Every byte below 0x20 and the backslash are escaped; UTF-8 passes through as is.
    raw = bytes(range(0x20)) + b"\\ text \xc3\xa9 \xf0\x9f\x99\x82"
    escaped = b"".join(b"\\%03o" % b if b < 0x20 or b == 0x5C else bytes([b]) for b in raw)
    assert unescape(escaped) == raw
    assert unescape(b"no escapes") == b"no escapes"
    # Three digits at most: a digit after an escape is data.
    assert unescape(b"\\0331m") == b"\x1b1m"


def test_a_partial_line_waits_for_its_end() -> None:
    parser = ControlParser()
    assert parser.feed(b"%output %3 hal") == []
    assert parser.feed(b"f\\012\n") == [Output("%3", b"half\n")]


def test_a_reply_block_keeps_its_lines_raw_and_ends_only_at_its_own_guard() -> None:
    parser = ControlParser()
    # A captured screen line that looks like a guard, or a notification, is still output.
    events = parser.feed(
        b"%begin 10 5 1\n%end 10 4 1\n%output %0 not-an-event\n\x1b[31mred\\134\n%end 10 5 1\n"
    )
    assert events == [
        Reply(
            number=5,
            ok=True,
            lines=(b"%end 10 4 1", b"%output %0 not-an-event", b"\x1b[31mred\\134"),
            from_client=True,
        )
    ]
    assert not parser.in_block


def test_an_error_block_is_a_failed_reply() -> None:
    events = ControlParser().feed(
        b"%begin 1 466 1\nparse error: unknown command: bogus\n%error 1 466 1\n"
    )
    assert events == [
        Reply(
            number=466, ok=False, lines=(b"parse error: unknown command: bogus",), from_client=True
        )
    ]
    assert events[0].text == "parse error: unknown command: bogus"  # type: ignore[union-attr]


def test_exit_carries_its_reason() -> None:
    assert ControlParser().feed(b"%exit server exited\n") == [Exit("server exited")]


def test_extended_output_and_the_cc_wrapper() -> None:
    parser = ControlParser()
    assert parser.feed(b"\x1bP1000p%output %1 a\n") == [Output("%1", b"a")]
    assert parser.feed(b"%extended-output %1 120 : b\\015\n") == [Output("%1", b"b\r")]
    assert parser.feed(b"\x1b\\\n") == []  # the DCS terminator is not an event
    assert parser.feed(b"%pause %1\n") == [Notification("pause", "%1")]


def test_layout_sizes() -> None:
    assert layout_size("a87d,100x30,0,0,0") == (100, 30)
    assert layout_size("b25f,200x50,0,0{100x50,0,0,1,99x50,101,0,2}") == (200, 50)
    assert layout_size("") is None


# -- screens --------------------------------------------------------------------------


def modes(**flags: int) -> str:
    names = [name.strip("#{}") for name in MODES_FORMAT.split()]
    defaults = {"pane_width": 20, "pane_height": 3, "cursor_flag": 1, "wrap_flag": 1}
    return " ".join(str(flags.get(n, defaults.get(n, 0))) for n in names)


def test_a_screen_replays_history_lines_cursor_and_modes() -> None:
    screen = Screen.parse(
        modes(cursor_x=4, cursor_y=1, history_size=2, keypad_cursor_flag=1, cursor_flag=0),
        [b"h0", b"h1", b"h2"],
        [b"\x1b[31mone", b"two", b""],
    )
    assert screen.history == (b"h1", b"h2")  # the capture's extra lines are not history
    assert screen.replay() == (
        b"h1\r\nh2\r\n\x1b[31mone\r\ntwo\r\n"
        b"\x1b[0m"  # colours carried across lines by capture-pane -e end with the screen
        b"\x1b[?1h"  # the application cursor keys the TUI asked for
        b"\x1b[2;5H"
        b"\x1b[?25l"  # a TUI that hides its cursor
    )


def test_a_screen_without_history_ignores_the_history_capture() -> None:
    screen = Screen.parse(modes(history_size=0), [b"first visible line"], [b"a", b"b", b"c"])
    assert screen.history == ()
    assert screen.replay().startswith(b"a\r\nb\r\nc")


def test_an_alternate_screen_scroll_region_and_no_wrap_are_replayed() -> None:
    screen = Screen.parse(
        modes(
            alternate_on=1,
            history_size=1,
            scroll_region_upper=1,
            scroll_region_lower=2,
            wrap_flag=0,
            mouse_sgr_flag=1,
            mouse_button_flag=1,
        ),
        [b"main history"],
        [b"x", b"y", b"z"],
    )
    replay = screen.replay()
    assert replay.startswith(b"\x1b[?1049h\x1b[Hx\r\ny\r\nz")
    assert b"main history" not in replay
    for sequence in (b"\x1b[2;3r", b"\x1b[?7l", b"\x1b[?1006h", b"\x1b[?1002h"):
        assert sequence in replay


def test_the_final_screen_of_an_ended_run(tmp_path: object) -> None:
    terminal = TmuxTerminal.__new__(TmuxTerminal)
    terminal.final_screen = "80 4\nold\n\x1b[1mlast words\nPane is dead (status 0, Mon)\n\n\n"
    screen = final_screen(terminal)
    assert screen is not None
    assert (screen.cols, screen.rows) == (80, 4)
    assert screen.lines == (b"old", b"\x1b[1mlast words")  # tmux's own line is dropped
    terminal.final_screen = ""
    assert final_screen(terminal) is None


def test_keys_are_hex_never_names_or_words() -> None:
    hostile = "C-c Enter ; kill-server \x1b[A\x03é".encode()
    commands = input_commands("%7", hostile)
    assert commands == [["send-keys", "-t", "%7", "-H", *(f"{b:02x}" for b in hostile)]]
    assert all(len(c) <= 4 + 256 for c in input_commands("%7", bytes(1000)))


def test_view_sizes_are_clamped() -> None:
    assert clamp_size(100, 30) == (100, 30)
    assert clamp_size(-5, 0) == (10, 3)
    assert clamp_size(10**6, 10**6) == (1000, 500)
