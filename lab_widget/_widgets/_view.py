"""``RunView``: the chat widget of a run (anywidget), kept in sync by deltas.

Sync model. Traits carry the small state (provider name, state badge, attach command).
The conversation travels as deltas in custom messages, so the bytes sent for one appended
message do not grow with the conversation. The ``_snapshot`` trait holds the conversation as
of the view's creation; the front end keeps its copy current without sending it back, so a
notebook saved with widget state re-renders the whole chat without a kernel. A front end
that loads later (or misses a delta) asks for a fresh snapshot with ``{"kind": "sync"}``.

Conversations a clear ended stay in the snapshot (``past``), so the chat keeps showing them,
collapsed, and a saved notebook keeps them too; a reset delta names them only by id, and a
front end that does not know one of them asks for a snapshot.

Actions from the browser (send, interrupt, clear, answer) go through the package's
:class:`~lab_widget._widgets._channel.ActionChannel`: request/response messages with ids, run
on worker threads (sending may wait for the agent), their errors sent back to the view. A sent
prompt's ``@name`` mentions are expanded from the kernel's variables; ``variables`` answers
the composer's ``@`` completion with their names and kinds (never their values).

Where a front end cannot show widgets, the view's text form lists the last messages, and its
HTML form (nbviewer, GitHub, nbconvert) is the whole conversation as a sanitised static page
part, from the HTML export's renderer. A display carries a display id, so when the run settles
(its turn ends, or it ends) the display's data is replaced by one with the conversation as it
is then: a notebook saved afterwards holds it. JupyterLab draws a new view of the same model
on such an update; the front end keeps what the user had open and typed across it.

The terminal pane (the agent's real TUI, streamed only while someone watches) has its own
messages, ``kind: "term"``, handled by :class:`~lab_widget._widgets._terminal.TerminalFeed`.
"""

from __future__ import annotations

import json
import logging
import secrets
import threading
from collections.abc import Callable, Sequence
from decimal import Decimal
from typing import Any, Protocol, cast, runtime_checkable

import traitlets

from .._chat._mentions import expand, kernel_namespace, list_variables
from .._chat._session import ChatEvent, Epoch
from .._export._html import html_fragment
from .._export._tree import message_line
from .._runtime._tmux import TmuxTerminal
from ..errors import NotRestartableError
from ..schema import (
    Chat,
    CommandSpec,
    Dialog,
    DialogAnswer,
    Message,
    SessionSummary,
    State,
    Usage,
)
from ._base import BundledWidget
from ._channel import ActionChannel, ActionRequest
from ._protocol import (
    ChatActionArgs,
    CommandJSON,
    DeltaMsg,
    DialogJSON,
    EarlierJSON,
    InsertCellMsg,
    MessageJSON,
    SessionJSON,
    SnapshotJSON,
    SnapshotMsg,
    VariableJSON,
)
from ._terminal import PaneSource, TerminalFeed

__all__ = ["ChatSource", "RunView"]

log = logging.getLogger(__name__)

TEXT_MESSAGES = 8
"""Messages the text form of a view shows (the last ones)."""

SETTLED: frozenset[State] = frozenset({"idle", "ended"})
"""States after which a display's static form is brought up to date."""

UPDATE_DELAY = 1.0
"""Seconds a settled run stays settled before its displays' static form is replaced: a turn
that ends and another that starts at once update nothing."""

STATIC_NOTE = "A copy of the conversation saved with the notebook; run it for the live chat."
"""What the static form says under the conversation."""


class ChatSource(Protocol):
    """What a view needs from a run (``Run`` implements it)."""

    @property
    def messages(self) -> list[Message]: ...

    @property
    def state(self) -> State: ...

    @property
    def transcript_id(self) -> str | None: ...

    @property
    def attach_command(self) -> str: ...

    @property
    def state_reason(self) -> str: ...

    @property
    def display_name(self) -> str: ...

    @property
    def clear_command(self) -> str: ...

    @property
    def pending_dialog(self) -> Dialog | None: ...

    @property
    def commands(self) -> list[CommandSpec]: ...

    @property
    def session(self) -> SessionSummary: ...

    @property
    def past_conversations(self) -> list[Epoch]: ...

    def answer_dialog(self, answer: DialogAnswer) -> None: ...

    def subscribe(self, listener: Callable[[ChatEvent], None]) -> Callable[[], None]: ...

    def send(self, text: str) -> None: ...

    def interrupt(self) -> None: ...

    def clear(self) -> None: ...


