"""Incremental JSONL reading shared by providers whose transcripts are appended lines."""

from __future__ import annotations

import gc
import json
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import orjson

__all__ = ["CorruptLine", "JsonlTail", "Line", "collector_paused", "loads_or_none"]

_HEAD = 512
_CHUNK = 4 << 20  # bytes read at a time: bounds memory on a large first read


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

    Only complete lines are returned; a partial last line waits for its newline. ``skip``,
    given the raw bytes of a complete line, may pass over lines its reader never uses
    without parsing them (their line numbers still count). The cost
    of a call is proportional to the bytes appended since the previous one. When the file
    shrinks (rewritten in place) or is replaced by another file (deleted and created again),
    :attr:`rewound` is set and reading starts over.

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

    def __init__(self, path: Path, skip: Callable[[bytes], bool] | None = None) -> None:
        self.path = path
        self._skip = skip
        self.offset = 0
        self.lines = 0
        self.rewound = False
        self._partial = b""
        self._identity: tuple[int, int] | None = None
        self._vanished = False
        self._head = b""  # the file's first bytes, to recognise it

    def read(self) -> list[Line | CorruptLine]:
        """Parse every line completed since the last call."""
        return list(self.read_iter())

    def read_iter(self) -> Iterator[Line | CorruptLine]:
        """Like :meth:`read`, one line at a time: parsed values need not pile up in memory
        (which makes a large first read several times slower through garbage collection),
        and the file is read in chunks, so a large file is never held whole.
        :attr:`rewound` is known when the call returns; consume the iterator fully.
        """
        self.rewound = False
        f = self._open()
        return self._chunks(f) if f is not None else iter(())

    def _open(self) -> BinaryIO | None:
        try:
            f = self.path.open("rb")
        except FileNotFoundError:
            self._vanished = self._identity is not None
            return None
        try:
            stat = os.fstat(f.fileno())
            identity = (stat.st_dev, stat.st_ino)
            size = stat.st_size
            # Rewritten in place (shorter), or replaced by another file (deleted and created
            # again, or renamed over): start over. A new file may get the old one's inode at
            # once: its first bytes tell.
            replaced = self._identity is not None and (
                identity != self._identity
                or self._vanished
                or os.pread(f.fileno(), len(self._head), 0) != self._head
            )
            if replaced or size < self.offset + len(self._partial):
                self.offset, self.lines, self._partial, self.rewound = 0, 0, b"", True
                self._head = b""
            self._identity, self._vanished = identity, False
            f.seek(self.offset + len(self._partial))
        except OSError:
            f.close()
            raise
        return f

    def _chunks(self, f: BinaryIO) -> Iterator[Line | CorruptLine]:
        with f:
            while data := f.read(_CHUNK):
                chunk = self._partial + data if self._partial else data
                # One split in C, rather than a search and a copy per line; the last piece
                # is the partial line (empty after a final newline).
                lines = chunk.split(b"\n")
                self._partial = lines.pop()
                if not lines:
                    continue
                complete = len(chunk) - len(self._partial)
                if len(self._head) < _HEAD and self.offset == len(self._head):
                    self._head += chunk[: min(complete, _HEAD - len(self._head))]
                self.offset += complete
                number = self.lines
                self.lines += len(lines)
                yield from self._parse(lines, number)

    def _parse(self, lines: list[bytes], number: int) -> Iterator[Line | CorruptLine]:
        skip = self._skip
        for raw in lines:
            number += 1
            if not raw or (skip is not None and skip(raw)) or raw.isspace():
                continue
            try:
                yield Line(number, _loads(raw))
            except ValueError as exc:  # JSONDecodeError and UnicodeDecodeError
                yield CorruptLine(number, str(exc), raw[:200])


def _loads(raw: bytes) -> Any:
    r"""One line's JSON: orjson first (several times faster), the standard library for what
    orjson refuses but a transcript may hold (an escaped lone surrogate, a number beyond 64
    bits, ``NaN``), so nothing the standard reader reads is lost.

    Examples
    --------
    >>> _loads(b'{"a": 1}')
    {'a': 1}
    >>> _loads(b'"\\ud800"') == chr(0xD800), _loads(b"[NaN]")
    (True, [nan])
    """
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        return json.loads(raw)


def loads_or_none(raw: bytes, *, replace: bool = False) -> Any:
    r"""One line's JSON as :class:`JsonlTail` parses it, or ``None`` where it would report a
    corrupt line: for the usage-only scans, which count nothing from such a line, as the
    reader does. ``replace`` reads bytes that are not UTF-8 with replacement characters
    (a store whose reader decodes them so).

    Examples
    --------
    >>> loads_or_none(b'{"a": 1}'), loads_or_none(b"not json"), loads_or_none(b'"\xff"')
    ({'a': 1}, None, None)
    >>> loads_or_none(b'"\xff"', replace=True)
    '\ufffd'
    """
    try:
        return _loads(raw if not replace else raw.decode("utf-8", "replace").encode())
    except ValueError:
        return None


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while a reader maps what it has read.

    A first read of a long transcript builds thousands of messages that all survive, so
    the collector runs again and again over a growing heap, and in a kernel that holds
    the user's data every full pass walks that too. Parsed JSON has no reference cycles
    (reference counting frees it), so nothing piles up while paused. A collector the
    user turned off stays off.

    Examples
    --------
    >>> import gc
    >>> with collector_paused():
    ...     gc.isenabled()
    False
    >>> gc.isenabled()
    True
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
