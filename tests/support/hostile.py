"""Hostile prompts, and what of each must arrive, for the injection tests of every tier."""

from __future__ import annotations

import unicodedata

CORPUS = {
    "c0": "c0:" + "".join(chr(c) for c in range(0x20) if chr(c) not in "\n\r\t") + ":end",
    "c1-del": "c1:\x7f" + "".join(chr(c) for c in range(0x80, 0xA0)) + ":end",
    "esc-csi": "esc \x1b csi \x1b[2J\x1b[H\x1b[31mred\x1b[0m osc \x1b]0;title\x07 \x1bOA end",
    "paste-end": "before \x1b[201~ after \x1b[200~ again \x1b[201~\x1b[201~ done",
    "tmux-keys": "C-c",
    "tmux-keys-words": "C-c Enter Escape Up Down C-d M-x BSpace ; send-keys q",
    "crlf": "one\r\ntwo\rthree\nfour",
    "multiline": "line 1\n  indented 2\n\n\nafter blanks\n\ttab",
    "rtl-emoji": "שלום עולם مرحبا بالعالم \u202eevil\u202c 👩\u200d💻 🇯🇵 e\u0301 \U0001f600",
    "shell": "$(id) `id` ${HOME} && rm -rf / ; | > /dev/null",
    "long": "".join(f"word{i} " for i in range(2500)) + "\n" + "x" * 5000,
}


BIDI = {chr(c) for c in [*range(0x202A, 0x202F), *range(0x2066, 0x206A)]}


def printable(text: str) -> str:
    """What must arrive: line breaks (CR and CRLF as LF) and tabs, and every character that is
    neither a control character nor a bidi override; those are dropped, never acted on."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return "".join(
        ch for ch in text if ch in "\n\t" or (unicodedata.category(ch) != "Cc" and ch not in BIDI)
    )
