"""Auth flows behind the seam: status, login, code, key and logout, provider-neutral.

A provider describes how it logs in (:class:`~lab_widget.schema.AuthDescriptor`) and hands
out an :class:`AuthFlow` that performs it. Every change a flow makes is announced once
through :mod:`lab_widget.provider._auth_events`, so open views refresh whichever flow made it.

API keys saved through a flow live in :data:`credentials`, in this process's memory only:
never written to disk, never put in a notebook or a widget trait, and injected into the
agent's environment at spawn (see :func:`injected_credentials`).
"""

from __future__ import annotations

import subprocess
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass

from ..errors import (
    AuthNotSupportedError,
    AuthRequiredError,
    InvalidCodeError,
    InvalidKeyError,
    LabWidgetError,
    NoLoginInProgressError,
)
from ..schema import AuthDescriptor, AuthKind, AuthStatus
from ._auth_events import AuthChange, publish

__all__ = [
    "AuthFlow",
    "CredentialStore",
    "DescribedAuthFlow",
    "LoginStart",
    "credentials",
    "injected_credentials",
    "require_login",
]


class CredentialStore:
    """API keys by provider id, in memory for the life of the process.

    Examples
    --------
    >>> store = CredentialStore()
    >>> store.put("some-provider", "sk-secret")
    >>> store
    CredentialStore(providers=['some-provider'])
    >>> store.get("some-provider")
    'sk-secret'
    >>> store.forget("some-provider"); store.get("some-provider") is None
    True
    """

    def __init__(self) -> None:
        self._keys: dict[str, str] = {}
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        # Names only: a repr ends up in logs and notebook outputs.
        with self._lock:
            return f"CredentialStore(providers={sorted(self._keys)!r})"

    def put(self, provider_id: str, key: str) -> None:
        """Keep ``key`` for ``provider_id`` (replacing an earlier one)."""
        with self._lock:
            self._keys[provider_id] = key

    def get(self, provider_id: str) -> str | None:
        """The key kept for ``provider_id``, if any."""
        with self._lock:
            return self._keys.get(provider_id)

    def forget(self, provider_id: str) -> None:
        """Drop the key kept for ``provider_id`` (nothing happens when there is none)."""
        with self._lock:
            self._keys.pop(provider_id, None)


credentials = CredentialStore()
"""The process-wide store every flow and spawn uses."""


def injected_credentials(provider_id: str, descriptor: AuthDescriptor) -> dict[str, str]:
    """The environment a spawn adds for a stored key: ``{env_var: key}`` or nothing.

    Examples
    --------
    >>> from lab_widget.schema import AuthMethod
    >>> d = AuthDescriptor(kind="api-key", methods=[AuthMethod(kind="api-key", env_var="K")])
    >>> injected_credentials("nobody-stored-one", d)
    {}
    """
    key = credentials.get(provider_id)
    method = descriptor.method("api-key")
    if key is None or method is None or not method.env_var:
        return {}
    return {method.env_var: key}


@dataclass(frozen=True)
class LoginStart:
    """What the user does next after a login started.

    Parameters
    ----------
    kind
        ``oauth-code`` (open ``url``, paste the code it shows back) or ``oauth-redirect``
        (open ``url``; the page redirects to a local port, see ``instructions``).
    url
        The sign-in page.
    instructions
        Operator notes shown beside the link.
    """

    kind: AuthKind
    url: str
    instructions: str = ""

    @property
    def needs_code(self) -> bool:
        """Whether the user pastes a code back (``submit_code``)."""
        return self.kind == "oauth-code"


