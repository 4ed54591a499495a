"""Incremental JSONL reading shared by providers whose transcripts are appended lines."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["CorruptLine", "JsonlTail", "Line"]


@dataclass(frozen=True)
class Line:
    """One complete, parsed line."""

    number: int
    value: Any


@dataclass(frozen=True)
class CorruptLine:
    """A complete line that is not JSON (or not UTF-8); kept so the reader can say so."""

    number: int
    error: str
    raw: bytes


class JsonlTail:
    r"""Reads the lines appended to a file since the last call.

    Only complete lines are returned; a partial last line waits for its newline. The cost
    of a call is proportional to the bytes appended since the previous one. When the file
    shrinks (rewritten in place), :attr:`rewound` is set and reading starts over.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "t.jsonl"
    >>> _ = p.write_bytes(b'{"a": 1}\n{"b"')
    >>> tail = JsonlTail(p)
    >>> [line.value for line in tail.read()]
    [{'a': 1}]
    >>> with p.open("ab") as f:
    ...     _ = f.write(b': 2}\nnot json\n')
    >>> [type(x).__name__ for x in tail.read()]
    ['Line', 'CorruptLine']
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.offset = 0
        self.lines = 0
        self.rewound = False
        self._partial = b""

    def read(self) -> list[Line | CorruptLine]:
        """Parse every line completed since the last call."""
        self.rewound = False
        try:
            with self.path.open("rb") as f:
                size = f.seek(0, 2)
                if size < self.offset + len(self._partial):
                    self.offset, self.lines, self._partial, self.rewound = 0, 0, b"", True
                f.seek(self.offset + len(self._partial))
                data = f.read()
        except FileNotFoundError:
            return []
        if not data:
            return []
        chunk = self._partial + data
        end = chunk.rfind(b"\n")
        if end < 0:
            self._partial = chunk
            return []
        complete, self._partial = chunk[: end + 1], chunk[end + 1 :]
        self.offset += len(complete)
        out: list[Line | CorruptLine] = []
        for raw in complete.split(b"\n")[:-1]:
            self.lines += 1
            if not raw.strip():
                continue
            try:
                out.append(Line(self.lines, json.loads(raw)))
            except ValueError as exc:  # JSONDecodeError and UnicodeDecodeError
                out.append(CorruptLine(self.lines, str(exc), raw[:200]))
        return out
