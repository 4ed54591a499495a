"""Typed errors and warnings: every failure a user can meet has its own class and a message
that says what to do. Every class here is exported from :mod:`lab_widget` too.

Nothing raises :class:`LabWidgetError` itself: it is the base to catch them all. The middle
classes are what a caller catches by concern (any dialog problem, any run that cannot take
input now, anything missing on this machine); each leaf also keeps the builtin base it has
always had, so ``except ValueError`` and friends still work::

    LabWidgetError
    ├── UnknownProviderError (KeyError)
    ├── RunNotFoundError (LookupError)
    ├── RunNameTakenError (ValueError)
    ├── InvalidCwdError (ValueError)
    ├── InvalidHostError (ValueError)
    ├── ExportFormatError (ValueError)
    ├── InvalidSeedError (ValueError)
    ├── CommandTableError (ValueError)
    ├── SetupError
    │   ├── CLINotFoundError (FileNotFoundError)
    │   ├── NpmNotFoundError (FileNotFoundError)
    │   ├── PythonNotFoundError (FileNotFoundError)
    │   ├── MissingDependencyError (ImportError)
    │   ├── TmuxError (RuntimeError)
    │   ├── SandboxError (RuntimeError)
    │   ├── AcpHandshakeError (RuntimeError)
    │   └── KernelToolsError (RuntimeError)
    │       ├── KernelBusyError (TimeoutError)
    │       └── RemoteKernelToolsError (PermissionError)
    ├── RunStateError
    │   ├── RunEndedError (RuntimeError)
    │   ├── AgentNotReadyError (TimeoutError)
    │   ├── AgentBlockedError (RuntimeError)
    │   ├── WaitTimeoutError (TimeoutError)
    │   ├── ReplyDroppedError (RuntimeError)
    │   ├── NoTerminalError (RuntimeError)
    │   └── NotRestartableError (RuntimeError)
    ├── DialogError
    │   ├── DialogNotAnswerableError (RuntimeError)
    │   ├── StaleDialogError (RuntimeError)
    │   │   ├── NoDialogError
    │   │   └── DialogChangedError
    │   ├── InvalidAnswerError (ValueError)
    │   └── AnswerNotDeliveredError (RuntimeError)
    ├── RemoteError (RuntimeError)
    │   ├── HostUnreachableError (ConnectionError)
    │   ├── ConnectionLostError (ConnectionError)
    │   ├── WorkerVersionError
    │   └── RemoteOptionsError (TypeError)
    ├── WorkspaceError (RuntimeError)
    │   └── SeedConflictError
    ├── SeedMetaError
    │   └── ScrubPatternError
    └── AuthError (RuntimeError)
        ├── AuthNotSupportedError
        ├── AuthRequiredError
        ├── LoginFailedError
        ├── NoLoginInProgressError
        ├── InvalidCodeError (ValueError)
        └── InvalidKeyError (ValueError)

    UserWarning
    ├── AnswerMismatchWarning
    ├── CommandFileWarning
    └── RunStoppedWarning

Examples
--------
>>> raise UnknownProviderError("nope", ["claude-code"])
Traceback (most recent call last):
...
lab_widget.errors.UnknownProviderError: unknown provider 'nope'; known providers: claude-code
>>> str(UnknownProviderError("claude", ["claude-code", "codex"]))
"unknown provider 'claude' (did you mean 'claude-code'?); known providers: claude-code, codex"
>>> try:
...     raise NoDialogError("nothing is pending")
... except DialogError as exc:
...     type(exc).__name__
'NoDialogError'
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence

__all__ = [
    "AcpHandshakeError",
    "AgentBlockedError",
    "AgentNotReadyError",
    "AnswerMismatchWarning",
    "AnswerNotDeliveredError",
    "AuthError",
    "AuthNotSupportedError",
    "AuthRequiredError",
    "CLINotFoundError",
    "CommandFileWarning",
    "CommandTableError",
    "ConnectionLostError",
    "DialogChangedError",
    "DialogError",
    "DialogNotAnswerableError",
    "ExportFormatError",
    "HostUnreachableError",
    "InvalidAnswerError",
    "InvalidCodeError",
    "InvalidCwdError",
    "InvalidHostError",
    "InvalidKeyError",
    "InvalidSeedError",
    "KernelBusyError",
    "KernelToolsError",
    "LabWidgetError",
    "LoginFailedError",
    "MissingDependencyError",
    "NoDialogError",
    "NoLoginInProgressError",
    "NoTerminalError",
    "NotRestartableError",
    "NpmNotFoundError",
    "PythonNotFoundError",
    "RemoteError",
    "RemoteKernelToolsError",
    "RemoteOptionsError",
    "ReplyDroppedError",
    "RunEndedError",
    "RunNameTakenError",
    "RunNotFoundError",
    "RunStateError",
    "RunStoppedWarning",
    "SandboxError",
    "ScrubPatternError",
    "SeedConflictError",
    "SeedMetaError",
    "SetupError",
    "StaleDialogError",
    "TmuxError",
    "UnknownProviderError",
    "WaitTimeoutError",
    "WorkerVersionError",
    "WorkspaceError",
]


class LabWidgetError(Exception):
    """Base of every lab_widget error."""


class UnknownProviderError(LabWidgetError, KeyError):
    """No provider has this id; the message names the known ones, and the closest one when
    the id looks like a slip (``claude`` for ``claude-code``).
    """

    def __init__(self, provider_id: str, known: Sequence[str]) -> None:
        self.provider_id = provider_id
        self.known = list(known)
        # Kept as an attribute, not only in the text: a remote run carries plain attributes
        # across, and rebuilds the message from them on the kernel's side.
        self.suggestion = _closest(provider_id, self.known)
        super().__init__(provider_id)

    def __str__(self) -> str:
        hint = f" (did you mean {self.suggestion!r}?)" if self.suggestion else ""
        known = ", ".join(self.known)
        return f"unknown provider {self.provider_id!r}{hint}; known providers: {known}"


def _closest(provider_id: str, known: Sequence[str]) -> str | None:
    """The known id ``provider_id`` most likely meant, if one is close enough.

    A family's ids share a prefix (``gemini-cli``); a user types the short name. The
    prefix check comes first so ``claude`` finds ``claude-code`` even when a longer id
    would score higher by edit distance alone.
    """
    wanted = provider_id.strip().lower()
    if not wanted:
        return None
    prefixed = [k for k in known if k.lower().startswith(wanted)]
    if len(prefixed) == 1:
        return prefixed[0]
    close = difflib.get_close_matches(wanted, list(known), n=1, cutoff=0.6)
    return close[0] if close else None


class RunNotFoundError(LabWidgetError, LookupError):
    """No live run has this id."""


class RunNameTakenError(LabWidgetError, ValueError):
    """A live run already has the name asked for; pick another name (or stop that run)."""


class InvalidCwdError(LabWidgetError, ValueError):
    """A run's ``cwd`` is not a folder (missing, or a file)."""


