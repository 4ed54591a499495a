"""The wire contract between the widgets and their front ends: every custom message and the
structured traits, as typed dicts (``TypedDict``).

``js/src/protocol.ts`` declares the same shapes for the browser, and ``js/src/schema.ts``
mirrors :mod:`lab_widget.schema`; ``tests/unit/test_wire_contract.py`` fails when a field, a
key's optionality or a ``Literal`` value differs between the two sides. So a field added
here (or to a schema model) and forgotten in TypeScript is a failing test, not a message the
front end silently shows as text.

Conventions the test relies on:

- a key that may be left out is ``NotRequired``; it is ``?`` in TypeScript;
- a value that may be ``null`` says ``| None``; it says ``| null`` in TypeScript;
- a schema model's JSON is ``Annotated[dict[str, Any], Model]`` (:data:`MessageJSON`...):
  the front end knows it by the model's name, and normalises it (it may lack defaults).

Which way each message goes: ``kernel →`` messages are built by the widgets' Python side;
``→ kernel`` messages arrive from a browser and are parsed defensively (they are typed here
for what a well-behaved front end sends, never trusted to be so).
"""

# No ``from __future__ import annotations`` here: with string annotations a TypedDict
# cannot see ``NotRequired`` at runtime, and ``__optional_keys__`` would be empty.
from typing import Annotated, Any, Literal, NotRequired, TypedDict

from ..schema import Answer, CommandSpec, Dialog, Message, RateLimit, Usage

__all__ = [
    "ActionMsg",
    "AnswerArgs",
    "AnswerJSON",
    "AuthActionArgs",
    "CancelMsg",
    "ChatActionArgs",
    "CodeArgs",
    "CommandJSON",
    "DeltaMsg",
    "DialogJSON",
    "InsertCellMsg",
    "KeyArgs",
    "MessageJSON",
    "NoArgs",
    "OpenRunArgs",
    "PastConversationJSON",
    "RateLimitJSON",
    "RestartArgs",
    "ResultMsg",
    "RunArgs",
    "RunsActionArgs",
    "SendArgs",
    "SessionJSON",
    "SnapshotJSON",
    "SnapshotMsg",
    "StartLoginArgs",
    "SyncMsg",
    "TermCloseMsg",
    "TermEndedMsg",
    "TermErrorMsg",
    "TermInputMsg",
    "TermOutputMsg",
    "TermPasteMsg",
    "TermScreenMsg",
    "TermSizeMsg",
    "TermViewMsg",
    "VariableJSON",
]

# -- schema models as JSON ------------------------------------------------------------------

MessageJSON = Annotated[dict[str, Any], Message]
"""``Message.model_dump(mode="json", exclude_none=True)``."""

DialogJSON = Annotated[dict[str, Any], Dialog]
"""``Dialog.model_dump(mode="json", exclude_none=True)``: the ``pending_dialog`` trait."""

AnswerJSON = Annotated[dict[str, Any], Answer]
"""An :class:`~lab_widget.schema.Answer` as the front end sends it."""

CommandJSON = Annotated[dict[str, Any], CommandSpec]
"""``CommandSpec.model_dump(mode="json")``: one item of the ``commands`` trait."""

UsageJSON = Annotated[dict[str, Any], Usage]
RateLimitJSON = Annotated[dict[str, Any], RateLimit]


# -- the chat view's conversation (kernel →) -------------------------------------------------


class PastConversationJSON(TypedDict):
    """A conversation a clear ended, kept collapsed above the current one."""

    transcript_id: str | None
    messages: list[MessageJSON]


class SnapshotJSON(TypedDict):
    """The conversation as one value: the ``_snapshot`` trait."""

    transcript_id: str | None
    version: int
    messages: list[MessageJSON]
    past: NotRequired[list[PastConversationJSON]]
    """Earlier conversations, oldest first (absent from notebooks saved by older versions)."""


class SnapshotMsg(SnapshotJSON):
    """The answer to a ``sync`` request: the whole conversation."""

    kind: Literal["snapshot"]


class DeltaMsg(TypedDict):
    """What changed since version ``base``: new and updated messages, or a new conversation."""

    kind: Literal["delta"]
    version: int
    base: int
    transcript_id: str | None
    reset: bool
    changed: list[MessageJSON]
    past: NotRequired[list[str]]
    """On a reset only: the ids of every earlier conversation the kernel knows, oldest first."""


class SyncMsg(TypedDict):
    """→ kernel: a front end that started late, or missed a delta, asks for a snapshot."""

    kind: Literal["sync"]


class InsertCellMsg(TypedDict):
    """kernel → : insert ``code`` as a new code cell below the chat (the agent's
    ``insert_cell``); ``id`` lets the views of one model act on it once.
    """

    kind: Literal["insert_cell"]
    id: str
    code: str


class EarlierJSON(TypedDict):
    """What the conversations a clear ended used, summed: the meter's session totals."""

    conversations: int
    usage: UsageJSON
    cost_usd_estimate: str | None
    vendor_cost_usd: str | None


