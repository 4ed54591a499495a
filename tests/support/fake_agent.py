#!/usr/bin/env python3
"""A tiny terminal agent for runner and chat-brain tests: it turns on bracketed paste,
reads raw keys, echoes them on its screen, and records each submitted line (and each Esc)
as JSONL.

With ``--ask`` it first shows a start-up screen ("Trust this folder? [y/n]") that only a
key answers, the way a real CLI asks before it takes input: ``y`` goes on, ``n`` exits.

``/clear`` starts a new epoch the way real CLIs do: a new transcript file
(``transcript.1.jsonl``, ``transcript.2.jsonl``...) whose first entry is the command's echo.
``/quit`` exits; with ``FAKE_AGENT_FAIL`` set it prints that and exits at once."""

from __future__ import annotations

import json
import os
import sys
import termios
import tty
from pathlib import Path

PASTE_START, PASTE_END = b"\x1b[200~", b"\x1b[201~"


def main() -> None:
    failure = os.environ.get("FAKE_AGENT_FAIL")
    if failure:
        # A CLI that refuses to start: it prints why and exits before it is ready.
        print(failure)
        sys.exit(3)
    first = sys.argv[1]
    transcript = first
    epoch = 0
    fd = sys.stdin.fileno()
    old = termios.tcgetattr(fd)
    tty.setraw(fd)

    def show(text: str) -> None:
        sys.stdout.write(text)
        sys.stdout.flush()

    if "--ask" in sys.argv[2:]:
        show("Trust this folder? [y/n] ")
        while True:
            key = os.read(fd, 1)
            if key in (b"", b"n"):
                termios.tcsetattr(fd, termios.TCSADRAIN, old)
                return
            if key == b"y":
                show("y\r\n")
                break
    show("\x1b[?2004h> ")
    Path(first + ".ready").touch()
    buffer, pending, in_paste = b"", b"", False

    def echo(byte: bytes) -> None:
        # Shown as typed; a line break inside a paste starts a new screen line.
        sys.stdout.buffer.write(b"\r\n" if byte in (b"\n", b"\r") else byte)
        sys.stdout.buffer.flush()

    def record(entry: dict[str, object]) -> None:
        with Path(transcript).open("a") as f:
            f.write(json.dumps(entry) + "\n")

    try:
        while True:
            chunk = os.read(fd, 4096)
            if not chunk:
                return
            pending += chunk
            while pending:
                if pending.startswith(PASTE_START):
                    in_paste, pending = True, pending[len(PASTE_START) :]
                elif pending.startswith(PASTE_END):
                    in_paste, pending = False, pending[len(PASTE_END) :]
                elif in_paste:
                    buffer, pending = buffer + pending[:1], pending[1:]
                    echo(buffer[-1:])
                elif pending[:1] == b"\r":
                    pending = pending[1:]
                    text = buffer.decode("utf-8", "replace").replace("\r", "\n")
                    buffer = b""
                    show(f"\r\necho: {text}\r\n> ")
                    if text.strip() == "/clear":
                        epoch += 1
                        transcript = first.removesuffix(".jsonl") + f".{epoch}.jsonl"
                        record({"type": "user", "text": text})
                        continue
                    record({"type": "user", "text": text})
                    if text.strip() == "/quit":
                        return
                    record({"type": "assistant", "text": f"echo: {text}"})
                elif pending[:1] == b"\x1b" and len(pending) == 1:
                    pending = b""
                    record({"type": "interrupt"})
                elif pending[:1] == b"\x03":
                    pending = pending[1:]
                    record({"type": "interrupt"})
                elif pending[:1] == b"\x1b" and PASTE_START.startswith(pending[:6]):
                    break  # an incomplete escape sequence: wait for the rest
                elif pending[:1] == b"\x7f":
                    pending = pending[1:]
                    if buffer:
                        buffer = buffer[:-1]
                        show("\b \b")
                else:
                    buffer, pending = buffer + pending[:1], pending[1:]
                    echo(buffer[-1:])
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, old)


if __name__ == "__main__":
    main()
