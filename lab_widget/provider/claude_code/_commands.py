"""Claude Code's slash-command catalog: the pinned builtins merged with custom commands
and skills found where the CLI itself looks for them.

Every rule below was checked against the pinned 2.1.332 binary (its headless
``initialize`` answer, its ``/`` menu, and which file's body reached the model when a
name was typed); ``tests/test_live_commands.py`` keeps the main ones honest.

Where
    Project definitions live in ``.claude/commands/`` and ``.claude/skills/`` of the
    run's folder and of every folder above it, up to the git repository's root when
    inside one, else up to ``/``; the home folder itself is never a project folder (its
    ``.claude`` is the user's). User definitions live in ``commands/`` and ``skills/`` of
    the user config folder (``$CLAUDE_CONFIG_DIR``, else ``~/.claude``).
Names
    A command is named by its path below ``commands/`` without ``.md`` (lower case only),
    folders joined by ``:`` (``a/b/c.md`` is ``/a:b:c``; hidden folders count too). A
    skill is ``<name>/SKILL.md`` one level down and is named by its folder; its
    frontmatter ``name`` is only a display alias. ``user-invocable: false`` hides either.
Descriptions
    The frontmatter ``description``, else the first non-empty body line without its
    heading marks, cut to :data:`~._compat.DESCRIPTION_LIMIT` characters.
Clashes
    For one name the CLI runs exactly one definition, and the catalog offers that one: a
    user skill, then a project skill, then a user command, then a project command, then
    the builtin; among project folders the one nearest the run's folder wins. Every loser
    is dropped with a :class:`~lab_widget._commands.CommandFileWarning` naming both,
    because a file that hides a builtin (a project ``clear.md`` runs instead of
    ``/clear``) is rarely meant.
Malformed files
    Files that cannot be read, are larger than the CLI's limit, hold binary data or carry
    frontmatter that does not parse are skipped with a ``CommandFileWarning``; a scan
    never raises. (The CLI itself still offers a file whose frontmatter it cannot parse,
    describing it by its first line; the catalog leaves it out so the warning gets
    noticed.)
"""

from __future__ import annotations

import os
import re
import stat
import warnings
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ...errors import CommandFileWarning
from ...schema import CommandSpec
from .. import walk_files
from . import _compat
from ._config import user_config_dir

__all__ = [
    "FrontmatterError",
    "catalog",
    "command_sources",
    "parse_frontmatter",
    "project_roots",
    "summary_line",
]

Kind = Literal["skill", "command"]
Source = Literal["project", "user"]

_SKILL_FILE = "SKILL.md"
_KEY = re.compile(r"^([A-Za-z_][\w-]*)\s*:(?:[ \t]+(.*))?$")
_BLOCK_STYLES = frozenset({">", "|", ">-", "|-", ">+", "|+"})
_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "/": "/"}
_FALSE = frozenset({"false", "False", "FALSE"})


class FrontmatterError(ValueError):
    """A file's ``---`` frontmatter block does not parse."""


@dataclass(frozen=True)
class _Folder:
    path: Path
    kind: Kind
    source: Source


@dataclass(frozen=True)
class _Found:
    spec: CommandSpec
    path: Path
    kind: Kind

    @property
    def label(self) -> str:
        return f"{self.spec.source} {self.kind} {self.path}"


@dataclass(frozen=True)
class _Definition:
    meta: dict[str, str]
    body: str


def _warn(path: Path, reason: str) -> None:
    warnings.warn(f"skipped {path}: {reason}", CommandFileWarning, stacklevel=3)


# -- where -----------------------------------------------------------------------------


def project_roots(cwd: Path, home: Path | None = None) -> list[Path]:
    """The folders whose ``.claude/`` holds project definitions, nearest first.

    Examples
    --------
    >>> project_roots(Path("/srv/a/b"), home=Path("/home/me"))
    [PosixPath('/srv/a/b'), PosixPath('/srv/a'), PosixPath('/srv'), PosixPath('/')]
    >>> project_roots(Path("/home/me/x"), home=Path("/home/me"))
    [PosixPath('/home/me/x')]
    """
    home = Path.home() if home is None else home
    roots: list[Path] = []
    for folder in (cwd, *cwd.parents):
        if folder == home:
            break
        roots.append(folder)
        if (folder / ".git").exists():
            break  # the repository's root is the last project folder
    return roots


