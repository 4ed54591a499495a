"""Typed errors and warnings: every failure a user can meet has its own class and a message
that says what to do. Every class here is exported from :mod:`lab_widget` too.

Examples
--------
>>> raise UnknownProviderError("nope", ["claude-code"])
Traceback (most recent call last):
...
lab_widget.errors.UnknownProviderError: unknown provider 'nope'; known providers: claude-code
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = [
    "AgentNotReadyError",
    "AnswerMismatchWarning",
    "AuthError",
    "AuthNotSupportedError",
    "AuthRequiredError",
    "CLINotFoundError",
    "CommandFileWarning",
    "ConnectionLostError",
    "DialogChangedError",
    "DialogNotAnswerableError",
    "ExportFormatError",
    "HostUnreachableError",
    "InvalidAnswerError",
    "InvalidCodeError",
    "InvalidKeyError",
    "InvalidSeedError",
    "LabWidgetError",
    "LoginFailedError",
    "MissingDependencyError",
    "NoDialogError",
    "NoLoginInProgressError",
    "RemoteError",
    "ReplyDroppedError",
    "RunEndedError",
    "RunNotFoundError",
    "SandboxError",
    "ScrubPatternError",
    "SeedConflictError",
    "SeedMetaError",
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
    """No provider has this id."""

    def __init__(self, provider_id: str, known: Sequence[str]) -> None:
        self.provider_id = provider_id
        self.known = list(known)
        super().__init__(provider_id)

    def __str__(self) -> str:
        return f"unknown provider {self.provider_id!r}; known providers: {', '.join(self.known)}"


class CLINotFoundError(LabWidgetError, FileNotFoundError):
    """The agent CLI is neither in the project tools folder nor on PATH."""

    def __init__(self, display_name: str, binary: str, install_command: str) -> None:
        self.binary = binary
        self.install_command = install_command
        super().__init__(
            f"{display_name} CLI ({binary!r}) not found in the lab_widget tools folder or on "
            f"PATH; install the pinned version with: {install_command}"
        )


class TmuxError(LabWidgetError, RuntimeError):
    """tmux is missing or refused a command."""


class RunEndedError(LabWidgetError, RuntimeError):
    """The agent's process has ended; the run takes no more input."""


class RunNotFoundError(LabWidgetError, LookupError):
    """No live run has this id."""


class SandboxError(LabWidgetError, RuntimeError):
    """A sandboxed run cannot start: bubblewrap is missing, a path to show the agent does
    not exist, or the agent's CLI would need the user's home (see :class:`~lab_widget.Sandbox`).
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


class AgentNotReadyError(LabWidgetError, TimeoutError):
    """The agent's TUI did not become ready for input in time."""


class WaitTimeoutError(LabWidgetError, TimeoutError):
    """``Run.wait`` gave up while the agent was still working."""

    def __init__(self, timeout: float, state: str) -> None:
        self.timeout = timeout
        self.state = state
        super().__init__(f"the agent was still {state!r} after {timeout:g} s")


class ReplyDroppedError(LabWidgetError, RuntimeError):
    """The agent's TUI does not take input in its current state (e.g. mid-turn)."""


class DialogNotAnswerableError(LabWidgetError, RuntimeError):
    """A dialog lab_widget cannot answer; the user answers it in the TUI."""


class StaleDialogError(LabWidgetError, RuntimeError):
    """The dialog being answered is no longer the pending one."""


class NoDialogError(StaleDialogError):
    """No dialog is pending (it was answered already, maybe in the terminal)."""


class DialogChangedError(StaleDialogError):
    """A different dialog is pending than the one the answer was meant for."""


class InvalidAnswerError(LabWidgetError, ValueError):
    """An answer that does not fit the dialog (unknown option, two picks on a
    single-select question, no answer); nothing was typed into the agent.
    """


class AnswerMismatchWarning(UserWarning):
    """The answers the agent recorded differ from the ones lab_widget played."""


class CommandFileWarning(UserWarning):
    """A file that defines a slash command was skipped, or lost a name clash."""


class MissingDependencyError(LabWidgetError, ImportError):
    """An optional dependency is not installed; the message names the extra to install."""

    def __init__(self, module: str, extra: str) -> None:
        self.module = module
        self.extra = extra
        super().__init__(
            f"{module} is not installed; install it with: pip install 'lab_widget[{extra}]'"
        )


class ExportFormatError(LabWidgetError, ValueError):
    """A conversation cannot be exported to that file: its suffix names no known format."""


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
