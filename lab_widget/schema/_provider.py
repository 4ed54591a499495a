"""The schema's provider declarations: how a provider logs in, what it can do, and what the
generic seeder needs to know about it. Exported by :mod:`lab_widget.schema`,
whose ``__all__`` lists them.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath
from typing import Literal

from pydantic import Field, model_validator

from ..errors import ScrubPatternError, SeedMetaError
from ._messages import DialogKind, _Model

AuthKind = Literal["oauth-code", "oauth-redirect", "api-key", "external"]


class AuthMethod(_Model):
    """One way to log in to a provider; a login card shows one section per method.

    Examples
    --------
    >>> AuthMethod(kind="api-key", label="API key", env_var="KEY").env_var
    'KEY'
    """

    kind: AuthKind
    label: str = ""
    """What the method is called in the card (from the provider, never hard-coded)."""
    instructions: str = ""
    """Operator instructions shown beside it (port forwarding, where to get a key)."""
    env_var: str | None = None
    """For ``api-key``: the environment variable the key is injected as at spawn."""
    redirect_port: int | None = None
    """For ``oauth-redirect``: the local port the login page redirects to."""


class AuthDescriptor(_Model):
    """How a provider logs in, described rather than hard-coded.

    ``kind`` is the primary way; ``methods`` lists every way the provider's auth flow
    accepts (the primary one first). A descriptor without methods offers only ``kind``.

    Examples
    --------
    >>> d = AuthDescriptor(kind="external")
    >>> [m.kind for m in d.all_methods()]
    ['external']
    """

    kind: AuthKind
    env_vars: list[str] = Field(default_factory=list)
    """Environment variables that carry a credential for this provider."""
    instructions: str = ""
    methods: list[AuthMethod] = Field(default_factory=list)

    def all_methods(self) -> list[AuthMethod]:
        """``methods``, or the primary ``kind`` alone when none are listed."""
        return list(self.methods) or [AuthMethod(kind=self.kind, instructions=self.instructions)]

    def method(self, kind: AuthKind) -> AuthMethod | None:
        """The method of this kind, if the provider offers it."""
        return next((m for m in self.all_methods() if m.kind == kind), None)


class AuthStatus(_Model):
    """Whether a provider is logged in, and how. Never holds a credential.

    Examples
    --------
    >>> AuthStatus(logged_in=True, method="api_key", kind="api-key").summary()
    'logged in (api_key)'
    """

    logged_in: bool
    method: str | None = None
    """The provider's own name for the active method, as its CLI reports it."""
    detail: str = ""
    kind: AuthKind | None = None
    """Which descriptor method is active, when known."""
    source: str | None = None
    """Where the credential comes from (an environment variable's name, a store)."""

    def summary(self) -> str:
        """One short line for tables and status lines."""
        if not self.logged_in:
            return "not logged in"
        return f"logged in ({self.method})" if self.method else "logged in"


class ProviderCapabilities(_Model):
    """What a provider can do, declared by its adapter (conservative by default)."""

    live_signals: bool = False
    """A verified live channel (dialogs, blocked states) beside the transcript."""
    dialog_kinds: list[DialogKind] = Field(default_factory=list)
    """Dialog kinds lab_widget can answer for this provider."""
    session_resume: bool = False
    model_selection: bool = False
    """Whether a run can request a model by name."""
    models: list[str] = Field(default_factory=list)
    """Model names the provider offers (aliases included), if it declares them."""
    tool_servers: bool = False
    """Whether a run can give the agent MCP servers of its own (``Run(..., kernel=True)``):
    the adapter registers them in the run's configuration and maps their approvals."""


