"""The records the provider seam passes: what a run is started with and where, what its
spawn plan says, where a transcript is, what a read found, what stops a start-up.

They are re-exported by :mod:`lab_widget.provider._seam` and :mod:`lab_widget.provider`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import ClassVar

from ..schema import Message

__all__ = [
    "Endpoint",
    "ProviderMeta",
    "ReadResult",
    "RunContext",
    "SandboxPaths",
    "SessionStat",
    "SpawnPlan",
    "SpawnRequest",
    "StartupBlocker",
    "ToolServer",
    "TranscriptRef",
]


@dataclass(frozen=True)
class Endpoint:
    """A model server the agent talks to instead of its default, e.g. a proxy.

    Parameters
    ----------
    base_url
        The server's base URL, given the way the CLI's own setting takes it.
    api_key
        The credential sent to it. Never shown in reprs or widget state.

    Examples
    --------
    >>> Endpoint("http://127.0.0.1:8000", "secret")
    Endpoint(base_url='http://127.0.0.1:8000', api_key='***')
    """

    base_url: str
    api_key: str = field(default="", repr=False)

    def __repr__(self) -> str:
        return f"Endpoint(base_url={self.base_url!r}, api_key='***')"


@dataclass(frozen=True)
class ProviderMeta:
    """Names and affordances a provider declares; user-facing copy comes from here."""

    id: str
    display_name: str
    binary: str
    """The CLI's executable name."""
    clear_command: str
    """The native command that starts a new conversation (``role="clear"``)."""


@dataclass(frozen=True)
class RunContext:
    """Where a run lives: its folder, its private runtime folder and its id."""

    run_id: str
    cwd: Path
    runtime_dir: Path


@dataclass(frozen=True)
class ToolServer:
    """An MCP server (over stdio) a run gives its agent, registered in the run's own
    configuration only: each provider says how its CLI takes one.

    Examples
    --------
    >>> server = ToolServer("kernel", ("python", "-m", "tools"), asking=("run",), reading=("ls",))
    >>> server.name, list(server.command), server.asking
    ('kernel', ['python', '-m', 'tools'], ('run',))
    """

    name: str
    command: Sequence[str]
    """The server's argv: the CLI starts it and talks to it on its stdin and stdout."""
    env: Mapping[str, str] = field(default_factory=dict)
    """Environment the server needs beside the CLI's own."""
    asking: tuple[str, ...] = ()
    """Tools the user approves call by call (the CLI must ask before each)."""
    reading: tuple[str, ...] = ()
    """Tools that only read: allowed without asking."""
    call_timeout: float | None = None
    """Seconds one call may take at the longest (the server ends it by then): the CLI is
    told to wait that long where its own limit could be shorter. ``None``: its own."""

    RUN_ID_ENV: ClassVar[str] = "LAB_WIDGET_RUN_ID"
    """The variable that tells a started server the id of the run it serves."""

    CALLS_ENV: ClassVar[str] = "LAB_WIDGET_CALLS"
    """The variable that names the folder where a started server notes each call of an
    asking tool while it runs: the run takes such a call as its approval's answer."""

    def for_run(self, run_id: str, calls: Path | None = None) -> ToolServer:
        """The server as the run ``run_id`` starts it: its id in :attr:`RUN_ID_ENV`, and
        its ``calls`` folder, if any, in :attr:`CALLS_ENV`.

        Examples
        --------
        >>> ToolServer("kernel", ("python",)).for_run("r1").env
        {'LAB_WIDGET_RUN_ID': 'r1'}
        >>> ToolServer("kernel", ("python",)).for_run("r1", Path("/rt/calls")).env
        {'LAB_WIDGET_RUN_ID': 'r1', 'LAB_WIDGET_CALLS': '/rt/calls'}
        """
        env = {**self.env, self.RUN_ID_ENV: run_id}
        if calls is not None:
            env[self.CALLS_ENV] = str(calls)
        return replace(self, env=env)

    def stdio(self) -> dict[str, object]:
        """The server as most CLIs' ``mcpServers`` entries give a stdio server.

        Examples
        --------
        >>> ToolServer("kernel", ("python", "-m", "k"), {"A": "1"}).stdio()
        {'command': 'python', 'args': ['-m', 'k'], 'env': {'A': '1'}}
        """
        return {"command": self.command[0], "args": list(self.command[1:]), "env": dict(self.env)}


@dataclass(frozen=True)
class SpawnRequest:
    """What the user asked for when starting a run."""

    context: RunContext
    binary: Path
    model: str | None = None
    """A model name to request, if any."""
    endpoint: Endpoint | None = None
    """``None`` runs the agent in the user's own environment and credentials."""
    options: Mapping[str, object] = field(default_factory=dict)
    tool_servers: tuple[ToolServer, ...] = ()
    """MCP servers the agent is given for this run alone (none unless asked for)."""


@dataclass(frozen=True)
class SpawnPlan:
    """How to start the agent: argv, environment overrides, folder."""

    argv: Sequence[str]
    env: Mapping[str, str]
    cwd: Path
    secret_env: frozenset[str] = frozenset()
    """Names in ``env`` whose values must never be displayed."""
    unset_env: frozenset[str] = frozenset()
    """Names removed from the inherited environment (settings of the user's own setup
    that would leak into an isolated run)."""
    answer_colours: bool = False
    """The pane answers the CLI's default-colour queries (OSC 10/11) at once, with the
    terminal view's colours (a CLI that waits for the answer: its ``ColourQuery``)."""


@dataclass(frozen=True)
class SandboxPaths:
    """Paths outside the working folder and the run folder that a sandboxed agent's CLI
    must see (its own config and login, when the run uses the user's own setup).

    Examples
    --------
    >>> SandboxPaths(read_write=(Path("/home/me/.config/agent"),)).read_only
    ()
    """

    read_write: tuple[Path, ...] = ()
    read_only: tuple[Path, ...] = ()


@dataclass(frozen=True)
class TranscriptRef:
    """One epoch of a conversation: an id, where it lives, and what to watch for it."""

    transcript_id: str
    path: Path
    watch: tuple[Path, ...] = ()


@dataclass(frozen=True)
class SessionStat:
    """When a listed session last changed and the bytes it takes, as a listing shows them.

    Examples
    --------
    >>> SessionStat(modified=1.5, size_bytes=10)
    SessionStat(modified=1.5, size_bytes=10)
    """

    modified: float
    """Seconds since the epoch (UTC)."""
    size_bytes: int

    @classmethod
    def of_file(cls, path: Path) -> SessionStat | None:
        """The stat of a session that is a file of its own (``None``: it is gone)."""
        try:
            stat = path.stat()
        except OSError:
            return None
        return cls(stat.st_mtime, stat.st_size)


@dataclass(frozen=True)
class StartupBlocker:
    """Something the agent asks before it takes input (a folder-trust screen)."""

    reason: str
    """Shown to the user as the ``needs_input`` explanation."""
    accept_hint: str
    """What accepting means, shown beside the accept affordance."""
    steps: tuple[str, ...] = ()
    """Provider-private names of the screens to accept, in the order they appear."""
    acceptable: bool = True
    """False when only the user can answer it in the TUI (see the attach command)."""


@dataclass(frozen=True)
class ReadResult:
    """What one incremental read found."""

    changed: list[Message]
    """New messages and updated ones (same ``seq``), in seq order."""
    reset: bool = False
    """True when the transcript was rewritten and the reader rebuilt every message."""
