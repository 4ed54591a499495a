"""``ProviderAuthCard``: a login card driven only by a provider's auth descriptor.

Traits carry what the card shows (descriptor, status, the started login's URL) and never
a credential: an API key or a pasted code travels once, inside the action message that
uses it, straight to the provider's :class:`~lab_widget.provider.AuthFlow`. Actions go through
the package's action channel (request/response messages with ids, run on worker threads: a
login runs the provider's CLI); their errors come back to the card, never swallowed.
Every auth change (from this card, another card, or Python) refreshes the card.
"""

from __future__ import annotations

import logging
import threading
from typing import Any, cast, get_args

import traitlets
from IPython import get_ipython
from IPython.display import display

from ..provider import AuthFlow, _auth_events, default_provider, get_provider
from ..schema import AuthKind, AuthStatus
from ._base import BundledWidget
from ._channel import ActionChannel, ActionRequest, ActionResult
from ._protocol import AuthActionArgs

__all__ = ["ProviderAuthCard", "login", "offer_login"]

log = logging.getLogger(__name__)

_ACTIONS = tuple(AuthActionArgs.__required_keys__)
"""The card's actions, as the wire contract names them."""


def _auth_kind(value: object) -> AuthKind:
    for kind in get_args(AuthKind):
        if value == kind:
            return cast(AuthKind, kind)
    raise ValueError(f"unknown login kind {value!r}; one of: {', '.join(get_args(AuthKind))}")


def _status_payload(status: AuthStatus) -> dict[str, Any]:
    return {**status.model_dump(mode="json", exclude_none=True), "summary": status.summary()}


class ProviderAuthCard(BundledWidget, bundle="auth"):
    """Log a provider in, or give it an API key, from the notebook.

    Get one with :func:`lab_widget.login`. What it offers comes from the provider's auth
    descriptor; the same card works for every provider.
    """

    provider_id = traitlets.Unicode("").tag(sync=True)
    provider_name = traitlets.Unicode("").tag(sync=True)
    descriptor = traitlets.Dict().tag(sync=True)
    """The provider's :class:`~lab_widget.schema.AuthDescriptor`, with every method."""
    status = traitlets.Dict(allow_none=True, default_value=None).tag(sync=True)
    """The last status read (``None`` until read), with a one-line ``summary``."""
    status_error = traitlets.Unicode("").tag(sync=True)
    """Why the status could not be read, if it could not."""
    pending_login = traitlets.Dict(allow_none=True, default_value=None).tag(sync=True)
    """A started browser login: ``{kind, url, instructions}``; ``None`` otherwise."""
    has_stored_key = traitlets.Bool(False).tag(sync=True)
    """Whether an API key is kept for this provider in the kernel (the key is not here)."""

    def __init__(self, provider: str | None = None, **kwargs: Any) -> None:
        provider_id = provider or default_provider()
        agent = get_provider(provider_id)
        self._flow: AuthFlow = agent.auth_flow()
        self._channel = ActionChannel(
            self,
            {action: self._act for action in _ACTIONS},
            workers=2,
            thread_name="lab-widget-auth",
            contract=AuthActionArgs,
        )
        self._refreshing = threading.Lock()
        super().__init__(
            provider_id=provider_id,
            provider_name=agent.meta.display_name,
            descriptor={
                **agent.auth().model_dump(mode="json", exclude_none=True),
                "methods": [
                    m.model_dump(mode="json", exclude_none=True) for m in agent.auth().all_methods()
                ],
            },
            has_stored_key=self._flow.has_stored_key,
            **kwargs,
        )
        self._refresh()
        self._unsubscribe = _auth_events.subscribe(self._on_change)
        self.on_msg(self._channel.receive)

    def __repr__(self) -> str:
        # Stable (no ids or addresses): notebooks compare it.
        return f"ProviderAuthCard({self.provider_name})"

    @property
    def flow(self) -> AuthFlow:
        """The provider's auth flow behind this card."""
        return self._flow

    def close(self) -> None:
        """Stop following auth changes and close the widget."""
        unsubscribe = getattr(self, "_unsubscribe", None)
        if unsubscribe is not None:
            unsubscribe()
            self._channel.close()
        super().close()

    # -- status ------------------------------------------------------------------------

    def _show(self, status: AuthStatus) -> None:
        self.status = _status_payload(status)
        self.status_error = ""
        self.has_stored_key = self._flow.has_stored_key

    def _refresh(self) -> None:
        with self._refreshing:
            try:
                status = self._flow.status()
            except Exception as exc:  # shown in the card: a broken CLI must not hide it
                self.status_error = str(exc) or type(exc).__name__
                self.has_stored_key = self._flow.has_stored_key
            else:
                self._show(status)

    def _on_change(self, change: _auth_events.AuthChange) -> None:
        if change.provider_id != self.provider_id:
            return
        if change.status is not None:
            self._show(change.status)
        else:
            self._channel.later(self._refresh)

    # -- browser → Python ----------------------------------------------------------------

    def _on_custom(self, widget: Any, content: Any, buffers: Any) -> None:
        """Take one custom message from the front end, as its comm delivers it."""
        self._channel.receive(widget, content, buffers)

    def _run_action(self, content: dict[str, Any]) -> ActionResult:
        """Do one action message now, on this thread, and send its result."""
        return self._channel.run(content)

    def _act(self, request: ActionRequest) -> None:
        self.perform(request.action, dict(request.args))

    def perform(self, action: str, args: dict[str, Any]) -> None:
        """Run one card action (what the buttons send); errors propagate, typed.

        ``args`` holds ``login_kind`` for ``start``, ``code`` for ``submit_code`` and ``key`` for
        ``save_key``; the key is handed to the flow and kept nowhere else.
        """
        if action == "refresh":
            self._refresh()
        elif action == "start":
            kind = args.get("login_kind")
            started = self._flow.start(_auth_kind(kind) if kind is not None else None)
            self.pending_login = {
                "kind": started.kind,
                "url": started.url,
                "instructions": started.instructions,
            }
        elif action == "cancel":
            self._flow.cancel()
            self.set_trait("pending_login", None)
        elif action == "submit_code":
            code = args.get("code")
            self._flow.submit_code(code if isinstance(code, str) else "")
            self.set_trait("pending_login", None)
        elif action == "save_key":
            key = args.get("key")
            self._flow.save_key(key if isinstance(key, str) else "")
        elif action == "forget_key":
            self._flow.forget_key()
        elif action == "logout":
            self._flow.logout()
            self.set_trait("pending_login", None)
        else:
            raise ValueError(f"unknown action {action!r}")


def login(provider: str | None = None) -> ProviderAuthCard:
    """A login card for ``provider`` (default: :func:`~lab_widget.provider.default_provider`).

    An unknown id raises :class:`~lab_widget.UnknownProviderError` listing the known ones.
    """
    return ProviderAuthCard(provider)


def offer_login(provider: str) -> None:
    """Show a login card in the current cell's output, when running in a notebook kernel.

    Called where a run cannot start for lack of auth, just before its typed error: the
    user logs in right there, then runs the cell again. Outside a kernel it does nothing.
    """
    shell = get_ipython()
    if shell is None or getattr(shell, "kernel", None) is None:
        return
    try:
        display(ProviderAuthCard(provider))  # type: ignore[no-untyped-call]
    except Exception:  # the typed error that follows says what to do anyway
        log.exception("showing the login card failed")
