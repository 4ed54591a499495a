"""Transports: where the worker runs, as the command prefix of a standard tool.

A :class:`Host` says how to start ``python -m lab_widget worker`` with a pipe to its stdio
(``worker_argv``) and how to open the agent's TUI there (``attach``). Nothing secret is ever
on these command lines: keys travel inside the pipe, once it is up.

- :class:`LocalHost` — a subprocess on this machine (tests, and a worker of another Python).
- :class:`SshHost` — the OpenSSH client, so ``~/.ssh/config``, ``ProxyJump``, agents and
  ``ControlMaster`` apply as for any ``ssh`` the user types.
- :class:`KubectlHost` — ``kubectl exec -i`` into a pod (kubectl handles credential plugins
  and the exec protocol's versions).
- :class:`ContainerHost` — ``podman exec -i`` or ``docker exec -i`` into a container.

:func:`parse_host` reads ``"ssh://user@host:22"``, ``"kubectl://namespace/pod/container"``,
``"podman://name"``, ``"docker://name"`` and ``"local://"``.
"""

from __future__ import annotations

import os
import shlex
import sys
import tempfile
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

from ..errors import InvalidHostError

__all__ = [
    "ContainerHost",
    "Host",
    "KubectlHost",
    "LocalHost",
    "SshHost",
    "parse_host",
]


@dataclass(frozen=True, eq=False, kw_only=True)
class Host(ABC):
    """Where a run's worker runs.

    Parameters
    ----------
    python
        The Python on the host that has lab_widget installed.
    env
        Variables set for the worker on the host (``LAB_WIDGET_HOME``, ``LAB_WIDGET_TOOLS``,
        a ``PATH``); shown on its command line, so never a secret.
    providers
        Provider ids to register in the worker, as ``{"id": "module:attribute"}`` (a
        third-party adapter installed on the host).
    """

    python: str = "python3"
    env: Mapping[str, str] = field(default_factory=dict)
    providers: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "env", dict(self.env))
        object.__setattr__(self, "providers", dict(self.providers))

    def __hash__(self) -> int:
        return hash((type(self), self.key))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Host) and type(other) is type(self) and other.key == self.key

    @property
    def key(self) -> tuple[str, ...]:
        """Hosts with the same key share one connection (one worker)."""
        return tuple(self.worker_argv())

    def worker_command(self) -> list[str]:
        """The worker's command line on the host (``env`` first, when there is any).

        Examples
        --------
        >>> SshHost("box", env={"LAB_WIDGET_HOME": "/srv/lab"}).worker_command()
        ['env', 'LAB_WIDGET_HOME=/srv/lab', 'python3', '-m', 'lab_widget', 'worker']
        """
        extra = [f"{k}={v}" for k, v in sorted(self.env.items())]
        argv = self._python_argv()
        return ["env", *extra, *argv] if extra else argv

    def _python_argv(self) -> list[str]:
        argv = [self.python, "-m", "lab_widget", "worker"]
        for provider_id, target in sorted(self.providers.items()):
            argv += ["--provider", f"{provider_id}={target}"]
        return argv

    @abstractmethod
    def command_argv(self, argv: list[str]) -> list[str]:
        """The local command line that runs ``argv`` on the host with a pipe to its stdio."""

    def worker_argv(self) -> list[str]:
        """The local command line that starts the worker with a pipe to its stdio."""
        return self.command_argv(self.worker_command())

    @abstractmethod
    def attach(self, command: str) -> str:
        """``command`` (a shell command on the host that attaches to the agent's tmux
        session) run from a terminal here, with a terminal there.
        """

    def process_env(self) -> dict[str, str] | None:
        """The environment of the local process :meth:`worker_argv` starts (``None``: this
        process's own).
        """
        return None

    @property
    @abstractmethod
    def name(self) -> str:
        """The host as a user would name it (``ssh://me@box``)."""


@dataclass(frozen=True, eq=False, kw_only=True)
class LocalHost(Host):
    """A worker on this machine, as a subprocess: the same protocol as a remote one.

    Examples
    --------
    >>> LocalHost(python="/usr/bin/python3").worker_argv()
    ['/usr/bin/python3', '-m', 'lab_widget', 'worker']
    """

    python: str = sys.executable

    def command_argv(self, argv: list[str]) -> list[str]:
        return list(argv)

    def worker_argv(self) -> list[str]:
        return self._python_argv()  # its env is the process's (process_env)

    def process_env(self) -> dict[str, str]:
        return {**os.environ, **self.env}

    def attach(self, command: str) -> str:
        return command

    @property
    def name(self) -> str:
        return "local://"

    @property
    def key(self) -> tuple[str, ...]:
        return (*self.worker_argv(), *(f"{k}={v}" for k, v in sorted(self.env.items())))


