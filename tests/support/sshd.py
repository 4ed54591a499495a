"""A real second host for the tests: Debian's OpenSSH server on 127.0.0.1, reached as a
second local user, with the OpenSSH client.

:func:`start` (as root) makes sure the user ``lw-remote`` exists with its own home, writes a
host key, a client key and an ``sshd_config`` of its own (key-only, that user only, a free
port, loopback only, no PAM), starts ``sshd -D -e`` and returns an :class:`SshServer` with a
client config (``ssh -F``) whose host alias reaches it. The user runs lab_widget from this
checkout with Debian's Python (same minor version as the kernel's, so the kernel's
site-packages serve it) and the pinned CLIs of the tools folder. :meth:`SshServer.stop`
ends the user's tmux server and sshd, and removes the user, its home and the keys.

Set-up is idempotent: a user left by an interrupted session is reused, then removed. The
checkout, the kernel's site-packages and the tools folder must be readable by other users
(they are used in place); :class:`SetupError` says so when they are not.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import socket
import subprocess
import sys
import sysconfig
import time
from dataclasses import dataclass
from pathlib import Path

from lab_widget import SshHost
from lab_widget._install import tools_dir

from .paths import ROOT
from .remote import FAKE

USER = "lw-remote"
"""The second local user the tests reach over SSH."""

SYSTEM_PYTHON = "/usr/bin/python3"


class SetupError(RuntimeError):
    """The machine cannot host the SSH tests; the message says what is missing."""


def _run(*argv: str, user: str | None = None, check: bool = True, **kwargs: object) -> str:
    command = ["runuser", "-u", user, "--", *argv] if user else list(argv)
    proc = subprocess.run(command, capture_output=True, text=True, check=False, **kwargs)  # type: ignore[call-overload]
    if check and proc.returncode != 0:
        raise SetupError(
            f"{' '.join(command)} failed: {proc.stderr.strip() or proc.stdout.strip()}"
        )
    return str(proc.stdout)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _readable_by_others(path: Path) -> bool:
    for part in [path, *path.parents]:
        mode = part.stat().st_mode
        if not mode & 0o001 or (part == path and not mode & 0o004 and path.is_file()):
            return False
    return True


@dataclass
class SshServer:
    """A running sshd and how to reach it."""

    port: int
    folder: Path
    client_config: Path
    alias: str
    user: str
    home: Path
    lab_home: Path
    process: subprocess.Popen[bytes]

    def host(self, **options: object) -> SshHost:
        """The host as a run reaches it: the user's lab home, this checkout's lab_widget."""
        site = sysconfig.get_paths()["purelib"]
        return SshHost(
            self.alias,
            config=str(self.client_config),
            python=SYSTEM_PYTHON,
            env={
                "LAB_WIDGET_HOME": str(self.lab_home),
                "PYTHONPATH": f"{ROOT}:{site}",
            },
            providers=FAKE,
            **options,  # type: ignore[arg-type]
        )

    def folder_of_user(self, name: str) -> Path:
        """A new folder in the user's home, owned by the user."""
        path = self.home / name
        _run("mkdir", "-p", str(path), user=self.user)
        return path

    def as_user(self, *argv: str) -> str:
        """Run a command as the user, with the host's environment."""
        env = self.host().env
        return _run("env", *(f"{k}={v}" for k, v in env.items()), *argv, user=self.user)

    def stop(self) -> None:
        """End the user's tmux server and sshd; remove the user, its home and the keys."""
        with contextlib.suppress(SetupError):
            self.as_user(
                SYSTEM_PYTHON,
                "-c",
                "from lab_widget._run._launch import runner; runner().kill_server()",
            )
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
        _remove_user()
        shutil.rmtree(self.folder, ignore_errors=True)


def _remove_user() -> None:
    try:
        pwd.getpwnam(USER)
    except KeyError:
        return
    _run("userdel", "--remove", USER, check=False)


def _ensure_user() -> Path:
    try:
        entry = pwd.getpwnam(USER)
    except KeyError:
        _run("useradd", "--create-home", "--shell", "/bin/sh", USER)
        entry = pwd.getpwnam(USER)
    # Not locked ("!"): sshd refuses locked accounts even with a key; no password either.
    _run("usermod", "-p", "*", USER)
    return Path(entry.pw_dir)