class InvalidHostError(LabWidgetError, ValueError):
    """A host string or :class:`~lab_widget.Host` that names no usable machine, pod or
    container (an unknown scheme, a missing name); nothing was started.
    """


# -- setup: something this machine lacks ---------------------------------------------------


class SetupError(LabWidgetError):
    """Base of what a run cannot start without: a CLI, a tool or a Python package missing
    from this machine, or a sandbox or tmux that refuses. The message says what to install.
    """


class CLINotFoundError(SetupError, FileNotFoundError):
    """The agent CLI is neither in the project tools folder nor on PATH."""

    def __init__(self, display_name: str, binary: str, install_command: str) -> None:
        self.binary = binary
        self.install_command = install_command
        super().__init__(
            f"{display_name} CLI ({binary!r}) not found in the lab_widget tools folder or on "
            f"PATH; install the pinned version with: {install_command}"
        )


class NpmNotFoundError(SetupError, FileNotFoundError):
    """``npm`` is not on PATH, so the pinned agent CLIs cannot be installed; install Node.js."""


class PythonNotFoundError(SetupError, FileNotFoundError):
    """No Python on this machine is new enough to build the virtual environment a Python
    agent CLI is installed into (its pin names the oldest it runs on).
    """

    def __init__(self, package: str, minimum: tuple[int, int], tried: list[str]) -> None:
        self.package = package
        self.minimum = minimum
        self.tried = tried
        wanted = ".".join(map(str, minimum))
        super().__init__(
            f"{package} needs Python >= {wanted} and none was found (tried: "
            f"{', '.join(tried) or 'nothing'}); install one (`apt-get install python{wanted} "
            f"python{wanted}-venv`, `pyenv install {wanted}` or `uv python install {wanted}`) "
            "or name its executable in $LAB_WIDGET_PYTHON, then install the pinned CLIs again"
        )


