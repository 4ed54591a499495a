"""Request/response actions between a widget's front end and the kernel.

Every widget of the package (the chat view, the runs table, the login card) takes its
buttons' actions through one :class:`ActionChannel`; ``js/src/kernel/channel.ts`` is the other end.

Protocol, as custom messages of the widget's comm (typed in
:mod:`~lab_widget._widgets._protocol`):

- front end → kernel: ``{"kind": "action", "id", "action", ...arguments}``, and
  ``{"kind": "cancel", "id"}`` once the front end has stopped waiting for that action (its
  timeout passed);
- kernel → front end: exactly one ``{"kind": "result", "id", "ok", "error"?, "value"?}`` per
  action; ``value`` is what a handler that answers a question returned (JSON), e.g. the
  variables the composer completes after ``@``.

Actions run on worker threads, never on the comm thread: sending may wait a minute for an
agent to start, answering a dialog sleeps through a paced recipe, a login runs a CLI. The
handler's exceptions become ``ok: false`` with their message, which the front end shows; none
is swallowed. A cancelled action that has not started yet is skipped (its result says so,
and the front end, which gave up on it, ignores it); one that already runs finishes, and its
late result is ignored the same way.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Protocol

from ._protocol import ResultMsg

__all__ = ["CANCELLED", "ActionChannel", "ActionHandler", "ActionRequest", "ActionResult"]

log = logging.getLogger(__name__)

CANCELLED = "cancelled before it started: the view stopped waiting for it"
"""The error of a result for an action the front end cancelled while it was queued."""


class _Widget(Protocol):
    """What the channel needs of a widget: its comm, and a way to send custom messages."""

    @property
    def comm(self) -> object | None: ...

    def send(self, content: Mapping[str, object], buffers: Any = None) -> None: ...


@dataclass(frozen=True)
class ActionRequest:
    """One action the front end asked for.

    Examples
    --------
    >>> request = ActionRequest.from_message({"kind": "action", "id": "a1", "action": "send",
    ...                                       "text": "hi"})
    >>> request.action, request.text("text"), request.text("other")
    ('send', 'hi', None)
    >>> ActionRequest.from_message({"kind": "sync"}) is None
    True
    """

    id: str
    action: str
    args: Mapping[str, Any] = field(default_factory=dict)
    """Everything else the message carried (``text``, ``run_id``, ``key``...)."""

    @classmethod
    def from_message(cls, content: object) -> ActionRequest | None:
        """The request in a custom message, or ``None`` when it is not an action."""
        if not isinstance(content, dict) or content.get("kind") != "action":
            return None
        args = {k: v for k, v in content.items() if k not in ("kind", "id", "action")}
        return cls(id=str(content.get("id", "")), action=str(content.get("action")), args=args)

    def text(self, key: str) -> str | None:
        """The string argument ``key``, or ``None`` when it is absent or not a string."""
        value = self.args.get(key)
        return value if isinstance(value, str) else None


@dataclass(frozen=True)
class ActionResult:
    """How one action ended, as sent back to the front end.

    Examples
    --------
    >>> ActionResult("a1", ok=True).to_message()
    {'kind': 'result', 'id': 'a1', 'ok': True}
    >>> ActionResult.failed("a2", ValueError("nothing to send")).to_message()
    {'kind': 'result', 'id': 'a2', 'ok': False, 'error': 'nothing to send'}
    >>> ActionResult("a3", ok=True, value=[1, 2]).to_message()
    {'kind': 'result', 'id': 'a3', 'ok': True, 'value': [1, 2]}
    """

    id: str
    ok: bool
    error: str | None = None
    value: object = None
    """What the handler returned, sent when it is not ``None`` (JSON-ready)."""

    @classmethod
    def failed(cls, request_id: str, error: BaseException | str) -> ActionResult:
        """A failed result; an exception without a message is named by its class."""
        text = error if isinstance(error, str) else (str(error) or type(error).__name__)
        return cls(request_id, ok=False, error=text)

    def to_message(self) -> ResultMsg:
        """The ``result`` custom message."""
        message: ResultMsg = {"kind": "result", "id": self.id, "ok": self.ok}
        if not self.ok:
            message["error"] = self.error or "the action failed"
        elif self.value is not None:
            message["value"] = self.value
        return message


ActionHandler = Callable[[ActionRequest], object]
"""Does one action; raising fails it (the exception's message goes to the front end). What it
returns, unless ``None``, goes back as the result's ``value``: it must be JSON-ready."""


class ActionChannel:
    """The kernel side of one widget's actions.

    Parameters
    ----------
    widget
        The widget whose comm carries the messages (results go out through its ``send``).
    handlers
        One handler per action name; any other name is answered with an error.
    workers
        Threads the actions run on: several, so a quick action (an interrupt) never queues
        behind one that waits (a send to an agent still starting).
    thread_name
        The prefix of the worker threads' names.
    on_message
        Called, on the comm thread, with every custom message that is neither an action nor
        a cancel (the chat view's ``sync`` request).
    contract
        The ``TypedDict`` of :mod:`~lab_widget._widgets._protocol` that names the widget's
        actions (``ChatActionArgs``...); ``handlers`` must handle exactly those, so an action
        the front end may send and nobody handles fails here, when the widget is made.
    """

    def __init__(
        self,
        widget: _Widget,
        handlers: Mapping[str, ActionHandler],
        *,
        workers: int = 2,
        thread_name: str = "lab-widget-action",
        on_message: Callable[[dict[str, Any]], None] | None = None,
        contract: type | None = None,
    ) -> None:
        if contract is not None:
            declared = set(getattr(contract, "__required_keys__", ())) | set(
                getattr(contract, "__optional_keys__", ())
            )
            if declared != set(handlers):
                raise ValueError(
                    f"handlers {sorted(handlers)} differ from the actions {contract.__name__} "
                    f"declares: {sorted(declared)}"
                )
        self._widget = widget
        self._handlers = dict(handlers)
        self._on_message = on_message
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix=thread_name)
        self._lock = threading.Lock()
        self._settled = threading.Condition(self._lock)
        self._queued: set[str] = set()
        self._cancelled: set[str] = set()
        self._in_flight = 0
        self._closed = False

    @property
    def actions(self) -> list[str]:
        """The action names this channel handles."""
        return sorted(self._handlers)

    def receive(self, _widget: object, content: object, _buffers: object = None) -> None:
        """Take one custom message from the front end (a widget's ``on_msg`` callback).

        Returns at once: an action is queued for a worker thread.
        """
        if not isinstance(content, dict):
            return
        kind = content.get("kind")
        if kind == "action":
            request = ActionRequest.from_message(content)
            if request is not None:
                self.submit(request)
        elif kind == "cancel":
            self.cancel(str(content.get("id", "")))
        elif self._on_message is not None:
            self._on_message(content)

    def submit(self, request: ActionRequest) -> None:
        """Queue ``request`` for a worker thread; its result is sent when it ends."""
        with self._lock:
            if self._closed:
                return  # the widget is gone: nobody is left to answer
            self._in_flight += 1
            self._queued.add(request.id)
        try:
            self._pool.submit(self._work, request)
        except RuntimeError:  # shut down between the check and the submit
            self._done(request.id)

    def later(self, work: Callable[[], None]) -> None:
        """Run ``work`` on a worker thread, outside any action (no result is sent for it).

        For what the kernel starts itself, e.g. re-reading a status after a change elsewhere;
        its failure is logged, as nobody in the front end asked for it.
        """

        def guarded() -> None:
            try:
                work()
            except Exception:
                log.exception("background work of a widget failed")

        with self._lock:
            if self._closed:
                return
        try:
            self._pool.submit(guarded)
        except RuntimeError:  # shut down meanwhile
            pass

    def cancel(self, request_id: str) -> None:
        """The front end stopped waiting for ``request_id``: skip it if it has not started."""
        with self._lock:
            if request_id in self._queued:
                self._cancelled.add(request_id)

    def run(self, request: ActionRequest | dict[str, Any]) -> ActionResult:
        """Do one action now, on the calling thread, and send its result."""
        if not isinstance(request, ActionRequest):
            parsed = ActionRequest.from_message(request)
            if parsed is None:
                raise ValueError(f"not an action message: {request!r}")
            request = parsed
        result = self._perform(request)
        self._reply(result)
        return result

    def idle(self, timeout: float) -> bool:
        """Wait until no action is queued or running (and its result sent); False on timeout."""
        with self._lock:
            return self._settled.wait_for(lambda: self._in_flight == 0, timeout)

    def close(self) -> None:
        """Take no more actions; the ones running finish, the queued ones are dropped."""
        with self._lock:
            self._closed = True
        self._pool.shutdown(wait=False, cancel_futures=True)

    # -- on a worker thread ----------------------------------------------------------------

    def _work(self, request: ActionRequest) -> None:
        try:
            with self._lock:
                self._queued.discard(request.id)
                skipped = request.id in self._cancelled
                self._cancelled.discard(request.id)
            result = ActionResult.failed(request.id, CANCELLED) if skipped else None
            self._reply(result or self._perform(request))
        finally:
            self._done(request.id)

    def _done(self, request_id: str) -> None:
        with self._lock:
            self._queued.discard(request_id)
            self._in_flight -= 1
            self._settled.notify_all()

    def _perform(self, request: ActionRequest) -> ActionResult:
        handler = self._handlers.get(request.action)
        try:
            if handler is None:
                raise ValueError(f"unknown action {request.action!r}")
            value = handler(request)
        except Exception as exc:  # every failure goes back to the front end, typed or not
            log.debug("action %s failed", request.action, exc_info=True)
            return ActionResult.failed(request.id, exc)
        return ActionResult(request.id, ok=True, value=value)

    def _reply(self, result: ActionResult) -> None:
        if self._widget.comm is None:
            return  # closed, or never shown: no front end waits
        try:
            self._widget.send(result.to_message())
        except Exception:  # a broken front-end channel must not kill the worker
            log.exception("sending an action's result failed")
