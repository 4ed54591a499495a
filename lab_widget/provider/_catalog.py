"""What every adapter's slash-command catalog is made of: rows of its pinned builtin table,
and the files under its CLI's command folders, walked safely.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Collection, Iterable, Iterator
from pathlib import Path

from ..schema import CommandSpec

__all__ = [
    "MAX_DEPTH",
    "MAX_FILES",
    "Skipped",
    "builtin_command",
    "builtin_table",
    "merge_commands",
    "walk_files",
]


def builtin_command(
    name: str,
    description: str,
    arg_hint: str = "",
    *,
    clear_command: str,
    curated_out: Collection[str],
) -> CommandSpec:
    """One row of a provider's pinned builtin table.

    Examples
    --------
    >>> row = builtin_command("/new", "Start over", clear_command="/new", curated_out=())
    >>> (row.role, row.chat_safe, row.source)
    ('clear', True, 'builtin')
    """
    return CommandSpec(
        name=name,
        description=description,
        arg_hint=arg_hint,
        source="builtin",
        role="clear" if name == clear_command else None,
        chat_safe=name not in curated_out,
    )


def builtin_table(
    clear_command: str, curated_out: Collection[str], *rows: tuple[str, ...]
) -> tuple[CommandSpec, ...]:
    """A provider's pinned builtin table: one row a command, ``(name, description)`` or
    ``(name, description, argument hint)``, in the order of the TUI's own menu.

    Examples
    --------
    >>> table = builtin_table("/new", {"/vim": "edits the terminal"},
    ...                       ("/new", "Start over"), ("/vim", "Vim mode", "[on|off]"))
    >>> [(c.name, c.role, c.chat_safe, c.arg_hint) for c in table]
    [('/new', 'clear', True, ''), ('/vim', None, False, '[on|off]')]
    """
    return tuple(
        builtin_command(*row, clear_command=clear_command, curated_out=curated_out) for row in rows
    )


def merge_commands(
    builtins: Iterable[CommandSpec], custom: Iterable[CommandSpec]
) -> list[CommandSpec]:
    """The builtins in their order, then the custom commands: a later custom command of a
    name replaces an earlier one (a project's replaces the user's, given after it), and a
    builtin keeps its name.

    Examples
    --------
    >>> clear = builtin_command("/clear", "Start over", clear_command="/clear", curated_out=())
    >>> mine = CommandSpec(name="/clear", description="mine", source="user")
    >>> greet = CommandSpec(name="/greet", description="Hi", source="user")
    >>> [(c.name, c.source) for c in merge_commands([clear], [mine, greet])]
    [('/clear', 'builtin'), ('/greet', 'user')]
    """
    found: dict[str, CommandSpec] = {c.name: c for c in builtins}
    for spec in custom:
        if spec.name not in found or found[spec.name].source != "builtin":
            found[spec.name] = spec
    return list(found.values())


MAX_DEPTH = 16
"""Folder levels below a source folder that are looked at."""

MAX_FILES = 5000
"""Files looked at per source folder; a folder this large is not a command folder."""

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