@runtime_checkable
class RestartableSource(Protocol):
    """A source whose agent can be started again, with or without the kernel's tools."""

    @property
    def kernel_tools(self) -> bool | None: ...

    def restart(self, *, kernel: bool | None = None) -> None: ...


@runtime_checkable
class HistorySource(Protocol):
    """A source that can read its earlier conversations again (``Run`` can)."""

    def history(self) -> list[Chat]: ...


NO_BRANCH = "HEAD"
"""What git names where there is no branch (outside a repository, or detached): never a
branch's name, so the meter shows none."""


def _earlier(chats: Sequence[Chat], count: int) -> EarlierJSON:
    """The conversations a clear ended, summed (a cost only where one was known)."""
    usage = Usage()
    estimates = [c.session.cost_usd_estimate for c in chats]
    reported = [c.session.vendor_cost_usd for c in chats]
    for chat in chats:
        usage = Usage(
            **{
                name: getattr(usage, name) + getattr(chat.session.usage, name)
                for name in Usage.model_fields
            }
        )

    def total(values: list[Decimal | None]) -> str | None:
        known = [v for v in values if v is not None]
        return str(sum(known, Decimal(0))) if known else None

    return {
        "conversations": count,
        "usage": usage.model_dump(mode="json"),
        "cost_usd_estimate": total(estimates),
        "vendor_cost_usd": total(reported),
    }


def _kernel_tools(source: ChatSource) -> bool | None:
    return source.kernel_tools if isinstance(source, RestartableSource) else None


