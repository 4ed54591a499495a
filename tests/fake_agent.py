#!/usr/bin/env python3
"""A tiny terminal agent for runner and chat-brain tests: it turns on bracketed paste,
reads raw keys, and records each submitted line (and each Esc) as JSONL.

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
    sys.stdout.write("\x1b[?2004h> ")
    sys.stdout.flush()
    Path(first + ".ready").touch()
    buffer, pending, in_paste = b"", b"", False

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
                elif pending[:1] == b"\r":
                    pending = pending[1:]
                    text = buffer.decode("utf-8", "replace").replace("\r", "\n")
                    buffer = b""
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
                else:
                    buffer, pending = buffer + pending[:1], pending[1:]
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, old)


if __name__ == "__main__":
    main()
