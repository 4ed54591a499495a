"""tmux, through libtmux, on a dedicated socket: spawn an agent, type into it, watch it end."""

from __future__ import annotations

import logging
import os
import re
import select
import shlex
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

import libtmux
from libtmux.exc import LibTmuxException

from ..errors import RunEndedError, TmuxError
from ._pane_colours import colour_answers
from ._typed_input import input_commands, sanitize_input

__all__ = ["TmuxRunner", "TmuxTerminal", "input_commands", "sanitize_input"]

log = logging.getLogger(__name__)

# Variables that describe the launching process's own terminal, not the agent's.
_HOST_ONLY = frozenset(
    {"TERM", "TMUX", "TMUX_PANE", "TERM_PROGRAM", "TERM_PROGRAM_VERSION", "COLUMNS", "LINES"}
)
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

KILL_GRACE = 2.0
"""Seconds an agent gets to exit after each signal when its session is killed."""

_KILL_TRIES = 5
"""Times a tmux command of a kill is sent when it fails without saying the session is gone
(a server too busy to take the connection): a stop must not leave the agent running."""

_GONE = (
    "can't find session",
    "can't find pane",
    "no server running",
    "(No such file",
    "(Connection refused",
)
"""What tmux says when the session, or its whole server, no longer exists."""


def _gone(error: TmuxError) -> bool:
    """Whether a failed tmux command failed because the session is gone.

    Examples
    --------
    >>> _gone(TmuxError("can't find session: board")), _gone(TmuxError("server exited"))
    (True, False)
    """
    return any(mark in str(error) for mark in _GONE)


_PID_QUERY = ("display-message", "-p", "-t")
_PID_FORMAT = "#{pane_dead} #{pane_pid}"


def _live_pid(answer: str) -> int | None:
    """The pane's pid from tmux's answer to :data:`_PID_FORMAT`, while the pane lives.

    Examples
    --------
    >>> _live_pid("0 4242"), _live_pid("1 4242")
    (4242, None)
    """
    dead, _, pid = answer.strip().partition(" ")
    # A dead pane's pid may name another process by now.
    return int(pid) if dead == "0" and pid.isdigit() else None


def _pidfd(pid: int) -> int | None:
    # A pidfd names this very process: a pid reused after it exits is never signalled.
    try:
        return os.pidfd_open(pid)
    except OSError:
        return None


def _last_words(screen: str, limit: int = 12) -> str:
    """The last ``limit`` lines an ended agent printed, blank runs squeezed, without
    tmux's own "Pane is dead" line.
    """
    lines: list[str] = []
    for raw in screen.splitlines():
        line = raw.rstrip()
        if line.startswith("Pane is dead ("):
            continue
        if line or (lines and lines[-1]):
            lines.append(line)
    return "\n".join(lines[-limit:]).strip("\n")


FINAL_HISTORY = 200
"""Lines of history kept with an ended agent's last screen (for the terminal view)."""


def _tmux_binary() -> str:
    found = shutil.which("tmux")
    if found is None:
        raise TmuxError("tmux is not installed; install it (Debian: apt-get install tmux)")
    return found


