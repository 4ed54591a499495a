"""The terminal pane of a run on another host: the agent's tmux pane there, for the chat
view's terminal (a view of the TUI, never read for state or content).

:class:`HostTmux` runs the few tmux commands the terminal view needs on the host's server,
as the worker's ``tmux`` operation; :class:`RemoteTerminal` is the run's
:class:`~lab_widget._runtime._tmux.TmuxTerminal` on it, whose control-mode client is tmux on
the host started through the same transport (``ssh -T host -- tmux -C attach-session``), so the
stream flows over a pipe of its own while someone watches, and not at all otherwise.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .._runtime._tmux import TmuxRunner, TmuxTerminal
from ._transports import Host

__all__ = ["TMUX_COMMANDS", "HostTmux", "RemoteTerminal"]

TMUX_COMMANDS = frozenset(
    {
        "display-message",
        "capture-pane",
        "send-keys",
        "load-buffer",
        "paste-buffer",
        "list-clients",
        "set-hook",
    }
)
"""The tmux commands a kernel may run on a host's server through the worker: what the
terminal view uses (screens, sizes, keys, a paste, the size-restoring hook)."""


def allowed(argv: list[str]) -> bool:
    """Whether every command of ``argv`` (commands joined by ``;``) is one of
    :data:`TMUX_COMMANDS`.

    Examples
    --------
    >>> allowed(["display-message", "-p", "x", ";", "capture-pane", "-p"])
    True
    >>> allowed(["run-shell", "id"]), allowed([])
    (False, False)
    """
    starts = [0, *(i + 1 for i, word in enumerate(argv) if word == ";")]
    return bool(argv) and all(i < len(argv) and argv[i] in TMUX_COMMANDS for i in starts)


class HostTmux(TmuxRunner):
    """The tmux server of a host's lab home, commanded through the worker.

    Parameters
    ----------
    request
        Sends one ``tmux`` request to the worker and returns its output.
    binary, socket_path
        tmux and its socket on the host (what the worker's own runner uses).
    """

    def __init__(
        self, request: Callable[[dict[str, Any]], str], binary: str, socket_path: Path
    ) -> None:
        # No local server: the one it commands is on the host.
        self.socket_path = socket_path
        self._bin = binary
        self._request = request

    def tmux(self, *args: str, data: bytes | None = None) -> str:
        """Run one tmux command on the host's server (:class:`TmuxError` as tmux said)."""
        payload: dict[str, Any] = {"argv": list(args)}
        if data is not None:
            payload["data"] = base64.b64encode(data).decode("ascii")
        return self._request(payload)


class RemoteTerminal(TmuxTerminal):
    """A run's tmux session on another host."""

    def __init__(self, runner: HostTmux, session_name: str, host: Host) -> None:
        super().__init__(runner, session_name)
        self.host = host

    def control_argv(self) -> list[str]:
        """The command line of a tmux control-mode client on the host, through the transport."""
        return self.host.command_argv(
            [
                self.runner.binary,
                *("-S", str(self.runner.socket_path)),
                *("-C", "attach-session", "-t", f"={self.session_name}"),
            ]
        )

    @property
    def attach_command(self) -> str:
        """A command that opens the session from a terminal here."""
        return self.host.attach(super().attach_command)
