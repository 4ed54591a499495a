"""What reaches an agent's pane as typed input: text cleaned of what a terminal would act
on, and the raw bytes of keys pressed in the terminal view.
"""

from __future__ import annotations

import re

__all__ = ["input_commands", "sanitize_input"]

# C0 controls (but tab and line breaks), DEL and C1 controls: a terminal would act on
# them (ESC starts sequences, ^C interrupts, ^M submits), so typed text never carries them.
# Bidi embeddings, overrides and isolates too: invisible, they make text read otherwise than
# it is, and a TUI was seen to swallow a whole paste holding one (never submitted).
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\x80-\x9f\u202a-\u202e\u2066-\u2069]")


def sanitize_input(text: str) -> str:
    r"""Drop control characters so pasted text is only printable text and line breaks.

    Examples
    --------
    >>> sanitize_input("a\x1b[201~b\x03\r\nc\td")
    'a[201~b\nc\td'
    >>> sanitize_input("x\u202eevil\u202c")
    'xevil'
    """
    return _CONTROL.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))


def input_commands(target: str, data: bytes, chunk: int = 256) -> list[list[str]]:
    r"""``send-keys -H`` commands that write ``data`` into the pane byte for byte.

    For the terminal view's take-over: what a terminal would send for the keys pressed
    (text, Enter, arrows, Ctrl-keys), as hex keys, so nothing in it is read as a key name,
    an option or a shell word. ``chunk`` bytes per command keep each command line short.

    Examples
    --------
    >>> input_commands("%3", b"hi\r")
    [['send-keys', '-t', '%3', '-H', '68', '69', '0d']]
    >>> [len(c) - 4 for c in input_commands("%3", bytes(5), chunk=2)]
    [2, 2, 1]
    """
    return [
        ["send-keys", "-t", target, "-H", *(f"{b:02x}" for b in data[i : i + chunk])]
        for i in range(0, len(data), chunk)
    ]
