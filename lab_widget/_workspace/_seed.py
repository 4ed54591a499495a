"""Workspace seeding and the run's git side: one generic seeder driven by provider metadata.

A provider declares, in :class:`~lab_widget.schema.SeedMeta`, where its CLI reads project
instructions (the context file) and skills, which workspace paths to keep out of git, and
which attribution lines to scrub. This module does the rest for every provider alike:

- :func:`prepare_workspace` optionally gives the run its own ``git worktree`` on its own
  branch, writes a :class:`Seed` (context file, skills) into the run's folder, and adds the
  provider's exclude lines to the repository's ``info/exclude`` so ``git status`` stays
  empty;
- :class:`Workspace` remembers what was done (it round-trips through ``run.json``), and
  offers the scrubbed :meth:`~Workspace.diff`, :meth:`~Workspace.commit` and
  :meth:`~Workspace.cleanup`.

Scrubbing applies exactly where lab_widget exports agent-written text: the diff and the
commit message. Files on disk, transcripts and commits the agent makes itself are left as
they are.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import InvalidSeedError, SeedConflictError, WorkspaceError
from ..schema import ScrubPattern, SeedMeta
from ._scrub import scrub_diff, scrub_text

__all__ = ["Seed", "Workspace", "add_excludes", "prepare_workspace"]

_SKILL_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
_EXCLUDE_HEADER = "# lab_widget: seeded files and files the agent CLI writes"
BRANCH_PREFIX = "lab/"
"""Each ``worktree=True`` run works on the branch ``lab/<run id>``."""


@dataclass(frozen=True)
class Seed:
    """What to put into a run's folder before the agent starts.

    The provider decides where each part goes (its :class:`~lab_widget.schema.SeedMeta`
    names the CLI's project-instructions file and skills folder), and its exclude lines
    keep them out of ``git status``.

    Parameters
    ----------
    context
        Project instructions, written as the provider's context file.
    skills
        Skill name (a plain folder name) to the skill file's markdown.

    Examples
    --------
    >>> Seed(context="Answer in French.", skills={"lint": "Run ruff."})
    Seed(context='Answer in French.', skills=['lint'])
    """

    context: str | None = None
    skills: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in self.skills:
            if not _SKILL_NAME.match(name) or name in (".", ".."):
                raise InvalidSeedError(
                    f"skill name {name!r} must be a plain folder name "
                    "(letters, digits, '.', '_' or '-', at most 64)"
                )

    def __repr__(self) -> str:
        # Skill bodies can be long: the names say enough.
        return f"Seed(context={self.context!r}, skills={sorted(self.skills)!r})"

    def files(self, meta: SeedMeta) -> dict[str, str]:
        """Relative path to content, as ``meta`` lays them out."""
        out: dict[str, str] = {}
        if self.context is not None:
            out[meta.context_file] = self.context
        if self.skills and meta.skills_dir is None:
            raise InvalidSeedError("this provider has no skills folder; seed a context only")
        for name, body in self.skills.items():
            out[meta.skill_path(name)] = body
        return out


# -- git ---------------------------------------------------------------------------------


def _git(cwd: Path, *args: str, env: Mapping[str, str] | None = None) -> str:
    if shutil.which("git") is None:
        raise WorkspaceError("git is not installed; install it to seed or diff a workspace")
    proc = subprocess.run(
        ["git", *args],
        cwd=cwd,
        capture_output=True,
        check=False,
        env={**os.environ, **env} if env else None,
        timeout=120,
    )
    # Bytes in, surrogateescape out: a diff keeps its "\r\n" and any non-UTF-8 byte exactly
    # (``.encode("utf-8", "surrogateescape")`` gives the original bytes back).
    out = proc.stdout.decode("utf-8", "surrogateescape")
    if proc.returncode != 0:
        detail = (proc.stderr.decode("utf-8", "replace") or out).strip()
        raise WorkspaceError(f"git {' '.join(args[:2])} failed in {cwd}: {detail}")
    return out


def _git_ok(cwd: Path, *args: str) -> bool:
    try:
        _git(cwd, *args)
    except WorkspaceError:
        return False
    return True


def _toplevel(cwd: Path) -> Path | None:
    try:
        return Path(_git(cwd, "rev-parse", "--show-toplevel").strip())
    except WorkspaceError:
        return None


def _head(cwd: Path) -> str | None:
    try:
        return _git(cwd, "rev-parse", "--verify", "--quiet", "HEAD").strip() or None
    except WorkspaceError:
        return None


def _exclude_lines(cwd: Path, entries: Sequence[str]) -> list[str]:
    # Entries are relative to the run's folder; info/exclude is read from the top level.
    prefix = _git(cwd, "rev-parse", "--show-prefix").strip()
    lines = []
    for entry in entries:
        anchored = entry.startswith("/") or "/" in entry.rstrip("/")
        lines.append(f"/{prefix}{entry.lstrip('/')}" if anchored and prefix else entry)
    return lines


def add_excludes(cwd: Path, entries: Sequence[str]) -> Path:
    """Append ``entries`` (relative to ``cwd``) to the repository's ``info/exclude``.

    The file is the one git reads for ``cwd``: ``git rev-parse --git-path info/exclude``
    (for a linked worktree that is the common git dir's, shared by all worktrees). Lines
    already there are not repeated.
    """
    path = Path(_git(cwd, "rev-parse", "--git-path", "info/exclude").strip())
    path = path if path.is_absolute() else cwd / path
    path.parent.mkdir(parents=True, exist_ok=True)
    existing = path.read_text().splitlines() if path.exists() else []
    new = [line for line in _exclude_lines(cwd, entries) if line not in existing]
    if new:
        if _EXCLUDE_HEADER not in existing:
            new.insert(0, _EXCLUDE_HEADER)
        path.write_text("".join(f"{line}\n" for line in [*existing, *new]))
    return path


# -- the workspace -----------------------------------------------------------------------


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass
class Workspace:
    """A run's folder as git sees it, and what seeding did to it.

    Built by :func:`prepare_workspace`; stored in ``run.json`` (:meth:`to_record`) so a
    re-adopted run can still diff, commit and clean up.
    """

    cwd: Path
    """The folder the agent works in (inside the worktree for a worktree run)."""
    repo: Path | None = None
    """The top level of the git checkout the run started from; ``None`` outside git."""
    start_commit: str | None = None
    """``HEAD`` when the run started: what :meth:`diff` compares against."""
    worktree: Path | None = None
    """The run's own worktree, when it has one."""
    branch: str | None = None
    """The worktree's branch (``lab/<run id>``)."""
    seeded: dict[str, str] = field(default_factory=dict)
    """Files the seeder created (relative to ``cwd``) and the sha256 of what it wrote."""
    scrub: list[ScrubPattern] = field(default_factory=list)

    def to_record(self) -> dict[str, Any]:
        """A JSON-able form for ``run.json``."""
        return {
            "cwd": str(self.cwd),
            "repo": str(self.repo) if self.repo else None,
            "start_commit": self.start_commit,
            "worktree": str(self.worktree) if self.worktree else None,
            "branch": self.branch,
            "seeded": dict(self.seeded),
        }

    @classmethod
    def from_record(cls, record: Mapping[str, Any], meta: SeedMeta) -> Workspace:
        """Read back :meth:`to_record`'s output."""

        def path(key: str) -> Path | None:
            value = record.get(key)
            return Path(str(value)) if value else None

        return cls(
            cwd=Path(str(record["cwd"])),
            repo=path("repo"),
            start_commit=record.get("start_commit"),
            worktree=path("worktree"),
            branch=record.get("branch"),
            seeded=dict(record.get("seeded") or {}),
            scrub=list(meta.scrub_patterns),
        )

    def _top(self) -> Path:
        top = _toplevel(self.cwd) if self.cwd.is_dir() else None
        if top is None or self.start_commit is None:
            raise WorkspaceError(
                f"{self.cwd} is not inside a git repository with a commit; diff and commit need one"
            )
        return top

    def diff(self) -> str:
        """Every change in the workspace since the run started, scrubbed.

        The diff runs from the start commit to the files on disk, untracked files
        included (excluded and ignored ones left out), and commits made since are part
        of it. The real index is left alone: a private copy is staged instead. Added lines
        matching the provider's attribution patterns are removed (:func:`scrub_diff`).
        """
        top = self._top()
        with tempfile.TemporaryDirectory(prefix="lab_widget-index-") as tmp:
            index = Path(tmp) / "index"
            real = Path(_git(top, "rev-parse", "--git-path", "index").strip())
            real = real if real.is_absolute() else top / real
            if real.exists():
                shutil.copyfile(real, index)  # keeps the stat cache: no full re-hash
            env = {"GIT_INDEX_FILE": str(index)}
            if not real.exists():
                _git(top, "read-tree", "HEAD", env=env)
            _git(top, "add", "-A", env=env)
            raw = _git(top, "diff", "--cached", "--binary", str(self.start_commit), env=env)
        return scrub_diff(raw, self.scrub)

    def commit(self, message: str) -> str:
        """Stage every change (``git add -A``) and commit it with ``message`` scrubbed.

        Returns the new commit's id. The commit goes to the worktree's branch for a
        worktree run, else to whatever the run's folder has checked out; the user's git
        identity and hooks apply. Nothing to commit raises
        :class:`~lab_widget.errors.WorkspaceError`.
        """
        top = self._top()
        text = scrub_text(message, self.scrub).strip()
        if not text:
            raise WorkspaceError("the commit message is empty once attribution is scrubbed")
        _git(top, "add", "-A")
        if _git_ok(top, "diff", "--cached", "--quiet"):
            raise WorkspaceError("nothing to commit: the workspace has no changes")
        _git(top, "commit", "-q", "-m", text)
        return _git(top, "rev-parse", "HEAD").strip()

    def changes(self) -> list[str]:
        """``git status --porcelain`` lines of the workspace (empty outside git)."""
        top = _toplevel(self.cwd) if self.cwd.is_dir() else None
        if top is None:
            return []
        return [line for line in _git(top, "status", "--porcelain").splitlines() if line]

    def cleanup(self, *, discard: bool = False) -> list[str]:
        """Undo what :func:`prepare_workspace` did; returns what was kept, and why.

        - A worktree is removed, but only when ``git status`` shows no change in it
          (excluded seed files do not count) or ``discard`` is true; otherwise a
          :class:`~lab_widget.errors.WorkspaceError` says so and nothing is removed.
        - Its branch is deleted only when it still points at the start commit: a branch
          with commits of its own is kept (and named in the result), so no commit is lost.
        - Outside a worktree, seeded files are deleted only when their content is still
          what the seeder wrote; edited ones are kept.
        """
        kept: list[str] = []
        if self.worktree is not None and self.repo is not None:
            if self.worktree.exists():
                dirty = self.changes()
                if dirty and not discard:
                    raise WorkspaceError(
                        f"the worktree {self.worktree} has uncommitted changes "
                        f"({len(dirty)} paths); commit them (run.commit) or pass "
                        "discard=True to drop them"
                    )
                _git(self.repo, "worktree", "remove", "--force", str(self.worktree))
            _git_ok(self.repo, "worktree", "prune")
            if self.branch:
                tip = _git_ok(self.repo, "rev-parse", "--verify", "--quiet", self.branch)
                if tip:
                    head = _git(self.repo, "rev-parse", self.branch).strip()
                    if head == self.start_commit:
                        _git(self.repo, "branch", "-D", self.branch)
                    else:
                        kept.append(f"branch {self.branch} has commits of its own; kept")
            return kept
        for relative, digest in self.seeded.items():
            path = self.cwd / relative
            try:
                text = path.read_text()
            except OSError:
                continue
            if _digest(text) != digest:
                kept.append(f"{relative} was edited since it was seeded; kept")
                continue
            path.unlink()
            for parent in path.relative_to(self.cwd).parents:
                folder = self.cwd / parent
                if folder == self.cwd or any(folder.iterdir()):
                    break
                folder.rmdir()
        return kept


def _worktree(repo_cwd: Path, run_id: str, home: Path) -> tuple[Path, Path, str, str]:
    top = _toplevel(repo_cwd)
    if top is None:
        raise WorkspaceError(f"worktree=True needs a git repository; {repo_cwd} is not in one")
    start = _head(top)
    if start is None:
        raise WorkspaceError(f"worktree=True needs a commit to branch from; {top} has none")
    branch = BRANCH_PREFIX + run_id
    if _git_ok(top, "rev-parse", "--verify", "--quiet", f"refs/heads/{branch}"):
        raise WorkspaceError(f"the branch {branch} already exists; pick another run name")
    path = home / run_id
    if path.exists():
        raise WorkspaceError(f"{path} already exists; pick another run name")
    path.parent.mkdir(parents=True, exist_ok=True)
    _git(top, "worktree", "add", "-q", "-b", branch, str(path), start)
    return top, path, branch, start


def prepare_workspace(
    cwd: Path,
    run_id: str,
    meta: SeedMeta,
    seed: Seed | None = None,
    *,
    worktree: bool = False,
    worktrees_home: Path,
) -> Workspace:
    """Set up the folder a run works in: its own worktree if asked, then the seed.

    Parameters
    ----------
    cwd
        The folder the user asked for.
    run_id
        Names the worktree folder (``worktrees_home/<run id>``) and branch
        (``lab/<run id>``).
    meta
        The provider's seeding metadata.
    seed
        Files to write before the agent starts; conflicts with existing files raise
        :class:`~lab_widget.errors.SeedConflictError` before anything is written.
    worktree
        Give the run its own ``git worktree`` on its own branch, so parallel runs on one
        repository never touch each other's files. The run's folder is the same
        sub-folder of the worktree as ``cwd`` is of its checkout.
    worktrees_home
        Where worktrees go (the lab home's ``worktrees`` folder).

    Returns
    -------
    Workspace
        What was set up, for diff, commit and cleanup.
    """
    files = seed.files(meta) if seed is not None else {}
    top = _toplevel(cwd)
    space = Workspace(cwd=cwd, repo=top, start_commit=_head(cwd) if top else None)
    space.scrub = list(meta.scrub_patterns)
    if worktree:
        prefix = _git(cwd, "rev-parse", "--show-prefix").strip() if top else ""
        repo, path, branch, start = _worktree(cwd, run_id, worktrees_home)
        space = Workspace(
            cwd=path / prefix if prefix else path,
            repo=repo,
            start_commit=start,
            worktree=path,
            branch=branch,
            scrub=list(meta.scrub_patterns),
        )
        space.cwd.mkdir(parents=True, exist_ok=True)
    try:
        space.seeded = _write_seed(space.cwd, files)
        if space.repo is not None and (files or worktree):
            add_excludes(space.cwd, meta.exclude)
    except BaseException:
        if worktree:
            space.cleanup(discard=True)
        raise
    return space


def _write_seed(cwd: Path, files: Mapping[str, str]) -> dict[str, str]:
    # Check everything first: a conflict leaves the folder exactly as it was.
    todo: dict[Path, str] = {}
    for relative, text in files.items():
        path = cwd / relative
        if path.is_symlink() or (path.exists() and not path.is_file()):
            raise SeedConflictError(f"cannot seed {path}: something else is there")
        if path.exists():
            if path.read_text(errors="replace") != text:
                raise SeedConflictError(
                    f"{path} already exists with other content; seeding would overwrite "
                    "it (move it away or seed a run with worktree=True)"
                )
            continue
        todo[path] = text
    written: dict[str, str] = {}
    for path, text in todo.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        written[path.relative_to(cwd).as_posix()] = _digest(text)
    return written
