"""The run's git side: the workspace as git sees it, its own worktree and branch, and the
exclude lines that keep seeded files out of ``git status``.

A :class:`Workspace` remembers what was done for a run (it round-trips through ``run.json``)
and offers the scrubbed :meth:`~Workspace.diff`, :meth:`~Workspace.commit` and
:meth:`~Workspace.cleanup`. Scrubbing applies exactly where lab_widget exports agent-written
text: the diff and the commit message. Files on disk, transcripts and commits the agent makes
itself are left as they are.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import WorkspaceError
from ..schema import ScrubPattern, SeedMeta
from ._scrub import scrub_diff, scrub_text

__all__ = [
    "BRANCH_PREFIX",
    "Workspace",
    "add_excludes",
    "add_worktree",
    "git",
    "head_commit",
    "text_digest",
    "toplevel",
]

_EXCLUDE_HEADER = "# lab_widget: seeded files and files the agent CLI writes"
BRANCH_PREFIX = "lab/"
"""Every run's own branch is ``lab/<run id>``."""


def git(cwd: Path, *args: str, env: Mapping[str, str] | None = None) -> str:
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


def git_ok(cwd: Path, *args: str) -> bool:
    try:
        git(cwd, *args)
    except WorkspaceError:
        return False
    return True


def toplevel(cwd: Path) -> Path | None:
    try:
        return Path(git(cwd, "rev-parse", "--show-toplevel").strip())
    except WorkspaceError:
        return None


def head_commit(cwd: Path) -> str | None:
    try:
        return git(cwd, "rev-parse", "--verify", "--quiet", "HEAD").strip() or None
    except WorkspaceError:
        return None


def _exclude_lines(cwd: Path, entries: Sequence[str]) -> list[str]:
    # Entries are relative to the run's folder; info/exclude is read from the top level.
    prefix = git(cwd, "rev-parse", "--show-prefix").strip()
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
    path = Path(git(cwd, "rev-parse", "--git-path", "info/exclude").strip())
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


def text_digest(text: str) -> str:
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
        top = toplevel(self.cwd) if self.cwd.is_dir() else None
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
            real = Path(git(top, "rev-parse", "--git-path", "index").strip())
            real = real if real.is_absolute() else top / real
            if real.exists():
                shutil.copyfile(real, index)  # keeps the stat cache: no full re-hash
            env = {"GIT_INDEX_FILE": str(index)}
            if not real.exists():
                git(top, "read-tree", "HEAD", env=env)
            git(top, "add", "-A", env=env)
            raw = git(top, "diff", "--cached", "--binary", str(self.start_commit), env=env)
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
        git(top, "add", "-A")
        if git_ok(top, "diff", "--cached", "--quiet"):
            raise WorkspaceError("nothing to commit: the workspace has no changes")
        git(top, "commit", "-q", "-m", text)
        return git(top, "rev-parse", "HEAD").strip()

    def changes(self) -> list[str]:
        """``git status --porcelain`` lines of the workspace (empty outside git)."""
        top = toplevel(self.cwd) if self.cwd.is_dir() else None
        if top is None:
            return []
        return [line for line in git(top, "status", "--porcelain").splitlines() if line]

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
                git(self.repo, "worktree", "remove", "--force", str(self.worktree))
            git_ok(self.repo, "worktree", "prune")
            if self.branch:
                tip = git_ok(self.repo, "rev-parse", "--verify", "--quiet", self.branch)
                if tip:
                    head = git(self.repo, "rev-parse", self.branch).strip()
                    if head == self.start_commit:
                        git(self.repo, "branch", "-D", self.branch)
                    else:
                        kept.append(f"branch {self.branch} has commits of its own; kept")
            return kept
        for relative, digest in self.seeded.items():
            path = self.cwd / relative
            try:
                text = path.read_text()
            except OSError:
                continue
            if text_digest(text) != digest:
                kept.append(f"{relative} was edited since it was seeded; kept")
                continue
            path.unlink()
            for parent in path.relative_to(self.cwd).parents:
                folder = self.cwd / parent
                if folder == self.cwd or any(folder.iterdir()):
                    break
                folder.rmdir()
        return kept


def add_worktree(repo_cwd: Path, run_id: str, home: Path) -> tuple[Path, Path, str, str]:
    top = toplevel(repo_cwd)
    if top is None:
        raise WorkspaceError(f"worktree=True needs a git repository; {repo_cwd} is not in one")
    start = head_commit(top)
    if start is None:
        raise WorkspaceError(f"worktree=True needs a commit to branch from; {top} has none")
    branch = BRANCH_PREFIX + run_id
    if git_ok(top, "rev-parse", "--verify", "--quiet", f"refs/heads/{branch}"):
        raise WorkspaceError(f"the branch {branch} already exists; pick another run name")
    path = home / run_id
    if path.exists():
        raise WorkspaceError(f"{path} already exists; pick another run name")
    path.parent.mkdir(parents=True, exist_ok=True)
    git(top, "worktree", "add", "-q", "-b", branch, str(path), start)
    return top, path, branch, start