def _control_path() -> str:
    folder = Path(tempfile.gettempdir()) / f"lab_widget-{os.getuid()}"
    return str(folder / "ssh-%C")


@dataclass(frozen=True, eq=False)
class SshHost(Host):
    """A worker on another machine, through the OpenSSH client (``ssh``).

    The user's ``~/.ssh/config`` applies (host aliases, ``ProxyJump``, keys, agents,
    ``ControlMaster``); the connection never asks for a password (``BatchMode=yes``: a key
    or an agent must let it in) and says it is alive every 15 s (``ServerAliveInterval``),
    so a dead link is noticed and the run reconnected.

    Parameters
    ----------
    destination
        ``host``, ``user@host`` or an alias of the ssh config.
    port
        ``-p``.
    config
        ``-F``: an ssh config file other than ``~/.ssh/config``.
    identity
        ``-i``: a private key file.
    options
        More ``-o`` options (``{"StrictHostKeyChecking": "yes"}``).
    multiplex
        Share one connection for the worker and every attach (``ControlMaster=auto``, a
        socket under the runtime folder, ``ControlPersist=10m``).

    Examples
    --------
    >>> SshHost("me@box", port=2222).worker_argv()[-5:]
    ['-p', '2222', 'me@box', '--', 'python3 -m lab_widget worker']
    >>> SshHost("me@box").attach("tmux -S /tmp/s attach -t r1")
    "ssh -t -o BatchMode=yes me@box -- 'tmux -S /tmp/s attach -t r1'"
    """

    destination: str = ""
    port: int | None = None
    config: str | None = None
    identity: str | None = None
    options: Mapping[str, str] = field(default_factory=dict)
    multiplex: bool = False
    ssh: str = "ssh"

    def __post_init__(self) -> None:
        super().__post_init__()
        if not self.destination or self.destination.startswith("-"):
            raise InvalidHostError(
                f"an ssh destination like 'user@host' is needed, not {self.destination!r}"
            )
        object.__setattr__(self, "options", dict(self.options))

    def _common(self) -> list[str]:
        args = ["-o", "BatchMode=yes"]
        if self.config:
            args += ["-F", self.config]
        if self.identity:
            args += ["-i", self.identity]
        for key, value in sorted(self.options.items()):
            args += ["-o", f"{key}={value}"]
        if self.multiplex:
            args += ["-o", "ControlMaster=auto", "-o", f"ControlPath={_control_path()}"]
            args += ["-o", "ControlPersist=10m"]
        if self.port:
            args += ["-p", str(self.port)]
        return args

    def command_argv(self, argv: list[str]) -> list[str]:
        alive = ["-o", "ServerAliveInterval=15", "-o", "ServerAliveCountMax=3"]
        # ssh joins the remote words with spaces for the remote shell: the command is
        # quoted here, once, as that shell must read it.
        return [
            *(self.ssh, "-T", *alive, *self._common()),
            *(self.destination, "--", shlex.join(argv)),
        ]

    def attach(self, command: str) -> str:
        return shlex.join([self.ssh, "-t", *self._common(), self.destination, "--", command])

    @property
    def name(self) -> str:
        port = f":{self.port}" if self.port else ""
        return f"ssh://{self.destination}{port}"