def _dump(messages: Sequence[Message]) -> list[MessageJSON]:
    dumped = [m.model_dump(mode="json", exclude_none=True) for m in messages]
    try:
        # What the kernel does with widget messages; a lone surrogate (valid in a
        # transcript's JSON as an escape) would make the whole message unsendable.
        json.dumps(dumped, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(dumped, ensure_ascii=False).encode("utf-8", "surrogatepass")
        repaired: list[MessageJSON] = json.loads(text.decode("utf-8", "replace"))
        return repaired
    return dumped


class RunView(BundledWidget, bundle="widget"):
    """The live chat view of a run.

    Display a :class:`~lab_widget.Run` (or ``run.view``) in a notebook to get one; every
    display of a run shows the same view model, so they stay in sync.
    """

    provider_name = traitlets.Unicode("").tag(sync=True)
    """The provider's display name, from its metadata (never hard-coded in the view)."""

    state = traitlets.Unicode("idle").tag(sync=True)
    """The run's state: ``idle | working | needs_input | question | ended``."""

    state_reason = traitlets.Unicode("").tag(sync=True)
    """Why the run needs input or has ended; empty otherwise."""

    attach_command = traitlets.Unicode("").tag(sync=True)
    """A copyable command that opens the agent's real TUI in a terminal."""

    clear_command = traitlets.Unicode("").tag(sync=True)
    """The provider's command that starts a new conversation (``role="clear"``)."""

    commands: traitlets.List[CommandJSON] = traitlets.List().tag(sync=True)
    """The run's chat-safe slash commands, for the composer's autocomplete."""

    pending_dialog = traitlets.Dict(allow_none=True, default_value=None).tag(sync=True)
    """The dialog the agent waits on (shown as a form), or ``None``."""

    session = traitlets.Dict(allow_none=True, default_value=None).tag(sync=True)
    """Model, token totals, estimated and reported cost, context used vs window, branch
    (:class:`~lab_widget.schema.SessionSummary` without paths); the header's meter."""

    _snapshot = traitlets.Dict().tag(sync=True)
    """``{transcript_id, version, messages, past}`` at creation (``past``: the conversations a
    clear ended, ``[{transcript_id, messages}]``); the front end keeps it current."""

    _view_key = traitlets.Unicode("").tag(sync=True)
    """Names this model in the front end, where each view gets its own handle on it: what
    the user typed, scrolled and opened carries over to the next view by this key."""

    kernel_tools = traitlets.Bool(None, allow_none=True).tag(sync=True)
    """Whether the run's agent has the kernel's tools; the header's switch starts it again
    with or without them. ``None``: the run cannot be restarted here (no switch)."""

    # -- the terminal pane (see _terminal.py) --------------------------------------------

    has_terminal = traitlets.Bool(False).tag(sync=True)
    """Whether the run has a tmux pane the terminal view can show."""

    terminal_reveal = traitlets.Unicode("").tag(sync=True)
    """A new value opens the terminal pane in every view (the runs dashboard's button)."""

    _terminal_screen = traitlets.Dict().tag(sync=True)
    """The terminal's last screen, kept by the front end (never sent by the kernel), so a
    saved notebook shows it without a kernel."""

    def __init__(self, source: ChatSource, **kwargs: Any) -> None:
        self._source = source
        # Events arrive under the source's lock; a sync request taking a lock of its own and
        # then reading the source would take the two in the opposite order. Share it.
        shared = getattr(source, "lock", None)
        self._lock = shared if shared is not None else threading.RLock()
        self._version = 0
        # Several workers: an interrupt must not queue behind a send that waits for the agent.
        self._channel = ActionChannel(
            self,
            {
                "send": self._act_send,
                "interrupt": lambda _request: source.interrupt(),
                "clear": lambda _request: source.clear(),
                "answer": self._act_answer,
                "variables": self._act_variables,
                "restart": self._act_restart,
            },
            workers=4,
            thread_name="lab-widget-action",
            on_message=self._on_message,
            contract=ChatActionArgs,
        )
        # The display id of this view's outputs and the HTML they show, once displayed.
        self._display_id: str | None = None
        self._shown_html: str | None = None
        self._update_timer: threading.Timer | None = None
        # The earlier conversations' totals, read once per set of them (at a clear).
        self._earlier: tuple[tuple[str, ...], EarlierJSON] | None = None
        pane = source.pane if isinstance(source, PaneSource) else None
        self._terminal = TerminalFeed(self, pane)
        with self._lock:
            super().__init__(
                has_terminal=pane is not None,
                kernel_tools=_kernel_tools(source),
                provider_name=source.display_name,
                state=source.state,
                state_reason=source.state_reason,
                attach_command=source.attach_command,
                clear_command=source.clear_command,
                pending_dialog=self._dialog_payload(),
                commands=self._commands_payload(),
                session=self._session_payload(),
                _snapshot=self._snapshot_payload(),
                _view_key=secrets.token_hex(8),
                **kwargs,
            )
            self._unsubscribe = source.subscribe(self._on_event)
        self.on_msg(self._channel.receive)

    def __repr__(self) -> str:
        # Stable across runs and kernels (no ids, paths or addresses): notebooks compare it.
        return f"RunView({self._source.display_name})"

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        bundle = super()._repr_mimebundle_(**kwargs)
        # anywidget gives (data, metadata); the text and HTML are what front ends without
        # widgets show.
        data = bundle[0] if isinstance(bundle, tuple) else bundle
        if isinstance(data, dict):
            data["text/plain"] = self.as_text()
            page = self.as_html()
            if page is not None:
                data["text/html"] = page
            self._shown_html = page
        return bundle

    def _ipython_display_(self) -> None:
        # A display id lets a settled run replace what its outputs hold (the static form).
        from IPython.display import display  # noqa: PLC0415 (only inside a kernel)

        data, metadata = self._bundle()
        self._display_id = self._display_id or f"lab-widget-{self.model_id}"
        display(data, metadata=metadata, raw=True, display_id=self._display_id)  # type: ignore[no-untyped-call]

    def _bundle(self) -> tuple[dict[str, Any], dict[str, Any]]:
        bundle = self._repr_mimebundle_()
        if isinstance(bundle, tuple):
            return bundle[0], bundle[1]
        return bundle, {}

    def as_html(self) -> str | None:
        """The conversations as a static, sanitised HTML part, or ``None`` before any message.

        Front ends that cannot run the widget (nbviewer, GitHub, nbconvert) show it; earlier
        conversations (before a clear) come first.
        """
        with self._lock:
            conversations = [e.messages for e in self._source.past_conversations]
            conversations.append(self._source.messages)
            title = self._source.display_name
        conversations = [c for c in conversations if c]
        if not conversations:
            return None
        return html_fragment(conversations, title, STATIC_NOTE)

    def _schedule_update(self) -> None:
        if self._display_id is None:
            return
        if self._update_timer is not None:
            self._update_timer.cancel()
        self._update_timer = threading.Timer(UPDATE_DELAY, self._update_display)
        self._update_timer.daemon = True
        self._update_timer.start()

    def _update_display(self) -> None:
        if self._display_id is None or self.comm is None or self.state not in SETTLED:
            return
        try:
            if self.as_html() == self._shown_html:
                return
            from IPython.display import update_display  # noqa: PLC0415 (only inside a kernel)

            data, metadata = self._bundle()
            update_display(data, metadata=metadata, raw=True, display_id=self._display_id)  # type: ignore[no-untyped-call]
        except Exception:  # the static form is a copy: never let it break the run's reader
            log.exception("updating the chat's displays failed")

    def as_text(self) -> str:
        """The chat as text, for front ends without widgets: the last messages, one a line.

        Before any message it is just ``RunView(<provider>)``, as stable as the repr.
        """
        with self._lock:
            messages = [m for m in self._source.messages if m.parent_tool_id is None]
            past = self._source.past_conversations
        lines = [repr(self)]
        if past:
            count = sum(len(e.messages) for e in past)
            lines.append(
                f"  ({len(past)} earlier conversation{'s' if len(past) > 1 else ''}, "
                f"{count} message{'' if count == 1 else 's'})"
            )
        shown = messages[-TEXT_MESSAGES:]
        if len(messages) > len(shown):
            lines.append(f"  … {len(messages) - len(shown)} earlier messages")
        lines += [f"  {message_line(m)}" for m in shown]
        return "\n".join(lines)

    def close(self) -> None:
        """Stop following the run and close the widget."""
        unsubscribe = getattr(self, "_unsubscribe", None)
        if unsubscribe is not None:
            unsubscribe()
            if self._update_timer is not None:
                self._update_timer.cancel()
            self._channel.close()
            self._terminal.close()
        super().close()

    def reveal_terminal(self) -> None:
        """Open the terminal pane (the agent's real TUI) in every view of this run."""
        self.terminal_reveal = secrets.token_hex(4)

    def restarted(self, pane: TmuxTerminal) -> None:
        """The run's agent was started again (``Run.restart``): follow its new session.

        Called under the run's lock before the reset that tells the front end: a viewer
        that opens the terminal on hearing of it gets the new session.
        """
        self._terminal.follow(pane)
        self.attach_command = self._source.attach_command
        self.kernel_tools = _kernel_tools(self._source)

    def insert_cell(self, code: str) -> None:
        """Ask the notebook showing this chat to insert ``code`` as a new code cell below
        it, as the chat's own *Insert cell* does (once, however many views show it).
        """
        message: InsertCellMsg = {"kind": "insert_cell", "id": secrets.token_hex(8), "code": code}
        self.send(message)

    # -- Python → browser ----------------------------------------------------------------

    def _snapshot_payload(self) -> SnapshotJSON:
        return {
            "transcript_id": self._source.transcript_id,
            "version": self._version,
            "messages": _dump(self._source.messages),
            "past": [
                {"transcript_id": e.transcript_id, "messages": _dump(e.messages)}
                for e in self._source.past_conversations
            ],
        }

    def _commands_payload(self) -> list[CommandJSON]:
        try:
            specs = self._source.commands
        except Exception:  # a broken command folder must not break the chat
            log.exception("reading the command catalog failed")
            return []
        return [c.model_dump(mode="json") for c in specs if c.chat_safe]

    def _session_payload(self) -> SessionJSON | None:
        try:
            summary = self._source.session
        except Exception:  # facts are decoration: never let them break the chat
            log.exception("reading the session summary failed")
            return None
        # The contract's keys are the include set: one list of what the meter gets.
        keys = SessionJSON.__required_keys__ | SessionJSON.__optional_keys__
        payload = cast(SessionJSON, summary.model_dump(mode="json", include=set(keys)))
        if payload["branch"] == NO_BRANCH:
            payload["branch"] = None
        earlier = self._earlier_payload()
        if earlier is not None:
            payload["earlier"] = earlier
        return payload

    def _earlier_payload(self) -> EarlierJSON | None:
        # The meter keeps counting across clears: the user still pays for the earlier ones.
        past = tuple(e.transcript_id for e in self._source.past_conversations)
        if not past:
            return None
        if self._earlier is None or self._earlier[0] != past:
            try:
                source = self._source
                chats = source.history() if isinstance(source, HistorySource) else []
            except Exception:  # unreadable now: counted, without their tokens
                log.exception("reading the earlier conversations failed")
                chats = []
            self._earlier = (past, _earlier(chats, len(past)))
        return self._earlier[1]

    def _dialog_payload(self) -> DialogJSON | None:
        dialog = self._source.pending_dialog
        return dialog.model_dump(mode="json", exclude_none=True) if dialog else None

    def _on_event(self, event: ChatEvent) -> None:
        with self._lock:
            self.state = event.state
            self.state_reason = self._source.state_reason
            self.set_trait("pending_dialog", self._dialog_payload())
            if event.state == "idle":
                # Cheap when nothing changed (a signature of the command folders).
                self.commands = self._commands_payload()
            # The CLI's live facts (its own cost, quotas) move without a message; an
            # unchanged payload sends nothing.
            self.set_trait("session", self._session_payload())
            if event.state in SETTLED:
                self._schedule_update()
            if not event.changed and not event.reset:
                return
            base, self._version = self._version, self._version + 1
            delta: DeltaMsg = {
                "kind": "delta",
                "version": self._version,
                "base": base,
                "transcript_id": event.transcript_id,
                "reset": event.reset,
                "changed": _dump(event.changed),
            }
            if event.reset:
                # By id only: the front end moves the conversation it shows into its past
                # and asks for a snapshot when it lacks one (it started late, or missed it).
                delta["past"] = [e.transcript_id for e in self._source.past_conversations]
            self._push(delta)

    def _push(self, content: DeltaMsg | SnapshotMsg) -> None:
        if self.comm is None:
            return  # closed, or never shown
        try:
            self.send(content)
        except Exception:  # a broken front-end channel must not stop the run's reader
            log.exception("sending to the chat view failed")

    # -- browser → Python ----------------------------------------------------------------

    def _on_message(self, content: dict[str, Any]) -> None:
        if content.get("kind") == "term":
            self._terminal.receive(content)
        elif content.get("kind") == "sync":
            with self._lock:
                snapshot: SnapshotMsg = {"kind": "snapshot", **self._snapshot_payload()}
                self._push(snapshot)

    def _act_send(self, request: ActionRequest) -> None:
        text = request.text("text")
        if text is None or not text.strip():
            raise ValueError("nothing to send")
        namespace = kernel_namespace()
        self._source.send(expand(text, namespace) if namespace is not None else text)

    def _act_variables(self, _request: ActionRequest) -> list[VariableJSON]:
        namespace = kernel_namespace()
        if namespace is None:
            return []
        return [
            VariableJSON(name=v.name, type=v.type, size=v.size, secret=v.secret)
            for v in list_variables(namespace)
        ]

    def _act_restart(self, request: ActionRequest) -> None:
        source = self._source
        if not isinstance(source, RestartableSource):
            raise NotRestartableError("this chat's run cannot be restarted here")
        source.restart(kernel=request.args.get("kernel") is True)

    def _act_answer(self, request: ActionRequest) -> None:
        answers = request.args.get("answers")
        self._source.answer_dialog(
            DialogAnswer(tool_id=request.text("tool_id"), answers=answers or [])
        )
