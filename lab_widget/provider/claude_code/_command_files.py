"""Claude Code's custom commands and skills: the folders the CLI reads them from, and each
file read as the CLI reads it (see ``_commands`` for the rules and their evidence).
"""

from __future__ import annotations

import os
import stat
import warnings
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ...errors import CommandFileWarning
from ...schema import CommandSpec
from ..kit import walk_files
from . import _compat
from ._config import user_config_dir
from ._frontmatter import FrontmatterError, parse_frontmatter

__all__ = ["Found", "folders", "project_roots", "scan", "summary_line", "warn"]

Kind = Literal["skill", "command"]
Source = Literal["project", "user"]

_SKILL_FILE = "SKILL.md"
_FALSE = frozenset({"false", "False", "FALSE"})


@dataclass(frozen=True)
class _Folder:
    path: Path
    kind: Kind
    source: Source


@dataclass(frozen=True)
class Found:
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


def warn(path: Path, reason: str) -> None:
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


def folders(cwd: Path) -> list[_Folder]:
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


# -- reading one file ------------------------------------------------------------------


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
            warn(path, "not a regular file")  # a pipe or device would block the read
            return None
        with path.open("rb") as handle:
            raw = handle.read(limit + 1)  # never more, even if the file grows meanwhile
    except OSError as error:
        warn(path, f"cannot be read ({error.strerror or error})")
        return None
    if len(raw) > limit:
        warn(path, f"larger than {limit} bytes (the CLI skips it)")
        return None
    return raw


def _decode(path: Path, raw: bytes) -> str | None:
    """The file's text, or None (with a warning) for binary data."""
    if b"\0" in raw:
        warn(path, "holds binary data, not text")
        return None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        warn(path, "is not UTF-8 text")
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
        warn(path, f"malformed frontmatter: {error}")
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
    for path in walk_files(folder.path, skipped=warn):
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
        warn(folder.path, f"the folder cannot be read ({error.strerror or error})")
        return
    for entry in entries:
        skill = Path(entry.path) / _SKILL_FILE
        if entry.is_dir() and os.path.lexists(skill):
            yield "/" + entry.name, skill


def scan(folder: _Folder) -> list[Found]:
    files = _skill_files(folder) if folder.kind == "skill" else _command_files(folder)
    found: list[Found] = []
    for name, path in files:
        definition = _read(path)
        spec = None if definition is None else _spec(name, definition, folder.source)
        if spec is not None:
            found.append(Found(spec, path, folder.kind))
    return found