def _folders(cwd: Path) -> list[_Folder]:
    """Every folder that may define commands, in the CLI's order of precedence."""
    # The agent sees its working folder with symlinks resolved (getcwd), so walk from there.
    projects = project_roots(cwd.resolve(), Path.home().resolve())
    user = user_config_dir()
    folders = [
        _Folder(user / "skills", "skill", "user"),
        *(_Folder(root / ".claude" / "skills", "skill", "project") for root in projects),
        _Folder(user / "commands", "command", "user"),
        *(_Folder(root / ".claude" / "commands", "command", "project") for root in projects),
    ]
    # A config dir inside the project is both: scan it once (as the user's), or every
    # file in it would clash with itself.
    unique: dict[Path, _Folder] = {}
    for folder in folders:
        unique.setdefault(folder.path, folder)
    return list(unique.values())


def command_sources(cwd: Path) -> list[Path]:
    """The folders whose files define the commands of a run in ``cwd``."""
    return [folder.path for folder in _folders(cwd)]


# -- reading one file ------------------------------------------------------------------


def parse_frontmatter(text: str) -> tuple[dict[str, str], str]:
    r"""Split ``text`` into its frontmatter keys and its body.

    Only what command files use is understood: ``key: value`` lines, quoted values,
    values continued on indented lines and ``>`` / ``|`` blocks. Other values (lists)
    are kept as their text.

    Raises
    ------
    FrontmatterError
        When the block is never closed, a line is not ``key: value``, or a quote is not
        closed.

    Examples
    --------
    >>> parse_frontmatter("---\ndescription: Greet\nargument-hint: <name>\n---\nHi $1")
    ({'description': 'Greet', 'argument-hint': '<name>'}, 'Hi $1')
    >>> parse_frontmatter("No frontmatter")
    ({}, 'No frontmatter')
    """
    lines = text.split("\n")
    if lines[0].rstrip() != "---":
        return {}, text
    for end in range(1, len(lines)):
        if lines[end].rstrip() == "---":
            break
    else:
        raise FrontmatterError("the opening --- is never closed")
    return _mapping(lines[1:end]), "\n".join(lines[end + 1 :])


def _mapping(lines: list[str]) -> dict[str, str]:
    entries: list[tuple[str, str, list[str]]] = []
    for number, line in enumerate(lines, start=2):
        if line[:1] in (" ", "\t") or not line.strip() or line.startswith("#"):
            if entries:
                entries[-1][2].append(line)
            elif line.strip() and not line.startswith("#"):
                raise FrontmatterError(f"line {number} is indented but follows no key")
            continue
        match = _KEY.match(line)
        if match is None:
            raise FrontmatterError(f"line {number} is not 'key: value': {line[:40]!r}")
        entries.append((match[1], (match[2] or "").strip(), []))
    return {key: _scalar(first, rest) for key, first, rest in entries}


def _scalar(first: str, rest: list[str]) -> str:
    more = [line.strip() for line in rest if line.strip() and not line.lstrip().startswith("#")]
    if first in _BLOCK_STYLES:
        return ("\n" if first.startswith("|") else " ").join(more)
    if first[:1] in ('"', "'"):
        return _quoted(" ".join([first, *more]))
    text = re.sub(r"\s+#.*$", "", " ".join([first, *more]))
    if text.startswith(("[", "{")) and not _balanced(text):
        raise FrontmatterError(f"unbalanced brackets in {text[:40]!r}")
    return text


def _balanced(text: str) -> bool:
    """Whether every ``[`` / ``{`` closes (a flow list like ``[a] [b]`` is kept as text).

    Examples
    --------
    >>> _balanced("[a] [b]"), _balanced("[oops")
    (True, False)
    """
    depth = 0
    for char in text:
        depth += (char in "[{") - (char in "]}")
        if depth < 0:
            return False
    return depth == 0


def _quoted(text: str) -> str:
    quote = text[0]
    if len(text) < 2 or not text.endswith(quote):
        raise FrontmatterError(f"a quoted value is not closed: {text[:40]!r}")
    inner = text[1:-1]
    if quote == "'":
        return inner.replace("''", "'")
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m[1], m[0]), inner)


def summary_line(body: str, limit: int = _compat.DESCRIPTION_LIMIT) -> str:
    r"""The first non-empty body line, without heading marks, cut to ``limit``.

    Examples
    --------
    >>> summary_line("\n\n# Review the diff\nmore")
    'Review the diff'
    >>> summary_line("x" * 120, limit=10)
    'xxxxxxx...'
    """
    for line in body.split("\n"):
        text = line.strip().lstrip("#").strip()
        if text:
            return text if len(text) <= limit else text[: limit - 3] + "..."
    return ""