class AuthFlow(ABC):
    """Status, login, code, key and logout for one provider.

    Subclasses implement :meth:`status` and whichever of ``_start`` / ``_submit_code`` /
    ``_logout`` their descriptor offers; the public methods check the input, call them and
    announce the change.
    """

    def __init__(self, provider_id: str, descriptor: AuthDescriptor) -> None:
        self.provider_id = provider_id
        self.descriptor = descriptor

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.provider_id!r})"

    @abstractmethod
    def status(self) -> AuthStatus:
        """Whether the provider is logged in now, and how (asks the provider afresh)."""

    # -- the public operations -----------------------------------------------------------

    def start(self, kind: AuthKind | None = None) -> LoginStart:
        """Begin a browser login; ``kind`` picks among the descriptor's OAuth methods."""
        method = self._oauth_method(kind)
        return self._start(method)

    def submit_code(self, code: str) -> AuthStatus:
        """Hand the code the sign-in page showed to the login started by :meth:`start`."""
        code = code.strip()
        if not code:
            raise InvalidCodeError("paste the code the sign-in page showed")
        self._submit_code(code)
        return self.announce()

    def cancel(self) -> None:
        """Abandon a started login (nothing happens when none is running)."""
        return

    def save_key(self, key: str) -> AuthStatus:
        """Keep an API key for this provider's runs (memory only) and report the status."""
        if self.descriptor.method("api-key") is None:
            raise AuthNotSupportedError(
                f"{self.provider_id} does not take an API key; it logs in with: {self._kinds()}"
            )
        key = key.strip()
        if not key:
            raise InvalidKeyError("the API key is empty; paste the whole key")
        credentials.put(self.provider_id, key)
        return self.announce()

    def forget_key(self) -> AuthStatus:
        """Drop the stored API key and report the status."""
        credentials.forget(self.provider_id)
        return self.announce()

    def logout(self) -> AuthStatus:
        """Forget the stored key and log the provider's own login out."""
        credentials.forget(self.provider_id)
        self._logout()
        return self.announce()

    @property
    def has_stored_key(self) -> bool:
        """Whether a key saved through a flow is kept for this provider."""
        return credentials.get(self.provider_id) is not None

    def announce(self) -> AuthStatus:
        """Read the status afresh and tell every listener; returns it."""
        status = self.status()
        publish(AuthChange(self.provider_id, status))
        return status

    # -- what providers implement --------------------------------------------------------

    def _start(self, kind: AuthKind) -> LoginStart:
        raise AuthNotSupportedError(f"{self.provider_id} cannot start a {kind} login here")

    def _submit_code(self, code: str) -> None:
        raise NoLoginInProgressError("no login is waiting for a code; start one first")

    def _logout(self) -> None:
        return

    # -- helpers -------------------------------------------------------------------------

    def _kinds(self) -> str:
        return ", ".join(m.kind for m in self.descriptor.all_methods())

    def _oauth_method(self, kind: AuthKind | None) -> AuthKind:
        offered = [
            m.kind
            for m in self.descriptor.all_methods()
            if m.kind in ("oauth-code", "oauth-redirect")
        ]
        if kind is None and offered:
            return offered[0]
        if kind is not None and kind in offered:
            return kind
        raise AuthNotSupportedError(
            f"{self.provider_id} offers no {kind or 'browser'} login; it logs in with: "
            f"{self._kinds()}"
        )


class DescribedAuthFlow(AuthFlow):
    """The default flow: status from the provider, API keys through :data:`credentials`.

    Providers that cannot drive a login from lab_widget keep it: their card shows the
    status and, when their descriptor lists ``api-key``, a key field.
    """

    def __init__(
        self,
        provider_id: str,
        descriptor: AuthDescriptor,
        status: Callable[[], AuthStatus],
    ) -> None:
        super().__init__(provider_id, descriptor)
        self._status = status

    def status(self) -> AuthStatus:
        if self.has_stored_key and self.descriptor.method("api-key") is not None:
            return AuthStatus(
                logged_in=True, method="api key", kind="api-key", source="stored for this session"
            )
        return self._status()


def require_login(flow: AuthFlow, display_name: str) -> None:
    """Raise :class:`~lab_widget.errors.AuthRequiredError` when ``flow`` says logged out.

    A status that cannot be read does not block: the agent's own screen then says what is
    wrong, which beats refusing a run that might work.
    """
    try:
        status = flow.status()
    except (LabWidgetError, OSError, subprocess.SubprocessError):
        return
    if not status.logged_in:
        raise AuthRequiredError(flow.provider_id, display_name)
