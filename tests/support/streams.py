"""A pane stream's listener that keeps everything it hears."""

from __future__ import annotations

import threading
from typing import Any

from lab_widget._runtime._screen import Screen


class Recorder:
    """A stream listener that keeps everything it hears, in order."""

    def __init__(self) -> None:
        self.events: list[tuple[str, Any]] = []
        self.lock = threading.Lock()

    def on_screen(self, tag: object, screen: Screen) -> None:
        with self.lock:
            self.events.append(("screen", (tag, screen)))

    def on_output(self, data: bytes) -> None:
        with self.lock:
            self.events.append(("output", data))

    def on_size(self, cols: int, rows: int) -> None:
        with self.lock:
            self.events.append(("size", (cols, rows)))

    def on_end(self, reason: str) -> None:
        with self.lock:
            self.events.append(("end", reason))

    def of(self, kind: str) -> list[Any]:
        with self.lock:
            return [value for k, value in self.events if k == kind]

    def output_after_screen(self) -> bytes:
        with self.lock:
            kinds = [k for k, _ in self.events]
            start = kinds.index("screen") if "screen" in kinds else len(kinds)
            return b"".join(v for k, v in self.events[start:] if k == "output")