class ScrubPattern(_Model):
    r"""An attribution line an agent writes into commits or files, with samples it must match.

    Where lab_widget exports agent-written text (``Run.diff``, ``Run.commit``), every line
    in which ``pattern`` matches (``re.search``, one line at a time) is removed. The
    pattern is compiled and tried on each of its ``samples`` when it is built: a pattern
    that does not compile or misses a sample raises
    :class:`~lab_widget.errors.ScrubPatternError` at once (at import time for a
    provider's constants), never while scrubbing.

    Examples
    --------
    >>> ScrubPattern(pattern=r"^Signed-off-by: Bot\b", samples=["Signed-off-by: Bot <b@x>"])
    ScrubPattern(pattern='^Signed-off-by: Bot\\b', samples=['Signed-off-by: Bot <b@x>'])
    >>> ScrubPattern(pattern="^Bot", samples=["Human"])
    Traceback (most recent call last):
    ...
    lab_widget.errors.ScrubPatternError: scrub pattern '^Bot' does not match its sample 'Human'
    """

    pattern: str
    samples: list[str] = Field(min_length=1)
    """Lines the pattern must match, taken from what the CLI really writes."""

    @model_validator(mode="after")
    def _check(self) -> ScrubPattern:
        try:
            compiled = re.compile(self.pattern)
        except re.error as exc:
            raise ScrubPatternError(
                f"scrub pattern {self.pattern!r} does not compile: {exc}"
            ) from exc
        for sample in self.samples:
            if "\n" in sample or compiled.search(sample) is None:
                raise ScrubPatternError(
                    f"scrub pattern {self.pattern!r} does not match its sample {sample!r}"
                )
        return self

    @property
    def regex(self) -> re.Pattern[str]:
        """The compiled pattern (``re`` caches compilations)."""
        return re.compile(self.pattern)


def _relative(value: str, what: str) -> str:
    path = PurePosixPath(value)
    if not value or path.is_absolute() or ".." in path.parts or "\\" in value:
        raise SeedMetaError(f"{what} {value!r} must be a relative path inside the workspace")
    return value


class SeedMeta(_Model):
    """What a provider declares so one generic seeder can prepare a workspace.

    Paths are relative to the run's folder, ``/``-separated. Built with a path that
    leaves the workspace, it raises :class:`~lab_widget.errors.SeedMetaError`.

    Examples
    --------
    >>> meta = SeedMeta(context_file="AGENT.md", skills_dir=".agent/skills",
    ...                 exclude=["/AGENT.md", "/.agent/skills/"])
    >>> meta.skill_path("lint")
    '.agent/skills/lint/SKILL.md'
    """

    context_file: str
    """The file the CLI reads as project instructions, where a seed's context goes."""
    skills_dir: str | None = None
    """The folder of project skills (``None``: the CLI has none)."""
    skill_file: str = "SKILL.md"
    """Each skill is ``<skills_dir>/<name>/<skill_file>``."""
    exclude: list[str] = Field(default_factory=list)
    """``.git/info/exclude`` lines (gitignore syntax, relative to the run's folder) that keep
    seeded files, and files the CLI itself writes into the workspace, out of
    ``git status``. The seeder adds exactly these: they must cover what it writes."""
    scrub_patterns: list[ScrubPattern] = Field(default_factory=list)
    """Attribution lines removed wherever lab_widget exports agent-written text."""

    @model_validator(mode="after")
    def _check(self) -> SeedMeta:
        _relative(self.context_file, "context_file")
        if self.skills_dir is not None:
            _relative(self.skills_dir, "skills_dir")
        if "/" in self.skill_file or self.skill_file in ("", ".", ".."):
            raise SeedMetaError(f"skill_file {self.skill_file!r} must be a plain file name")
        for line in self.exclude:
            if not line.strip() or line.startswith(("#", "!")) or "\n" in line:
                raise SeedMetaError(f"exclude entry {line!r} must be one plain gitignore line")
        return self

    def skill_path(self, name: str) -> str:
        """Where the skill ``name`` goes, relative to the run's folder."""
        if self.skills_dir is None:
            raise SeedMetaError("this provider declares no skills folder")
        return f"{self.skills_dir}/{name}/{self.skill_file}"