class TmuxTerminal:
    """One agent's tmux session: the :class:`~lab_widget.provider.Terminal` of a run."""

    def __init__(self, runner: TmuxRunner, session_name: str) -> None:
        self.runner = runner
        self.session_name = session_name
        self.exit_screen = ""
        """What the agent's screen showed when its process ended by itself (its last
        words: a usage error, a crash), kept for the error that reports the end."""
        self.final_screen = ""
        """The pane's size and its last screen with colours, as ``capture_final`` read it
        before the session went ("" until then): what the terminal view of an ended run
        shows."""

    def __repr__(self) -> str:
        return f"<TmuxTerminal {self.session_name}>"

    @property
    def target(self) -> str:
        """The tmux target of the agent's pane."""
        return f"={self.session_name}:"

    def _tmux(self, *args: str, data: bytes | None = None) -> str:
        return self.runner.tmux(*args, data=data)

    def paste(self, text: str) -> None:
        """Deliver text literally, as one bracketed paste, with control characters dropped."""
        self.paste_keys(text)

    def keys(self, *keys: str) -> None:
        """Press named keys, one ``send-keys`` each."""
        self._alive_then(self._key_commands(keys))

    def paste_keys(self, text: str, *keys: str) -> None:
        """Paste ``text`` (as :meth:`paste`), then press ``keys`` (as :meth:`keys`).

        One tmux process does it all, the alive check included: each would otherwise be a
        process of its own, which is most of what a send costs lab_widget.
        """
        clean = sanitize_input(text)
        commands: list[list[str]] = []
        data = None
        if clean:
            buffer = f"lab-widget-{self.session_name}"
            data = clean.encode()
            commands.append(["load-buffer", "-b", buffer, "-"])
            # -p: bracketed paste when the TUI asked for it; -d: delete the buffer after.
            commands.append(["paste-buffer", "-p", "-d", "-b", buffer, "-t", self.target])
        commands += self._key_commands(keys)
        if commands:
            self._alive_then(commands, data)

    def _key_commands(self, keys: Iterable[str]) -> list[list[str]]:
        return [["send-keys", "-t", self.target, key] for key in keys]

    def _alive_then(self, commands: list[list[str]], data: bytes | None = None) -> None:
        """Run ``commands`` in one tmux process after the alive check; an ended agent
        raises :class:`RunEndedError` (what reached its dead pane was lost anyway).
        """
        joined = ["display-message", "-p", "-t", self.target, "#{pane_dead}"]
        for command in commands:
            joined += [";", *command]
        try:
            out = self._tmux(*joined, data=data)
        except TmuxError:
            if not self.alive():
                raise RunEndedError(f"tmux session {self.session_name!r} has ended") from None
            raise
        if out.strip().splitlines()[:1] != ["0"]:
            raise RunEndedError(f"tmux session {self.session_name!r} has ended")

    def type_text(self, text: str) -> None:
        """Type text key by key (no paste), for fields inside a picker.

        A bracketed paste starts with ESC, which a picker reads as "cancel"; typed text is
        one line, with control characters dropped.
        """
        clean = sanitize_input(text).replace("\n", " ").replace("\t", " ")
        if not clean:
            return
        if not self.alive():
            raise RunEndedError(f"tmux session {self.session_name!r} has ended")
        self._tmux("send-keys", "-t", self.target, "-l", clean)

    def alive(self) -> bool:
        """Whether the session and the agent's process still exist."""
        try:
            out = self._tmux("display-message", "-p", "-t", self.target, "#{pane_dead}")
        except TmuxError:
            return False
        return out.strip() == "0"

    def pid(self) -> int | None:
        """The agent process's pid (the pane's first process), while it runs."""
        try:
            return _live_pid(self._tmux(*_PID_QUERY, self.target, _PID_FORMAT))
        except TmuxError:
            return None

    def memory(self) -> int | None:
        """Resident bytes of the agent's process and its descendants (``None`` when it is
        not running).
        """
        return tree_memory(self.pid())

    def capture(self) -> str:
        """The visible screen, for diagnostics and tests only (never for product logic)."""
        try:
            return self._tmux("capture-pane", "-p", "-t", self.target)
        except TmuxError:
            return ""

    def last_words(self) -> str:
        """The last lines the pane shows, its history included (a pane that dies scrolls
        its screen into the history), blank runs squeezed; "" when the session is gone.
        """
        try:
            screen = self._tmux("capture-pane", "-p", "-S", "-200", "-t", self.target)
        except TmuxError:
            return ""
        return _last_words(screen)

    def kill(self, grace: float = KILL_GRACE) -> None:
        """End the session: the agent gets SIGHUP; one still running after ``grace``
        seconds gets SIGTERM, then SIGKILL (some CLIs ignore the hang-up).
        """
        try:
            pid = _live_pid(self._answered(*_PID_QUERY, self.target, _PID_FORMAT))
        except TmuxError:
            pid = None
        fd = _pidfd(pid) if pid is not None else None
        self.capture_final()
        try:
            self._answered("kill-session", "-t", f"={self.session_name}")
        except TmuxError:
            pass  # gone already, or tmux never answered: the signals below still end it
        if fd is None:
            return
        try:
            for sig in (signal.SIGTERM, signal.SIGKILL):
                if select.select([fd], [], [], grace)[0]:
                    return  # it exited
                try:
                    signal.pidfd_send_signal(fd, sig)
                except ProcessLookupError:
                    return
        finally:
            os.close(fd)

    def _answered(self, *args: str) -> str:
        # A kill's tmux command, sent again while it fails for another reason than the
        # session's end; raises TmuxError once the session is gone or the tries run out.
        for attempt in range(_KILL_TRIES - 1):
            try:
                return self._tmux(*args)
            except TmuxError as exc:
                if _gone(exc):
                    raise
                log.warning("tmux %s on session %s failed: %s", args[0], self.session_name, exc)
                time.sleep(0.1 * (attempt + 1))
        return self._tmux(*args)

    @property
    def attach_command(self) -> str:
        """A copyable command that attaches a terminal to this session."""
        return shlex.join(
            ["tmux", "-S", str(self.runner.socket_path), "attach", "-t", self.session_name]
        )

    # -- for the terminal view (lab_widget._runtime._pane_stream); never read by the chat brain

    def pane_id(self) -> str | None:
        """The id of the agent's pane (``%<n>``), or ``None`` when the session is gone."""
        try:
            out = self._tmux("display-message", "-p", "-t", self.target, "#{pane_id}")
        except TmuxError:
            return None
        return out.strip() or None

    def send_bytes(self, data: bytes) -> None:
        """Write ``data`` into the pane as the keys a terminal would send (``send-keys -H``)."""
        if not self.alive():
            raise RunEndedError(f"tmux session {self.session_name!r} has ended")
        for command in input_commands(self.target, data):
            self._tmux(*command)

    def capture_final(self) -> None:
        """Keep the pane's size and screen (with colours) in ``final_screen``, once.

        Called before the session goes; a session already gone leaves it as it was.
        """
        if self.final_screen:
            return
        try:
            self.final_screen = self._tmux(
                *("display-message", "-p", "-t", self.target, "#{pane_width} #{pane_height}"),
                ";",
                *("capture-pane", "-p", "-e", "-S", f"-{FINAL_HISTORY}", "-t", self.target),
            )
        except TmuxError:
            pass

    def control_argv(self) -> list[str]:
        """The command line of a tmux control-mode client attached to this session."""
        return [
            self.runner.binary,
            *("-S", str(self.runner.socket_path)),
            *("-C", "attach-session", "-t", f"={self.session_name}"),
        ]

    def on_exit(self, callback: Callable[[], None]) -> threading.Thread:
        """Call ``callback`` once when the agent's process ends (a pidfd wait, no polling)."""

        def wait() -> None:
            pid = self.pid()
            if pid is not None:
                try:
                    fd = os.pidfd_open(pid)
                except OSError:
                    fd = -1
                if fd >= 0:
                    try:
                        select.select([fd], [], [])
                    finally:
                        os.close(fd)
            # The pane stays after its process ends (remain-on-exit): read it, then drop
            # the session. After a stop the session is already gone and this reads "".
            self.exit_screen = self.last_words()
            self.capture_final()
            try:
                self._tmux("kill-session", "-t", f"={self.session_name}")
            except TmuxError:
                pass
            callback()

        thread = threading.Thread(target=wait, name=f"lab-widget-exit-{self.session_name}")
        thread.daemon = True
        thread.start()
        return thread