class TmuxError(SetupError, RuntimeError):
    """tmux is missing or refused a command."""


class SandboxError(SetupError, RuntimeError):
    """A sandboxed run cannot start: bubblewrap is missing, a path to show the agent does
    not exist, or the agent's CLI would need the user's home (see :class:`~lab_widget.Sandbox`).
    """


class AcpHandshakeError(SetupError, RuntimeError):
    """An ACP agent did not complete ``initialize``: it exited, failed it, or stayed silent
    past the timeout. The message names the agent's command.
    """


# -- remote runs ----------------------------------------------------------------------------


class KernelToolsError(SetupError, RuntimeError):
    """A run cannot be given the kernel's tools (``Run(..., kernel=True)``): no kernel to reach
    (plain Python, no connection file), or the tools' server cannot start here.
    """


class KernelBusyError(KernelToolsError, TimeoutError):
    """The kernel did not become free within the wait: a user's cell still runs (nothing of
    the agent's was run).
    """


class RemoteKernelToolsError(KernelToolsError, PermissionError):
    """``kernel=True`` on a run on another host: the agent there would run code in this
    kernel, with this machine's files, variables and keys.
    """


class RemoteError(LabWidgetError, RuntimeError):
    """A run on another host (or its worker) failed in a way that has no class of its own."""


class HostUnreachableError(RemoteError, ConnectionError):
    """The worker on the run's host could not be started or reached; the message carries
    what the transport (ssh, kubectl, podman) said.
    """


class WorkerVersionError(RemoteError):
    """The worker on the host speaks another protocol, or runs another lab_widget version
    or other CLI pins than this kernel; install the same version on both sides.
    """


class ConnectionLostError(RemoteError, ConnectionError):
    """The pipe to the host dropped while a request that must not be repeated (a send, an
    answer) was on its way: it may or may not have reached the agent. The run itself lives
    on; the connection is re-established and the chat resynced.
    """


class RemoteOptionsError(RemoteError, TypeError):
    """A remote run was given options that cannot travel to its host (not plain JSON)."""


# -- the run's state: it cannot take this now -------------------------------------------------


class RunStateError(LabWidgetError):
    """Base of what a run cannot do in its current state: it has ended, is not ready yet,
    waits on something only its TUI can answer, or is still working past a timeout.
    """


class RunEndedError(RunStateError, RuntimeError):
    """The agent's process has ended; the run takes no more input."""


class AgentNotReadyError(RunStateError, TimeoutError):
    """The agent's TUI did not become ready for input in time."""


class AgentBlockedError(RunStateError, RuntimeError):
    """The agent asks something at start-up that lab_widget does not accept for the user
    (the message says what); answer it in the TUI with the attach command it gives.
    """


class NoTerminalError(RunStateError, RuntimeError):
    """The view's run has no tmux pane for the terminal view to show."""


class NotRestartableError(RunStateError, RuntimeError):
    """``Run.restart`` on a run this process did not start here: one on another host, or
    one an earlier kernel started (its settings are not known here). Start a new run.
    """


class WaitTimeoutError(RunStateError, TimeoutError):
    """``Run.wait`` gave up while the agent was still working."""

    def __init__(self, timeout: float, state: str) -> None:
        self.timeout = timeout
        self.state = state
        super().__init__(f"the agent was still {state!r} after {timeout:g} s")


class ReplyDroppedError(RunStateError, RuntimeError):
    """The agent's TUI does not take input in its current state (e.g. mid-turn)."""


# -- dialogs --------------------------------------------------------------------------------


