"""What every adapter's slash-command catalog is made of: its pinned builtin table (read from
the ``commands.toml`` data file of its package), and the files under its CLI's command
folders, walked safely.
"""

from __future__ import annotations

import os
import stat
import tomllib
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from types import MappingProxyType
from typing import Any

from ..errors import CommandTableError
from ..schema import CommandSpec

__all__ = [
    "COMMAND_TABLE",
    "MAX_DEPTH",
    "MAX_FILES",
    "CommandTable",
    "Skipped",
    "builtin_command",
    "builtin_table",
    "command_table",
    "merge_commands",
    "toml_commands",
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


COMMAND_TABLE = "commands.toml"
"""The data file, in a provider's package, that holds its pinned builtin table."""


@dataclass(frozen=True)
class CommandTable:
    """A provider's pinned builtin slash commands, as its :data:`COMMAND_TABLE` holds them."""

    version: str
    """The CLI version the table was taken from (the provider's pin)."""
    builtins: tuple[CommandSpec, ...]
    """Every builtin in the order of the TUI's own menu, the chat-unsafe ones marked."""
    curated_out: Mapping[str, str]
    """The builtins a chat must not offer, each with why (``[chat_unsafe]``)."""

    def catalog(self, cwd: Path) -> list[CommandSpec]:
        """The catalog of a CLI whose only slash commands are its builtins: the rows in menu
        order, whatever the run's folder ``cwd``.
        """
        return list(self.builtins)

    def command_sources(self, cwd: Path) -> list[Path]:
        """The folders whose files define a builtins-only CLI's commands: none."""
        return []


def command_table(package: str, clear_command: str) -> CommandTable:
    """The pinned builtin table in the :data:`COMMAND_TABLE` of ``package``.

    The file is package data, read through :mod:`importlib.resources` (so an installed
    wheel reads it too)::

        version = "1.2.3"                # the CLI version the table was taken from
        builtins = [                     # in the order of the TUI's own menu
            ["/new", "Start a new session"],
            ["/vim", "Toggle Vim mode", "[on|off]"],   # an argument hint, when it has one
        ]

        [chat_unsafe]                    # builtins a chat must not offer, each with why
        "/vim" = "only changes how the terminal edits text"

    Parameters
    ----------
    package
        The provider's package (``__package__`` of its ``_commands`` module).
    clear_command
        The builtin that starts a new conversation; its row gets the ``"clear"`` role.

    Raises
    ------
    CommandTableError
        The file is missing or unreadable, is not TOML, lacks a key or has one it should
        not, or holds a row, a name or a reason of the wrong shape (a name twice, a reason
        for a command the table lacks).

    Examples
    --------
    >>> table = command_table("lab_widget.provider.codex", "/new")
    >>> specs = {c.name: c for c in table.catalog(Path("."))}
    >>> (specs["/new"].role, specs["/new"].chat_safe, specs["/vim"].chat_safe)
    ('clear', True, False)
    >>> table.curated_out["/vim"]
    "only changes how the terminal's composer edits text"
    """
    origin = f"{package.replace('.', '/')}/{COMMAND_TABLE}"
    try:
        text = resources.files(package).joinpath(COMMAND_TABLE).read_text(encoding="utf-8")
    except (ImportError, OSError, UnicodeDecodeError) as error:
        raise CommandTableError(f"{origin} cannot be read: {error}") from error
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise CommandTableError(f"{origin} is not valid TOML: {error}") from error
    return _table(data, clear_command, origin)


_TABLE_KEYS = ("version", "builtins", "chat_unsafe")


def _table(data: dict[str, Any], clear_command: str, origin: str) -> CommandTable:
    def bad(what: str) -> CommandTableError:
        return CommandTableError(f"{origin}: {what}")

    if sorted(data) != sorted(_TABLE_KEYS):
        raise bad(f"the keys must be exactly {', '.join(_TABLE_KEYS)}; found {sorted(data)}")
    version, rows, unsafe = data["version"], data["builtins"], data["chat_unsafe"]
    if not isinstance(version, str) or not version:
        raise bad("version must be the CLI version the table was taken from, a string")
    if not isinstance(rows, list):
        raise bad("builtins must be an array of rows")
    names: list[str] = []
    for row in rows:
        if not (
            isinstance(row, list)
            and len(row) in (2, 3)
            and all(isinstance(cell, str) for cell in row)
        ):
            raise bad(f'row {row!r} is not ["/name", "description"] (and an argument hint)')
        if not _is_command_name(row[0]):
            raise bad(f"row {row!r} does not name a slash command")
        if row[0] in names:
            raise bad(f"{row[0]} is listed twice")
        names.append(row[0])
    if not isinstance(unsafe, dict):
        raise bad("chat_unsafe must be a table of command names and reasons")
    for name, reason in unsafe.items():
        if name not in names:
            raise bad(f"chat_unsafe names {name}, which builtins lacks")
        if not isinstance(reason, str) or not reason or "\n" in reason:
            raise bad(f"the reason {name} is chat-unsafe must be one line of text")
    return CommandTable(
        version=version,
        builtins=builtin_table(clear_command, unsafe, *(tuple(row) for row in rows)),
        curated_out=MappingProxyType(dict(unsafe)),
    )


def _is_command_name(name: str) -> bool:
    return len(name) > 1 and name.startswith("/") and not any(c.isspace() for c in name)


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


def toml_commands(folder: Path, source: str) -> list[CommandSpec]:
    r"""The custom commands of ``.toml`` files under ``folder`` (Gemini CLI's layout, kept by
    its forks): ``prompt`` (required) and ``description``; ``a/b.toml`` is ``/a:b``.

    Examples
    --------
    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> (folder / "git").mkdir()
    >>> _ = (folder / "git" / "log.toml").write_text('prompt = "x"\ndescription = "Log"')
    >>> _ = (folder / "bad.toml").write_text('description = "no prompt"')
    >>> [(c.name, c.description, c.source) for c in toml_commands(folder, "project")]
    [('/git:log', 'Log', 'project')]
    """
    specs = []
    try:
        files = sorted(folder.rglob("*.toml"))
    except OSError:
        return []
    for path in files:
        try:
            data = tomllib.loads(path.read_text())
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
            continue
        if not isinstance(data.get("prompt"), str):
            continue  # the CLI skips a command without a prompt
        name = "/" + ":".join(path.relative_to(folder).with_suffix("").parts)
        description = data.get("description")
        specs.append(
            CommandSpec(
                name=name,
                description=description if isinstance(description, str) else "",
                source="project" if source == "project" else "user",
            )
        )
    return specs


def toml_catalog(builtins: Iterable[CommandSpec], user: Path, project: Path) -> list[CommandSpec]:
    """The builtins, then the ``.toml`` commands of the ``user`` folder and of the
    ``project`` folder (a project's command replaces the user's of the same name).

    Examples
    --------
    >>> import tempfile
    >>> user, project = Path(tempfile.mkdtemp()), Path(tempfile.mkdtemp())
    >>> _ = (user / "hi.toml").write_text('prompt = "u"')
    >>> _ = (project / "hi.toml").write_text('prompt = "p"')
    >>> [(c.name, c.source) for c in toml_catalog([], user, project)]
    [('/hi', 'project')]
    """
    custom = (*toml_commands(user, "user"), *toml_commands(project, "project"))
    return merge_commands(builtins, custom)