COMMAND_LIMIT = 16384
"""Bytes of a tmux client's command (all its words): tmux 3.3a refuses a longer
``new-session`` with "command too long" (measured: 16,000 bytes of command went, 17,000
did not)."""


def _launch_command(
    env_file: str, argv: Sequence[str], inherit_env: bool, answer_colours: bool = False
) -> str:
    launcher = 'set -a; . "$0"; rm -f "$0"; exec "$@"'
    if answer_colours:
        # Written by the pane's own shell before the CLI starts: set before any query.
        launcher = f"{colour_answers()}; {launcher}"
    if not inherit_env:
        # env -i: the session starts from nothing but the terminal type tmux gave it.
        launcher = f'exec env -i TERM="$TERM" sh -c {shlex.quote(launcher)} "$0" "$@"'
    return shlex.join(["sh", "-c", launcher, env_file, *argv])


class TmuxRunner:
    """A dedicated tmux server (its own socket, no user config) holding agent sessions."""

    def __init__(self, socket_path: Path) -> None:
        self.socket_path = socket_path
        self._bin = _tmux_binary()
        self._config = socket_path.parent / "tmux.conf"
        self.server = libtmux.Server(
            socket_path=str(socket_path), config_file=str(self._config), tmux_bin=self._bin
        )

    @property
    def binary(self) -> str:
        """The tmux executable this runner uses."""
        return self._bin

    def tmux(self, *args: str, data: bytes | None = None) -> str:
        """Run one tmux command on this server; raise :class:`TmuxError` on failure."""
        proc = subprocess.run(
            [self._bin, "-S", str(self.socket_path), *args],
            input=data,
            capture_output=True,
            check=False,
        )
        if proc.returncode != 0:
            raise TmuxError(
                proc.stderr.decode(errors="replace").strip() or f"tmux {args[0]} failed"
            )
        return proc.stdout.decode(errors="replace")

    def spawn(
        self,
        session_name: str,
        argv: Sequence[str],
        env: Mapping[str, str],
        cwd: Path,
        *,
        unset: Iterable[str] = (),
        width: int = 200,
        height: int = 50,
        inherit_env: bool = True,
        answer_colours: bool = False,
    ) -> TmuxTerminal:
        """Start ``argv`` in a new detached session.

        The agent gets this process's current environment plus ``env``: a long-lived tmux
        server would otherwise hand it the environment of whichever process started the
        server. With ``inherit_env=False`` it gets ``env`` alone (and the pane's ``TERM``):
        neither this process's variables nor the server's reach it (a sandboxed agent).
        With ``answer_colours`` the pane has the terminal view's default colours, so tmux
        answers the agent's query of them at once (:func:`colour_answers`).
        The environment travels in a private file the session reads and deletes, so no
        credential ever appears on a command line.
        """
        self.socket_path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        unset = {name for name in unset if _ENV_NAME.fullmatch(name)}
        inherited = os.environ.items() if inherit_env else ()
        full = {k: v for k, v in inherited if k not in _HOST_ONLY | unset}
        full.update(env)
        fd, env_file = tempfile.mkstemp(prefix="env-", dir=self.socket_path.parent)
        with os.fdopen(fd, "w") as f:
            # The server's own environment (from whichever process started it) reaches the
            # session too: what must not reach the agent is unset explicitly.
            for name in sorted(unset - full.keys()):
                f.write(f"unset {name}\n")
            for key, value in full.items():
                if _ENV_NAME.fullmatch(key):
                    f.write(f"export {key}={shlex.quote(value)}\n")
        command = _launch_command(env_file, argv, inherit_env, answer_colours)
        # The server's only configuration: panes outlive their process, so the last
        # screen of an agent that ends by itself can still be read (see ``on_exit``).
        self._config.write_text("set-option -g remain-on-exit on\n")
        if session_name not in self.sessions():
            # A dead pane kept from an earlier kernel may hold the name: it goes first.
            try:
                self.tmux("kill-session", "-t", f"={session_name}")
            except TmuxError:
                pass
        try:
            self.server.new_session(
                session_name=session_name,
                start_directory=str(cwd),
                window_command=command,
                x=width,
                y=height,
                attach=False,
            )
        except LibTmuxException as exc:
            Path(env_file).unlink(missing_ok=True)
            raise TmuxError(f"could not start tmux session {session_name!r}: {exc}") from exc
        return TmuxTerminal(self, session_name)

    def command_fits(self, session_name: str, argv: Sequence[str], cwd: Path) -> bool:
        """Whether :meth:`spawn` can start ``argv`` (tmux caps a command's size: a first
        prompt on the command line must leave the rest its room).
        """
        env_file = str(self.socket_path.parent / "env-XXXXXXXX")
        # Counted with the colour answers, the longest launcher a spawn may use.
        words = [session_name, str(cwd), _launch_command(env_file, argv, False, True)]
        # The other words of new-session (its flags, the size) and tmux's own framing.
        return sum(len(w.encode()) for w in words) + 256 <= COMMAND_LIMIT

    def sessions(self) -> list[str]:
        """Names of the sessions on this server whose agent still runs."""
        try:
            out = self.tmux("list-sessions", "-F", "#{pane_dead} #{session_name}")
        except TmuxError:
            return []  # no server: no sessions
        return [line[2:] for line in out.splitlines() if line.startswith("0 ")]

    def terminal(self, session_name: str) -> TmuxTerminal:
        """A handle on an existing session."""
        return TmuxTerminal(self, session_name)

    def kill_server(self) -> None:
        """Stop the whole server (tests' cleanup)."""
        try:
            self.tmux("kill-server")
        except TmuxError:
            pass


def tree_memory(pid: int | None) -> int | None:
    """Resident bytes of ``pid`` and its descendants (``None`` when unknown).

    Examples
    --------
    >>> tree_memory(os.getpid()) > 0
    True
    >>> tree_memory(None) is None
    True
    """
    if pid is None:
        return None
    total, stack, seen = 0, [pid], set()
    while stack:
        current = stack.pop()
        if current in seen:
            continue
        seen.add(current)
        try:
            status = Path(f"/proc/{current}/status").read_text()
            children = Path(f"/proc/{current}/task/{current}/children").read_text().split()
        except OSError:
            continue
        for line in status.splitlines():
            if line.startswith("VmRSS:"):
                total += int(line.split()[1]) * 1024
        stack.extend(int(c) for c in children)
    return total
