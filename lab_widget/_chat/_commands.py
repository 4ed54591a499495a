"""A run's slash-command catalog, cached until a file that defines commands changes.

Scanning command folders reads and parses every file in them, so a run keeps the
provider's answer and only asks again when the folders the provider names
(:meth:`~lab_widget.provider.AgentProvider.command_sources`) look different: a cheap
signature of their files' paths, modification times and sizes decides.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import CommandFileWarning
from ..provider import walk_files
from ..schema import CommandSpec

if TYPE_CHECKING:
    from ..provider import AgentProvider

__all__ = ["CommandCatalog", "CommandFileWarning", "Signature", "source_signature"]

Signature = tuple[tuple[str, int, int], ...]
"""Sorted ``(path, mtime_ns, size)`` of every file under a run's command folders."""


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
