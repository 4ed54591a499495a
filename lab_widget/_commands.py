"""A run's slash-command catalog, cached until a file that defines commands changes.

Scanning command folders reads and parses every file in them, so a run keeps the
provider's answer and only asks again when the folders the provider names
(:meth:`~lab_widget.provider.AgentProvider.command_sources`) look different: a cheap
signature of their files' paths, modification times and sizes decides.
"""

from __future__ import annotations

import os
import stat
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from .errors import CommandFileWarning
from .schema import CommandSpec

if TYPE_CHECKING:
    from .provider import AgentProvider

__all__ = [
    "CommandCatalog",
    "CommandFileWarning",
    "Signature",
    "source_signature",
    "walk_files",
]

MAX_DEPTH = 16
"""Folder levels below a source folder that are looked at."""

MAX_FILES = 5000
"""Files looked at per source folder; a folder this large is not a command folder."""

Signature = tuple[tuple[str, int, int], ...]
"""Sorted ``(path, mtime_ns, size)`` of every file under a run's command folders."""

Skipped = Callable[[Path, str], None]
"""Told about each path a walk leaves out, and why."""


def walk_files(
    root: Path,
    *,
    skipped: Skipped | None = None,
    max_depth: int = MAX_DEPTH,
    max_files: int = MAX_FILES,
) -> Iterator[Path]:
    """Every regular file under ``root``, in sorted order, following symlinks safely.

    Symlinked folders are followed (command folders are often linked in from dotfile
    repositories), but each real folder is entered once, so a link back to an ancestor
    ends the walk there instead of looping.

    Parameters
    ----------
    root
        The folder to walk; a missing folder yields nothing.
    skipped
        Called with each path left out (a symlink loop, a dangling link, an unreadable
        folder, the limits below) and the reason.
    max_depth
        Folder levels below ``root`` that are entered.
    max_files
        Files yielded at most; the walk stops after reporting the limit once.

    Examples
    --------
    >>> list(walk_files(Path("/does/not/exist")))
    []
    """
    seen: set[tuple[int, int]] = set()
    budget = [max_files]
    try:
        info = root.stat()
    except OSError:
        return
    if not stat.S_ISDIR(info.st_mode):
        return
    seen.add((info.st_dev, info.st_ino))
    yield from _walk(root, 0, seen, budget, skipped, max_depth)


def _walk(
    folder: Path,
    depth: int,
    seen: set[tuple[int, int]],
    budget: list[int],
    skipped: Skipped | None,
    max_depth: int,
) -> Iterator[Path]:
    def skip(path: Path, reason: str) -> None:
        if skipped is not None:
            skipped(path, reason)

    try:
        with os.scandir(folder) as scan:
            entries = sorted(scan, key=lambda e: e.name)
    except OSError as error:
        skip(folder, f"the folder cannot be read ({error.strerror or error})")
        return
    for entry in entries:
        if budget[0] < 0:
            return  # the file limit was reached deeper down
        path = Path(entry.path)
        try:
            info = entry.stat()  # follows symlinks
        except OSError:
            skip(path, "a dangling or looping symbolic link")
            continue
        if stat.S_ISDIR(info.st_mode):
            key = (info.st_dev, info.st_ino)
            if key in seen:
                skip(path, "a symbolic link back to a folder already scanned (a loop)")
            elif depth + 1 > max_depth:
                skip(path, f"nested deeper than {max_depth} folders")
            else:
                seen.add(key)
                yield from _walk(path, depth + 1, seen, budget, skipped, max_depth)
        elif stat.S_ISREG(info.st_mode):
            if budget[0] == 0:
                skip(path, "the folder holds too many files; the rest are ignored")
                budget[0] = -1
                return
            budget[0] -= 1
            yield path


def source_signature(folders: Sequence[Path]) -> Signature:
    """A value that changes when any file under ``folders`` is added, removed or edited.

    Examples
    --------
    >>> source_signature([Path("/does/not/exist")])
    ()
    """
    entries: list[tuple[str, int, int]] = []
    for folder in folders:
        for path in walk_files(folder):
            try:
                info = path.stat()
            except OSError:
                continue  # removed while walking: the next call sees it gone
            entries.append((str(path), info.st_mtime_ns, info.st_size))
    return tuple(sorted(entries))


class CommandCatalog:
    """The slash commands one run offers, re-scanned only when their files change.

    Parameters
    ----------
    provider
        The run's provider; its :meth:`commands` is the source of truth.
    cwd
        The run's working folder.

    Examples
    --------
    >>> from lab_widget.provider import get_provider
    >>> catalog = CommandCatalog(get_provider("claude-code"), Path("/does/not/exist"))
    >>> catalog.get() == catalog.get(), catalog.scans
    (True, 1)
    """

    def __init__(self, provider: AgentProvider, cwd: Path) -> None:
        self._provider = provider
        self._cwd = cwd
        self._lock = threading.Lock()
        self._signature: Signature | None = None
        self._commands: list[CommandSpec] = []
        self.scans = 0
        """How many times the provider was asked (a cache miss each)."""

    def __repr__(self) -> str:
        return f"CommandCatalog({self._provider.meta.id!r}, cwd={str(self._cwd)!r})"

    def get(self) -> list[CommandSpec]:
        """Every command, from the cache unless a command file changed since the last scan."""
        # The signature is taken before scanning: an edit that lands during the scan
        # changes the next signature, so it is never cached as seen.
        signature = source_signature(self._provider.command_sources(self._cwd))
        with self._lock:
            if self._signature is None or signature != self._signature:
                self._commands = list(self._provider.commands(self._cwd))
                self._signature = signature
                self.scans += 1
            return list(self._commands)

    def chat_safe(self) -> list[CommandSpec]:
        """The commands a chat can run: those that never strand the agent's terminal."""
        return [command for command in self.get() if command.chat_safe]

    def invalidate(self) -> None:
        """Forget the cached commands; the next :meth:`get` scans again."""
        with self._lock:
            self._signature = None
