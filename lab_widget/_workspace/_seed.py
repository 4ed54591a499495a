"""Workspace seeding: one generic seeder driven by provider metadata.

A provider declares, in :class:`~lab_widget.schema.SeedMeta`, where its CLI reads project
instructions (the context file) and skills, which workspace paths to keep out of git, and
which attribution lines to scrub. This module does the rest for every provider alike:

- :func:`prepare_workspace` optionally gives the run its own ``git worktree`` on its own
  branch, writes a :class:`Seed` (context file, skills) into the run's folder, and adds the
  provider's exclude lines to the repository's ``info/exclude`` so ``git status`` stays
  empty;
- the run's git side, :class:`~lab_widget._workspace._git.Workspace`, remembers what was
  done (see :mod:`lab_widget._workspace._git`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import InvalidSeedError, SeedConflictError
from ..schema import SeedMeta
from ._git import Workspace, add_excludes, add_worktree, git, head_commit, text_digest, toplevel

__all__ = ["Seed", "prepare_workspace"]

_SKILL_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
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
    top = toplevel(cwd)
    space = Workspace(cwd=cwd, repo=top, start_commit=head_commit(cwd) if top else None)
    space.scrub = list(meta.scrub_patterns)
    if worktree:
        prefix = git(cwd, "rev-parse", "--show-prefix").strip() if top else ""
        repo, path, branch, start = add_worktree(cwd, run_id, worktrees_home)
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
        written[path.relative_to(cwd).as_posix()] = text_digest(text)
    return written
