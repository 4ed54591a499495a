"""The schema's conversation: messages (text, tool calls, dialogs, lifecycle notes), their
usage and attachments, and the slash commands a run offers. Exported by :mod:`lab_widget.schema`,
whose ``__all__`` lists them.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

State = Literal["idle", "working", "needs_input", "question", "ended"]

MessageKind = Literal["text", "tool", "dialog", "lifecycle"]
Role = Literal["user", "assistant", "system"]
ToolStatus = Literal["running", "ok", "error"]
DialogKind = Literal["question", "plan", "approval"]
DialogStatus = Literal["pending", "answered", "rejected", "dismissed"]
LifecycleLevel = Literal["info", "warning", "error"]


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Usage(_Model):
    """Token counts of one model response, or totals over many.

    ``input_tokens`` leaves out the cached input: cache reads and cache writes are counted
    apart, so :attr:`total` counts every token once. ``reasoning_tokens`` is the part of
    ``output_tokens`` the model spent reasoning, where the vendor reports it; it is already
    inside ``output_tokens`` and not counted again. Likewise ``cache_write_1h_tokens`` is the
    part of ``cache_write_tokens`` written to the one-hour cache, which is billed at a higher
    rate than the five-minute cache (:attr:`cache_write_5m_tokens`, the rest).

    Examples
    --------
    >>> (Usage(input_tokens=3) + Usage(output_tokens=2)).total
    5
    >>> Usage(output_tokens=10, reasoning_tokens=4).total
    10
    >>> u = Usage(cache_write_tokens=10, cache_write_1h_tokens=6)
    >>> u.total, u.cache_write_5m_tokens
    (10, 4)
    """

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    reasoning_tokens: int = 0
    cache_write_1h_tokens: int = 0

    @property
    def cache_write_5m_tokens(self) -> int:
        """The cache writes that are not one-hour writes: five-minute ones."""
        return self.cache_write_tokens - self.cache_write_1h_tokens

    @property
    def total(self) -> int:
        """All tokens counted."""
        return (
            self.input_tokens
            + self.output_tokens
            + self.cache_read_tokens
            + self.cache_write_tokens
        )

    def __add__(self, other: Usage) -> Usage:
        return self._combine(other, 1)

    def __sub__(self, other: Usage) -> Usage:
        return self._combine(other, -1)

    def _combine(self, other: Usage, sign: int) -> Usage:
        return Usage(
            input_tokens=self.input_tokens + sign * other.input_tokens,
            output_tokens=self.output_tokens + sign * other.output_tokens,
            cache_read_tokens=self.cache_read_tokens + sign * other.cache_read_tokens,
            cache_write_tokens=self.cache_write_tokens + sign * other.cache_write_tokens,
            reasoning_tokens=self.reasoning_tokens + sign * other.reasoning_tokens,
            cache_write_1h_tokens=self.cache_write_1h_tokens + sign * other.cache_write_1h_tokens,
        )


IMAGE_MEDIA_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})

MAX_ATTACHMENT_BYTES = 2 * 1024 * 1024


class Attachment(_Model):
    """An image the conversation carries inline: pasted by the user or returned by a tool.

    Built from the transcript's own data only, never fetched. Use :meth:`from_base64`,
    which checks the type and caps the size.

    Examples
    --------
    >>> a = Attachment.from_base64("image/png", "iVBORw0KGgo=")
    >>> a.media_type, a.size, a.omitted
    ('image/png', 8, '')
    >>> Attachment.from_base64("image/svg+xml", "PHN2Zz4=") is None
    True
    >>> big = Attachment.from_base64("image/png", "A" * 4_000_000)
    >>> big.data, big.omitted
    ('', 'too large to show (2.9 MB; at most 2.0 MB)')
    """

    media_type: str
    data: str = ""
    """Base64 of the file; empty when it was left out (see ``omitted``)."""
    size: int = 0
    """Decoded size in bytes."""
    name: str = ""
    omitted: str = ""
    """Why ``data`` is empty, when it is."""

    @model_validator(mode="after")
    def _check(self) -> Attachment:
        if self.media_type not in IMAGE_MEDIA_TYPES:
            raise ValueError(f"attachments carry images only, not {self.media_type!r}")
        return self

    @classmethod
    def from_base64(cls, media_type: object, data: object, name: str = "") -> Attachment | None:
        """An attachment of base64 ``data``; ``None`` when it is not an allowed image."""
        kind = str(media_type).strip().lower() if isinstance(media_type, str) else ""
        if kind == "image/jpg":
            kind = "image/jpeg"
        if kind not in IMAGE_MEDIA_TYPES or not isinstance(data, str):
            return None
        payload = "".join(data.split())
        if not re.fullmatch(r"[A-Za-z0-9+/]*={0,2}", payload):
            return None
        size = len(payload) * 3 // 4 - payload[-2:].count("=")
        if size > MAX_ATTACHMENT_BYTES:
            mb = 1024 * 1024
            cap = MAX_ATTACHMENT_BYTES / mb
            why = f"too large to show ({size / mb:.1f} MB; at most {cap:.1f} MB)"
            return cls(media_type=kind, size=size, name=name, omitted=why)
        return cls(media_type=kind, data=payload, size=size, name=name)


class ToolCall(_Model):
    """A tool call paired with its result once the result lands."""

    id: str
    name: str
    input: dict[str, object] = Field(default_factory=dict)
    status: ToolStatus = "running"
    output: str | None = None
    progress: str | None = None
    """Output streamed while the call runs (a long command's latest lines); ``output``
    takes over once the call finishes."""
    agent_id: str | None = None
    """When the call runs a sub-agent: its id. The sub-agent's own messages carry this
    call's ``id`` as their ``parent_tool_id``."""
    shell: str | None = None
    """When the call runs a shell command: its command line, whatever the agent calls its
    shell tool (``name`` keeps the agent's own name). Every agent's shell call looks alike."""


class Option(_Model):
    """One choice of a dialog question."""

    label: str
    description: str = ""


class Question(_Model):
    """One question of a dialog (a dialog may ask several at once)."""

    header: str = ""
    text: str
    options: list[Option] = Field(default_factory=list)
    multi_select: bool = False
    free_text: bool = True
    """Whether an answer may be typed instead of (or besides) choosing options."""


class Answer(_Model):
    """The answer to one question: chosen option labels and/or free text."""

    selected: list[str] = Field(default_factory=list)
    text: str | None = None


class Dialog(_Model):
    """Something the agent waits on: questions, a plan to approve, a tool to allow."""

    kind: DialogKind
    questions: list[Question] = Field(default_factory=list)
    answerable: bool = True
    """Whether lab_widget can answer it (else the user answers in the TUI)."""
    tool_id: str | None = None
    """The native id of the tool call that opened the dialog; answers must match it."""
    body: str = ""
    """Markdown shown above the questions (a plan's text, a tool's input)."""
    tool_name: str = ""
    """The native tool behind the dialog (``AskUserQuestion``, ``Bash``...)."""
    status: DialogStatus = "pending"
    """``pending`` until answered; then how it ended."""
    answers: list[Answer] | None = None
    """After it ended: the answers the agent recorded, one per question, where known."""
    outcome: str = ""
    """After it ended: what was answered, in words ("Database → SQLite; Features → Auth")."""


class DialogAnswer(_Model):
    """Answers to a whole dialog, one per question, for the dialog's ``tool_id``."""

    tool_id: str | None = None
    answers: list[Answer]


class Message(_Model):
    """One entry of the conversation.

    ``seq`` is stable: re-reading the same transcript gives every message the same seq,
    and an update to a message (a tool result) keeps it.
    """

    seq: int
    kind: MessageKind
    role: Role
    native_id: str | None = None
    timestamp: datetime | None = None
    text: str = ""
    command: str | None = None
    """For a slash-command echo: the command as typed (``"/clear"``)."""
    tool: ToolCall | None = None
    dialog: Dialog | None = None
    level: LifecycleLevel | None = None
    """For lifecycle messages: how loud to show them."""
    model: str | None = None
    usage: Usage | None = None
    """The final token counts of the API response this message came from, on the first
    message of that response only (so summing messages counts each response once)."""
    thinking: bool = False
    """The model's reasoning before it answered (thinking), not an answer; shown collapsed."""
    redacted: bool = False
    """For thinking the CLI kept only encrypted or redacted: ``text`` is empty and the view
    says the reasoning is hidden."""
    parent_tool_id: str | None = None
    """For a sub-agent's message: the id of the tool call that started the sub-agent."""
    attachments: list[Attachment] = Field(default_factory=list)
    """Images the message carries (pasted by the user, returned by a tool)."""
    detail: str = ""
    """Text shown collapsed under the message (a compaction's summary)."""


class CommandSpec(_Model):
    """A slash command a run offers."""

    name: str
    description: str = ""
    arg_hint: str = ""
    source: Literal["builtin", "project", "user"] = "builtin"
    role: Literal["clear"] | None = None
    """``"clear"`` marks the provider's command that starts a new conversation."""
    chat_safe: bool = True
    """False for commands that would strand the TUI where the widget cannot see it."""