class SessionJSON(TypedDict):
    """The ``session`` trait: the header meter's part of a
    :class:`~lab_widget.schema.SessionSummary` (no paths), as JSON (decimals as strings);
    ``earlier`` sums the conversations before the last clear (absent: there were none).
    """

    model: str | None
    model_requested: str | None
    usage: UsageJSON
    cost_usd_estimate: str | None
    vendor_cost_usd: str | None
    currency: Literal["USD"]
    price_table: str | None
    rate_limits: list[RateLimitJSON]
    context_tokens: int | None
    context_window: int | None
    branch: str | None
    earlier: NotRequired[EarlierJSON]


class VariableJSON(TypedDict):
    """A kernel variable the composer offers after ``@``: its name and kind, never its value."""

    name: str
    type: str
    size: str
    secret: bool


# -- actions: request/response, the same for every widget (see _channel.py) -----------------


class ActionMsg(TypedDict):
    """→ kernel: an action, its id unique across tabs; its arguments ride beside these keys
    (their shapes per action are the ``*ActionArgs`` below).
    """

    kind: Literal["action"]
    id: str
    action: str


class CancelMsg(TypedDict):
    """→ kernel: the front end stopped waiting for action ``id``; skip it if still queued."""

    kind: Literal["cancel"]
    id: str


class ResultMsg(TypedDict):
    """kernel →: the one answer to an action; ``error`` when it failed, ``value`` when it
    returned one.
    """

    kind: Literal["result"]
    id: str
    ok: bool
    error: NotRequired[str]
    value: NotRequired[object]


class NoArgs(TypedDict):
    """An action that carries nothing but its name."""


class SendArgs(TypedDict):
    text: str


class AnswerArgs(TypedDict):
    tool_id: NotRequired[str | None]
    """The pending dialog's ``tool_id``: the kernel answers only the dialog it waits on."""
    answers: list[AnswerJSON]
    """One per question of the dialog, in order."""


class RestartArgs(TypedDict):
    """Start the run's agent again, with or without the kernel's tools (``Run.restart``)."""

    kernel: bool


class ChatActionArgs(TypedDict):
    """The chat view's actions (``RunView``), each with what it carries."""

    send: SendArgs
    interrupt: NoArgs
    clear: NoArgs
    answer: AnswerArgs
    variables: NoArgs
    """Answers with a list of :class:`VariableJSON`."""
    restart: RestartArgs


class OpenRunArgs(TypedDict):
    run_id: str
    pane: NotRequired[Literal["terminal"]]
    """``"terminal"`` opens the run with its terminal pane showing."""


class RunArgs(TypedDict):
    run_id: str


class RunsActionArgs(TypedDict):
    """The runs dashboard's actions (``RunsDashboard``)."""

    open: OpenRunArgs
    stop: RunArgs
    close: RunArgs


class StartLoginArgs(TypedDict):
    login_kind: NotRequired[str]


class CodeArgs(TypedDict):
    code: str


class KeyArgs(TypedDict):
    key: str


class AuthActionArgs(TypedDict):
    """The login card's actions (``ProviderAuthCard``); a key or code travels only here."""

    refresh: NoArgs
    start: StartLoginArgs
    cancel: NoArgs
    submit_code: CodeArgs
    save_key: KeyArgs
    forget_key: NoArgs
    logout: NoArgs


# -- the terminal pane (see _terminal.py) ----------------------------------------------------


class TermViewMsg(TypedDict):
    """→ kernel: a viewer opens the pane, pings while open, or resizes it."""

    kind: Literal["term"]
    op: Literal["open", "ping", "resize"]
    viewer: str
    cols: int
    rows: int


class TermCloseMsg(TypedDict):
    kind: Literal["term"]
    op: Literal["close"]
    viewer: str


class TermInputMsg(TypedDict):
    """→ kernel: what the terminal sends for keys pressed (only while taken over)."""

    kind: Literal["term"]
    op: Literal["input"]
    viewer: str
    data: str


class TermPasteMsg(TypedDict):
    kind: Literal["term"]
    op: Literal["paste"]
    viewer: str
    text: str


class TermScreenMsg(TypedDict):
    """kernel →: one viewer's screen; the bytes that draw it are the message's buffer."""

    kind: Literal["term"]
    op: Literal["screen"]
    viewer: str
    cols: int
    rows: int
    live: bool


class TermOutputMsg(TypedDict):
    """kernel →: the pane's output; the bytes are the message's buffer."""

    kind: Literal["term"]
    op: Literal["output"]


class TermSizeMsg(TypedDict):
    """kernel →: the pane's real size (a terminal attached by hand may set it)."""

    kind: Literal["term"]
    op: Literal["size"]
    cols: int
    rows: int


class TermEndedMsg(TypedDict):
    kind: Literal["term"]
    op: Literal["ended"]
    reason: str


class TermErrorMsg(TypedDict):
    kind: Literal["term"]
    op: Literal["error"]
    viewer: str
    message: str
