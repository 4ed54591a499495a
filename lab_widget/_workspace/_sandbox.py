"""A sandboxed agent on this machine: its spawn wrapped in bubblewrap.

The agent sees its working folder (the whole git checkout when the folder is in one, and
the common git folder of a worktree) and its run folder read-write, at their own paths;
the system folders, the installed CLI and a short list of ``/etc`` files read-only; a
private ``/tmp``; and either the run's isolated config home (a scripted model or an
endpoint) or an empty, private home at the user's home path. Nothing else of the user's
home is there, so their files and keys cannot be read. Its environment is built from
nothing: the locale and ``PATH``, the variables the provider's plan sets, the variables the
provider's login reads (an API key), and the names the :class:`Sandbox` lists.

Namespaces: ``--unshare-all --share-net`` (the agent keeps the host's network, so it
reaches a model on the host's loopback), ``--die-with-parent``. Nested user namespaces are
left allowed: agent CLIs that sandbox their own commands with bubblewrap run as they do
outside.

Transcripts, hook spools and the tailer work unchanged: the files the agent writes are the
host's own files (bind mounts), and inotify watches inodes. The tmux pane's process is
``bwrap``, which ends with the agent.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .._install import tools_dir
from ..errors import SandboxError
from ..provider import SpawnPlan
from ..provider._seam_records import SandboxPaths

__all__ = ["SYSTEM_ETC", "Sandbox", "bwrap_binary", "confine"]

_SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")

SYSTEM_ETC = (
    "passwd",
    "group",
    "hosts",
    "host.conf",
    "resolv.conf",
    "nsswitch.conf",
    "gai.conf",
    "services",
    "protocols",
    "localtime",
    "timezone",
    "ssl",
    "ca-certificates",
    "ca-certificates.conf",
    "pki",
    "alternatives",
    "ld.so.cache",
    "ld.so.conf",
    "ld.so.conf.d",
    "mime.types",
    "os-release",
    "debian_version",
    "terminfo",
    "inputrc",
    "shells",
    "gitconfig",
)
"""The ``/etc`` entries a sandboxed agent sees (read-only): names, users, DNS, certificates,
libraries, time; never the host's keys or shadow files."""

_ENV_KEPT = ("PATH", "LANG", "LANGUAGE", "TZ", "USER", "LOGNAME", "NO_COLOR", "COLORTERM")