@dataclass(frozen=True, eq=False)
class KubectlHost(Host):
    """A worker in a Kubernetes pod, through ``kubectl exec -i`` (the pod must have Python
    with lab_widget, tmux and the agent CLIs; see ``docs/remote.md``).

    Examples
    --------
    >>> KubectlHost("agent-0", namespace="lab", container="main").worker_argv()[:9]
    ['kubectl', '-n', 'lab', 'exec', '-i', 'agent-0', '-c', 'main', '--']
    >>> KubectlHost("agent-0").attach("tmux attach -t r1")
    "kubectl exec -it agent-0 -- sh -c 'tmux attach -t r1'"
    """

    pod: str = ""
    namespace: str | None = None
    container: str | None = None
    context: str | None = None
    kubeconfig: str | None = None
    kubectl: str = "kubectl"

    def __post_init__(self) -> None:
        super().__post_init__()
        if not self.pod:
            raise InvalidHostError("a pod name is needed")

    def _base(self) -> list[str]:
        args = [self.kubectl]
        if self.kubeconfig:
            args += ["--kubeconfig", self.kubeconfig]
        if self.context:
            args += ["--context", self.context]
        if self.namespace:
            args += ["-n", self.namespace]
        return args

    def _target(self) -> list[str]:
        return [self.pod, *(["-c", self.container] if self.container else [])]

    def command_argv(self, argv: list[str]) -> list[str]:
        return [*self._base(), "exec", "-i", *self._target(), "--", *argv]

    def attach(self, command: str) -> str:
        return shlex.join(
            [*self._base(), "exec", "-it", *self._target(), "--", "sh", "-c", command]
        )

    @property
    def name(self) -> str:
        where = f"{self.namespace}/" if self.namespace else ""
        inner = f"/{self.container}" if self.container else ""
        return f"kubectl://{where}{self.pod}{inner}"


@dataclass(frozen=True, eq=False)
class ContainerHost(Host):
    """A worker in a running container, through ``podman exec -i`` or ``docker exec -i``.

    Examples
    --------
    >>> ContainerHost("lab", engine="docker", user="me").worker_argv()
    ['docker', 'exec', '-i', '-u', 'me', 'lab', 'python3', '-m', 'lab_widget', 'worker']
    """

    container: str = ""
    engine: str = "podman"
    user: str | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        if not self.container:
            raise InvalidHostError("a container name is needed")

    def _exec(self, *flags: str) -> list[str]:
        return [
            self.engine,
            "exec",
            *flags,
            *(["-u", self.user] if self.user else []),
            self.container,
        ]

    def command_argv(self, argv: list[str]) -> list[str]:
        return [*self._exec("-i"), *argv]

    def attach(self, command: str) -> str:
        return shlex.join([*self._exec("-it"), "sh", "-c", command])

    @property
    def name(self) -> str:
        return f"{Path(self.engine).name}://{self.container}"


def parse_host(value: str | Host, *, python: str | None = None) -> Host:
    """A :class:`Host` from a string (a ``Host`` is returned as it is).

    Examples
    --------
    >>> parse_host("ssh://me@box:2222").name
    'ssh://me@box:2222'
    >>> parse_host("kubectl://lab/agent-0/main?context=prod").name
    'kubectl://lab/agent-0/main'
    >>> parse_host("podman://lab").worker_argv()[:4]
    ['podman', 'exec', '-i', 'lab']
    >>> parse_host("box")
    Traceback (most recent call last):
    ...
    lab_widget.errors.InvalidHostError: host 'box' names no transport; use ssh://, ...
    """
    if isinstance(value, Host):
        return value
    parts = urlsplit(value)
    query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
    py = python or query.get("python")
    if parts.scheme == "ssh":
        user = f"{unquote(parts.username)}@" if parts.username else ""
        if not parts.hostname:
            raise InvalidHostError(f"host {value!r} names no machine")
        return SshHost(f"{user}{parts.hostname}", port=parts.port, python=py or "python3")
    if parts.scheme in ("kubectl", "k8s"):
        names = [n for n in [parts.netloc, *parts.path.split("/")] if n]
        if not 1 <= len(names) <= 3:
            raise InvalidHostError(f"host {value!r}: use kubectl://namespace/pod[/container]")
        if len(names) == 1:
            return KubectlHost(names[0], context=query.get("context"), python=py or "python3")
        return KubectlHost(
            names[1],
            namespace=names[0],
            container=names[2] if len(names) == 3 else None,
            context=query.get("context"),
            python=py or "python3",
        )
    if parts.scheme in ("podman", "docker"):
        if not parts.netloc:
            raise InvalidHostError(f"host {value!r} names no container")
        return ContainerHost(
            parts.netloc, engine=parts.scheme, user=query.get("user"), python=py or "python3"
        )
    if parts.scheme == "local":
        return LocalHost(python=py) if py else LocalHost()
    raise InvalidHostError(
        f"host {value!r} names no transport; use ssh://, kubectl://, podman://, docker:// or local://"
    )