def _load(path: Path) -> bytes | None:
    """The file's bytes, or None (with a warning) when it cannot or must not be read."""
    limit = _compat.MAX_COMMAND_FILE_BYTES
    try:
        if not stat.S_ISREG(path.stat().st_mode):
            _warn(path, "not a regular file")  # a pipe or device would block the read
            return None
        with path.open("rb") as handle:
            raw = handle.read(limit + 1)  # never more, even if the file grows meanwhile
    except OSError as error:
        _warn(path, f"cannot be read ({error.strerror or error})")
        return None
    if len(raw) > limit:
        _warn(path, f"larger than {limit} bytes (the CLI skips it)")
        return None
    return raw


def _decode(path: Path, raw: bytes) -> str | None:
    """The file's text, or None (with a warning) for binary data."""
    if b"\0" in raw:
        _warn(path, "holds binary data, not text")
        return None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        _warn(path, "is not UTF-8 text")
        return None
    return text.removeprefix("\ufeff").replace("\r\n", "\n")


def _read(path: Path) -> _Definition | None:
    """The file's frontmatter and body, or None (with a warning) when it is unusable."""
    raw = _load(path)
    text = None if raw is None else _decode(path, raw)
    if text is None:
        return None
    try:
        meta, body = parse_frontmatter(text)
    except FrontmatterError as error:
        _warn(path, f"malformed frontmatter: {error}")
        return None
    return _Definition(meta, body)


def _spec(name: str, definition: _Definition, source: Source) -> CommandSpec | None:
    meta = definition.meta
    if meta.get("user-invocable", "").strip() in _FALSE:
        return None
    description = " ".join(meta.get("description", "").split())
    return CommandSpec(
        name=name,
        description=description or summary_line(definition.body),
        arg_hint=" ".join(meta.get("argument-hint", "").split()),
        source=source,
    )


# -- scanning folders ------------------------------------------------------------------


def _command_files(folder: _Folder) -> Iterable[tuple[str, Path]]:
    for path in walk_files(folder.path, skipped=_warn):
        if path.suffix == ".md":
            parts = path.relative_to(folder.path).with_suffix("").parts
            yield "/" + ":".join(parts), path


def _skill_files(folder: _Folder) -> Iterable[tuple[str, Path]]:
    try:
        with os.scandir(folder.path) as scan:
            entries = sorted(scan, key=lambda e: e.name)
    except FileNotFoundError:
        return
    except OSError as error:
        _warn(folder.path, f"the folder cannot be read ({error.strerror or error})")
        return
    for entry in entries:
        skill = Path(entry.path) / _SKILL_FILE
        if entry.is_dir() and os.path.lexists(skill):
            yield "/" + entry.name, skill


def _scan(folder: _Folder) -> list[_Found]:
    files = _skill_files(folder) if folder.kind == "skill" else _command_files(folder)
    found: list[_Found] = []
    for name, path in files:
        definition = _read(path)
        spec = None if definition is None else _spec(name, definition, folder.source)
        if spec is not None:
            found.append(_Found(spec, path, folder.kind))
    return found


def _merge(builtins: Iterable[CommandSpec], found: Iterable[_Found]) -> list[CommandSpec]:
    """One command per name: the first found wins, and a found name hides a builtin."""
    winners: dict[str, _Found] = {}
    for item in found:
        winner = winners.setdefault(item.spec.name, item)
        if winner is not item:
            warnings.warn(
                f"{item.spec.name}: {winner.label} wins over {item.label}, "
                "as in Claude Code; the second is not offered",
                CommandFileWarning,
                stacklevel=3,
            )
    kept: list[CommandSpec] = []
    for builtin in builtins:
        hider = winners.get(builtin.name)
        if hider is None:
            kept.append(builtin)
            continue
        warnings.warn(
            f"{builtin.name}: {hider.label} hides the builtin {builtin.name}; "
            "Claude Code runs the file instead",
            CommandFileWarning,
            stacklevel=3,
        )
    custom = sorted((w.spec for w in winners.values()), key=lambda s: (s.source, s.name))
    return kept + custom


def catalog(cwd: Path) -> list[CommandSpec]:
    """Every slash command a Claude Code run in ``cwd`` offers.

    The pinned builtins in the TUI's own order, then project commands and skills, then
    user ones, each sorted by name. Never raises for a bad file (see the module notes).
    """
    found = [item for folder in _folders(cwd) for item in _scan(folder)]
    return _merge(_compat.BUILTIN_COMMANDS, found)
