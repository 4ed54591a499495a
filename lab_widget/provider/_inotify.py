"""Linux inotify through ctypes: a file descriptor that becomes readable when a watched
folder changes, so a tailer can block in ``select`` (no timer, no wake-ups while idle).
"""

from __future__ import annotations

import ctypes
import os
from pathlib import Path

__all__ = ["Inotify", "inotify_available"]

# <sys/inotify.h>: what changes a folder's listing or a file's content inside it.
_MASK = (
    0x00000002  # IN_MODIFY
    | 0x00000008  # IN_CLOSE_WRITE
    | 0x00000040  # IN_MOVED_FROM
    | 0x00000080  # IN_MOVED_TO
    | 0x00000100  # IN_CREATE
    | 0x00000200  # IN_DELETE
    | 0x00000400  # IN_DELETE_SELF
    | 0x00000800  # IN_MOVE_SELF
    | 0x01000000  # IN_ONLYDIR
)


def _libc() -> ctypes.CDLL | None:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.inotify_init1  # noqa: B018  (raises AttributeError off Linux)
    except (OSError, AttributeError):
        return None
    return libc


_LIBC = _libc()


def inotify_available() -> bool:
    """Whether this platform has inotify (Linux).

    Examples
    --------
    >>> isinstance(inotify_available(), bool)
    True
    """
    return _LIBC is not None


class Inotify:
    """One inotify instance watching folders (not recursively).

    Examples
    --------
    >>> import tempfile, select
    >>> folder = Path(tempfile.mkdtemp())
    >>> ino = Inotify()
    >>> ino.watch(folder)
    True
    >>> _ = (folder / "new.txt").write_text("x")
    >>> bool(select.select([ino.fd], [], [], 5)[0]) and ino.drain()
    True
    >>> ino.close()
    """

    def __init__(self) -> None:
        if _LIBC is None:
            raise OSError("inotify is not available on this platform")
        fd = _LIBC.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        if fd < 0:
            err = ctypes.get_errno()
            raise OSError(err, os.strerror(err))
        self.fd: int = fd
        self._watches: dict[Path, int] = {}

    @property
    def watched(self) -> set[Path]:
        """The folders watched now."""
        return set(self._watches)

    def watch(self, folder: Path) -> bool:
        """Watch ``folder``; False when it cannot be watched (gone, not a folder)."""
        if folder in self._watches:
            return True
        assert _LIBC is not None
        wd = _LIBC.inotify_add_watch(self.fd, os.fsencode(folder), _MASK)
        if wd < 0:
            return False
        self._watches[folder] = wd
        return True

    def unwatch(self, folder: Path) -> None:
        """Stop watching ``folder`` (no error when the kernel dropped it already)."""
        wd = self._watches.pop(folder, None)
        if wd is not None and wd not in self._watches.values():
            assert _LIBC is not None
            _LIBC.inotify_rm_watch(self.fd, wd)

    def drain(self) -> bool:
        """Read every pending event; True when there was any."""
        got = False
        while True:
            try:
                data = os.read(self.fd, 65536)
            except BlockingIOError:
                return got
            if not data:
                return got
            got = True

    def close(self) -> None:
        """Release the descriptor."""
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1