def _check_machine() -> None:
    if os.geteuid() != 0:
        raise SetupError("the SSH tests make a second local user: run them as root")
    for tool in ("sshd", "ssh", "ssh-keygen", "useradd", "runuser"):
        if shutil.which(tool) is None and not Path(f"/usr/sbin/{tool}").exists():
            raise SetupError(f"{tool} is missing: run scripts/setup-system.sh")
    if not Path(SYSTEM_PYTHON).exists():
        raise SetupError(f"{SYSTEM_PYTHON} is missing: run scripts/setup-system.sh")
    version = _run(SYSTEM_PYTHON, "-c", "import sys; print(sys.version_info[:2])").strip()
    if version != str(sys.version_info[:2]):
        raise SetupError(
            f"the second user runs {SYSTEM_PYTHON} ({version}), which cannot share this "
            f"kernel's site-packages (Python {sys.version_info[:2]})"
        )
    # The second user runs this checkout's lab_widget, the kernel's site-packages and the
    # pinned CLIs in place (copying them would be gigabytes).
    for path in (ROOT / "lab_widget", Path(sysconfig.get_paths()["purelib"]), tools_dir()):
        if not _readable_by_others(path.resolve()):
            raise SetupError(
                f"{path} must be readable by other users for the SSH tests (clone the "
                "repository where other users can read it, e.g. not under /root)"
            )


def start(folder: Path) -> SshServer:
    """Start sshd for the tests; raises :class:`SetupError` saying what is missing."""
    _check_machine()
    home = _ensure_user()
    folder.mkdir(parents=True, exist_ok=True)
    folder.chmod(0o700)
    for name in ("host_key", "client_key"):
        key = folder / name
        if not key.exists():
            _run("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(key))
    ssh_dir = home / ".ssh"
    _run("mkdir", "-p", "-m", "700", str(ssh_dir), user=USER)
    authorized = ssh_dir / "authorized_keys"
    authorized.write_text((folder / "client_key.pub").read_text())
    shutil.chown(authorized, USER, USER)
    authorized.chmod(0o600)
    port = _free_port()
    config = folder / "sshd_config"
    config.write_text(
        "\n".join(
            [
                f"Port {port}",
                "ListenAddress 127.0.0.1",
                f"HostKey {folder / 'host_key'}",
                f"PidFile {folder / 'sshd.pid'}",
                "AuthorizedKeysFile .ssh/authorized_keys",
                "PubkeyAuthentication yes",
                "PasswordAuthentication no",
                "KbdInteractiveAuthentication no",
                "UsePAM no",
                "PermitRootLogin no",
                f"AllowUsers {USER}",
                "StrictModes yes",
                "LogLevel VERBOSE",
                "",
            ]
        )
    )
    Path("/run/sshd").mkdir(mode=0o755, exist_ok=True)  # its privilege separation folder
    sshd = shutil.which("sshd") or "/usr/sbin/sshd"
    log = (folder / "sshd.log").open("wb")
    process = subprocess.Popen([sshd, "-D", "-e", "-f", str(config)], stderr=log, stdout=log)
    deadline = time.monotonic() + 15
    while True:
        if process.poll() is not None:
            raise SetupError(f"sshd exited: {(folder / 'sshd.log').read_text()}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1):
            break
        if time.monotonic() > deadline:
            process.kill()
            raise SetupError("sshd did not listen within 15 s")
        time.sleep(0.1)
    host_key = (folder / "host_key.pub").read_text().split()
    known = folder / "known_hosts"
    known.write_text(f"[127.0.0.1]:{port} {host_key[0]} {host_key[1]}\n")
    alias = "lab-widget-second-host"
    client = folder / "ssh_config"
    client.write_text(
        "\n".join(
            [
                f"Host {alias}",
                "  HostName 127.0.0.1",
                f"  Port {port}",
                f"  User {USER}",
                f"  IdentityFile {folder / 'client_key'}",
                "  IdentitiesOnly yes",
                f"  UserKnownHostsFile {known}",
                "  StrictHostKeyChecking yes",
                "  LogLevel ERROR",
                "",
            ]
        )
    )
    lab_home = home / "lab-home"
    _run("mkdir", "-p", str(lab_home), user=USER)
    return SshServer(port, folder, client, alias, USER, home, lab_home, process)