class DialogError(LabWidgetError):
    """Base of what goes wrong answering a dialog: none is pending or another one is, it
    cannot be answered from the chat, the answer does not fit it, or it did not arrive.
    """


class DialogNotAnswerableError(DialogError, RuntimeError):
    """A dialog lab_widget cannot answer; the user answers it in the TUI."""


class StaleDialogError(DialogError, RuntimeError):
    """The dialog being answered is no longer the pending one."""


class NoDialogError(StaleDialogError):
    """No dialog is pending (it was answered already, maybe in the terminal)."""


class DialogChangedError(StaleDialogError):
    """A different dialog is pending than the one the answer was meant for."""


class InvalidAnswerError(DialogError, ValueError):
    """An answer that does not fit the dialog (unknown option, two picks on a
    single-select question, no answer); nothing was typed into the agent.
    """


class AnswerNotDeliveredError(DialogError, RuntimeError):
    """The agent's side did not take a valid answer (its server refused or was gone); the
    dialog may still be pending.
    """


class AnswerMismatchWarning(UserWarning):
    """The answers the agent recorded differ from the ones lab_widget played."""


class CommandFileWarning(UserWarning):
    """A file that defines a slash command was skipped, or lost a name clash."""


class RunStoppedWarning(UserWarning):
    """lab_widget stopped a run nobody could use any more: the message says which and why
    (its scripted model ended with its kernel; the cell that started it ran again).
    """


class MissingDependencyError(SetupError, ImportError):
    """An optional dependency is not installed; the message names the extra to install."""

    def __init__(self, module: str, extra: str) -> None:
        self.module = module
        self.extra = extra
        super().__init__(
            f"{module} is not installed; install it with: pip install 'lab_widget[{extra}]'"
        )


class ExportFormatError(LabWidgetError, ValueError):
    """A conversation cannot be exported to that file: its suffix names no known format."""


class CommandTableError(LabWidgetError, ValueError):
    """A provider's pinned builtin command table (the ``commands.toml`` shipped in its
    package) is missing or malformed; raised when the provider is imported. The message
    names the file and the entry at fault.
    """


class SeedMetaError(LabWidgetError):
    """A provider's seeding metadata is unusable (a path that leaves the workspace...).

    Raised when the metadata is built, i.e. when the provider is imported or looked up,
    never halfway through seeding. Deliberately not a ``ValueError``, so model validation
    passes it through unchanged.
    """


class ScrubPatternError(SeedMetaError):
    """An attribution scrub pattern does not compile, or misses one of its own samples."""


class InvalidSeedError(LabWidgetError, ValueError):
    """A :class:`~lab_widget.Seed` the provider cannot write (a skill name that is not a
    plain folder name, skills for a provider without a skills folder); nothing was written.
    """


class WorkspaceError(LabWidgetError, RuntimeError):
    """A git operation on a run's workspace failed (not a repository, git missing, a
    worktree with uncommitted changes that cleanup would lose).
    """


class SeedConflictError(WorkspaceError):
    """Seeding would overwrite a file the user has (tracked by git, or with other
    content); nothing was written.
    """


class AuthError(LabWidgetError, RuntimeError):
    """Base of the login errors: a login, code, key or logout the provider refused."""


class AuthNotSupportedError(AuthError):
    """The provider does not offer this kind of login (see its auth descriptor)."""


class AuthRequiredError(AuthError):
    """A run cannot start: the provider is not logged in and no credential is stored."""

    def __init__(self, provider_id: str, display_name: str) -> None:
        self.provider_id = provider_id
        super().__init__(
            f"{display_name} is not logged in: log in with "
            f"lab_widget.login({provider_id!r}) (or pass endpoint=...), then start the run again"
        )


class LoginFailedError(AuthError):
    """The provider's CLI could not complete the login (offline, code rejected, expired)."""


class InvalidCodeError(AuthError, ValueError):
    """The pasted code was refused before any exchange; the login still waits for a code."""


class NoLoginInProgressError(AuthError):
    """A code was submitted but no login was started (or it already ended)."""


class InvalidKeyError(AuthError, ValueError):
    """The API key given is empty or malformed; nothing was stored."""