@dataclass(frozen=True)
class Sandbox:
    """Confinement of a run's agent on this machine (bubblewrap).

    ``Run(..., sandbox=True)`` is ``Sandbox()``; pass one to show the agent more.

    Parameters
    ----------
    read_only, read_write
        More paths the agent sees, at their own paths (``~`` is the user's home). A path
        that does not exist is refused.
    env
        Names of variables of this process the agent gets too (by default it gets only
        the locale, ``PATH``, what the run's plan sets and the key its login reads).

    Examples
    --------
    >>> Sandbox(read_only=["~/.gitconfig"], env=["HTTPS_PROXY"]).env
    ('HTTPS_PROXY',)
    """

    read_only: Sequence[str | os.PathLike[str]] = ()
    read_write: Sequence[str | os.PathLike[str]] = ()
    env: Sequence[str] = field(default_factory=tuple)

    def __post_init__(self) -> None:
        object.__setattr__(self, "read_only", tuple(self.read_only))
        object.__setattr__(self, "read_write", tuple(self.read_write))
        object.__setattr__(self, "env", tuple(self.env))

    @classmethod
    def of(cls, value: bool | Sandbox | None) -> Sandbox | None:
        """``True`` as the default sandbox, ``False`` or ``None`` as none.

        Examples
        --------
        >>> Sandbox.of(True) == Sandbox(), Sandbox.of(False)
        (True, None)
        """
        if isinstance(value, Sandbox):
            return value
        return cls() if value else None

    def to_json(self) -> dict[str, list[str]]:
        """A JSON form (what a worker on another host is sent).

        Examples
        --------
        >>> Sandbox.from_json(Sandbox(env=["X"]).to_json()) == Sandbox(env=["X"])
        True
        """
        return {
            "read_only": [str(p) for p in self.read_only],
            "read_write": [str(p) for p in self.read_write],
            "env": list(self.env),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> Sandbox:
        """Read back :meth:`to_json`'s output."""

        def strings(key: str) -> list[str]:
            value = data.get(key)
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise SandboxError(f"sandbox {key} must be a list of strings")
            return value

        return cls(strings("read_only"), strings("read_write"), strings("env"))


def bwrap_binary() -> str:
    """The bubblewrap executable: ``$LAB_WIDGET_BWRAP``, else the one
    ``scripts/setup-system.sh`` unpacked (``$LAB_WIDGET_BWRAP_DIR``, by default
    ``~/.local/share/lab_widget/bubblewrap``), else ``bwrap`` on ``PATH``.

    It is kept off ``PATH`` by default because an agent CLI may prefer a ``bwrap`` it finds
    there to its own (see ``docs/remote.md``). :class:`SandboxError` says how to get one.
    """
    if env := os.environ.get("LAB_WIDGET_BWRAP"):
        return env
    folder = os.environ.get("LAB_WIDGET_BWRAP_DIR")
    unpacked = (
        (
            Path(folder).expanduser()
            if folder
            else Path.home() / ".local" / "share" / "lab_widget" / "bubblewrap"
        )
        / "usr"
        / "bin"
        / "bwrap"
    )
    if os.access(unpacked, os.X_OK):
        return str(unpacked)
    found = shutil.which("bwrap")
    if found is None:
        raise SandboxError(
            "a sandboxed run needs bubblewrap: run scripts/setup-system.sh (it unpacks "
            f"Debian's into {unpacked.parents[2]}), or install it and set LAB_WIDGET_BWRAP"
        )
    return found


def _user_path(raw: str | os.PathLike[str]) -> Path:
    path = Path(raw).expanduser()
    if not path.is_absolute():
        raise SandboxError(f"sandbox path {str(raw)!r} must be absolute (or start with ~)")
    if not path.exists():
        raise SandboxError(f"sandbox path {path} does not exist")
    return path


def _git_folders(cwd: Path) -> list[Path]:
    # The checkout the folder is in (git works on the whole of it) and, for a linked
    # worktree, the repository's common git folder, which lives outside the worktree.
    def ask(*args: str) -> str | None:
        if shutil.which("git") is None:
            return None
        proc = subprocess.run(
            ["git", "rev-parse", *args], cwd=cwd, capture_output=True, text=True, check=False
        )
        return proc.stdout.strip() if proc.returncode == 0 and proc.stdout.strip() else None

    top = ask("--show-toplevel")
    if top is None:
        return []
    found = [Path(top)]
    common = ask("--path-format=absolute", "--git-common-dir")
    if common is not None and not Path(common).is_relative_to(top):
        found.append(Path(common))
    return found


def _mounts(readable: Iterable[Path], writable: Iterable[Path]) -> list[str]:
    kinds = dict.fromkeys(readable, "--ro-bind")
    kinds.update(dict.fromkeys(writable, "--bind"))  # a path named both ways is writable
    args: list[str] = []
    # Parents first, so a folder inside another mount is mounted over it, not hidden by it.
    for path in sorted(kinds, key=lambda p: (len(p.parts), str(p))):
        args += [kinds[path], str(path), str(path)]
    return args


def _system() -> list[str]:
    args: list[str] = []
    for name in _SYSTEM_DIRS:
        path = Path(name)
        if path.is_symlink():
            args += ["--symlink", str(path.readlink()), name]  # a merged /usr: /bin -> usr/bin
        elif path.is_dir():
            args += ["--ro-bind", name, name]
    for name in SYSTEM_ETC:
        args += ["--ro-bind-try", f"/etc/{name}", f"/etc/{name}"]
    return args


def _installation(binary: Path) -> list[Path]:
    # The CLI's own files: the tools folder (at its real path and at the path the spawn
    # names, which may go through a symlink) and the binary's real folder.
    found: set[Path] = set()
    tools = tools_dir()
    for candidate in (tools, tools.resolve()):
        if candidate.exists():
            found.add(candidate)
    real = binary.resolve()
    if not any(real.is_relative_to(p) for p in (*found, *map(Path, _SYSTEM_DIRS))):
        found.add(real.parent)
    if binary.is_absolute() and not any(binary.is_relative_to(p) for p in found):
        found.add(binary.parent)
    return sorted(found)


def confine(
    plan: SpawnPlan,
    sandbox: Sandbox,
    *,
    runtime_dir: Path,
    provider_paths: SandboxPaths,
    login_env: Sequence[str] = (),
) -> SpawnPlan:
    """``plan`` run inside bubblewrap, with the environment it gets there (complete: the
    runner must not add its own to it).

    Parameters
    ----------
    plan
        The provider's spawn plan.
    sandbox
        What more to show the agent.
    runtime_dir
        The run's private folder (its settings, signal spool, isolated home).
    provider_paths
        What the provider says its CLI must see besides.
    login_env
        Names of variables the provider's login reads (an API key), passed through.
    """
    bwrap = bwrap_binary()
    binary = Path(plan.argv[0])
    user_home = Path.home()
    home = Path(plan.env["HOME"]) if "HOME" in plan.env else user_home
    writable = [
        *(_git_folders(plan.cwd) or [plan.cwd]),
        runtime_dir,
        *(p for p in provider_paths.read_write if p.exists()),
        *map(_user_path, sandbox.read_write),
    ]
    readable = [
        *_installation(binary),
        *(p for p in provider_paths.read_only if p.exists()),
        *map(_user_path, sandbox.read_only),
    ]
    args = [
        bwrap,
        *("--unshare-all", "--share-net", "--die-with-parent"),
        *_system(),
        *("--proc", "/proc", "--dev", "/dev"),
        *("--tmpfs", "/tmp", "--tmpfs", "/var/tmp", "--tmpfs", "/run"),
    ]
    if not home.is_relative_to(runtime_dir):
        args += ["--tmpfs", str(home)]  # an empty home of its own, gone with the agent
    args += _mounts(readable, writable)
    args += ["--chdir", str(plan.cwd), "--", *plan.argv]
    env = {name: os.environ[name] for name in _ENV_KEPT if name in os.environ}
    env.update({k: v for k, v in os.environ.items() if k.startswith("LC_")})
    for name in (*login_env, *sandbox.env):
        if name in os.environ:
            env[name] = os.environ[name]
    for name in plan.unset_env:
        env.pop(name, None)
    env.update(plan.env)
    env.setdefault("HOME", str(home))
    env["TMPDIR"] = "/tmp"
    secret = plan.secret_env | {n for n in login_env if n in env}
    return SpawnPlan(
        argv=args,
        env=env,
        cwd=plan.cwd,
        secret_env=frozenset(secret),
        answer_colours=plan.answer_colours,
    )
