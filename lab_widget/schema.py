"""The universal schema: one definition of a conversation for every provider and the widget.

Every provider adapter maps its CLI's native transcript into these models; the widget's
TypeScript types mirror them. Models are immutable: an update (a tool result arriving)
replaces a message with a copy that keeps its ``seq``.

Examples
--------
>>> m = Message(seq=0, kind="text", role="user", text="hello")
>>> m.model_dump(exclude_defaults=True)
{'seq': 0, 'kind': 'text', 'role': 'user', 'text': 'hello'}
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from datetime import datetime
from decimal import Decimal
from pathlib import Path, PurePosixPath
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from .errors import ScrubPatternError, SeedMetaError

__all__ = [
    "IMAGE_MEDIA_TYPES",
    "MAX_ATTACHMENT_BYTES",
    "AgentScope",
    "Answer",
    "Attachment",
    "AuthDescriptor",
    "AuthKind",
    "AuthMethod",
    "AuthStatus",
    "Chat",
    "CommandSpec",
    "CostUnit",
    "Dialog",
    "DialogAnswer",
    "DialogKind",
    "DialogStatus",
    "LifecycleLevel",
    "Message",
    "MessageKind",
    "ModelUsage",
    "Option",
    "ProviderCapabilities",
    "Question",
    "RateLimit",
    "RateLimitKind",
    "Role",
    "ScrubPattern",
    "SeedMeta",
    "SessionSummary",
    "State",
    "ToolCall",
    "ToolStatus",
    "Turn",
    "TurnFacts",
    "TurnOutcome",
    "Usage",
    "set_exporter",
    "subagent_threads",
]

State = Literal["idle", "working", "needs_input", "question", "ended"]
"""The conversational state: the agent waits (``idle``), works, is blocked on something
the widget cannot answer (``needs_input``), asks a dialog (``question``), or is gone."""

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
    inside ``output_tokens`` and not counted again.

    Examples
    --------
    >>> (Usage(input_tokens=3) + Usage(output_tokens=2)).total
    5
    >>> Usage(output_tokens=10, reasoning_tokens=4).total
    10
    """

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    reasoning_tokens: int = 0

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
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cache_read_tokens=self.cache_read_tokens + other.cache_read_tokens,
            cache_write_tokens=self.cache_write_tokens + other.cache_write_tokens,
            reasoning_tokens=self.reasoning_tokens + other.reasoning_tokens,
        )

    def __sub__(self, other: Usage) -> Usage:
        return Usage(
            input_tokens=self.input_tokens - other.input_tokens,
            output_tokens=self.output_tokens - other.output_tokens,
            cache_read_tokens=self.cache_read_tokens - other.cache_read_tokens,
            cache_write_tokens=self.cache_write_tokens - other.cache_write_tokens,
            reasoning_tokens=self.reasoning_tokens - other.reasoning_tokens,
        )


IMAGE_MEDIA_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})
"""Media types an attachment may carry: raster images only (an SVG can hold script)."""

MAX_ATTACHMENT_BYTES = 2 * 1024 * 1024
"""Attachments larger than this keep their type and size but not their data."""


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


AuthKind = Literal["oauth-code", "oauth-redirect", "api-key", "external"]
"""How a login works: a URL whose code the user pastes back (``oauth-code``), a URL that
redirects to a local port (``oauth-redirect``), a secret key (``api-key``), or something
lab_widget can only report on (``external``)."""


class AuthMethod(_Model):
    """One way to log in to a provider; a login card shows one section per method.

    Examples
    --------
    >>> AuthMethod(kind="api-key", label="API key", env_var="KEY").env_var
    'KEY'
    """

    kind: AuthKind
    label: str = ""
    """What the method is called in the card (from the provider, never hard-coded)."""
    instructions: str = ""
    """Operator instructions shown beside it (port forwarding, where to get a key)."""
    env_var: str | None = None
    """For ``api-key``: the environment variable the key is injected as at spawn."""
    redirect_port: int | None = None
    """For ``oauth-redirect``: the local port the login page redirects to."""


class AuthDescriptor(_Model):
    """How a provider logs in, described rather than hard-coded.

    ``kind`` is the primary way; ``methods`` lists every way the provider's auth flow
    accepts (the primary one first). A descriptor without methods offers only ``kind``.

    Examples
    --------
    >>> d = AuthDescriptor(kind="external")
    >>> [m.kind for m in d.all_methods()]
    ['external']
    """

    kind: AuthKind
    env_vars: list[str] = Field(default_factory=list)
    """Environment variables that carry a credential for this provider."""
    instructions: str = ""
    methods: list[AuthMethod] = Field(default_factory=list)

    def all_methods(self) -> list[AuthMethod]:
        """``methods``, or the primary ``kind`` alone when none are listed."""
        return list(self.methods) or [AuthMethod(kind=self.kind, instructions=self.instructions)]

    def method(self, kind: AuthKind) -> AuthMethod | None:
        """The method of this kind, if the provider offers it."""
        return next((m for m in self.all_methods() if m.kind == kind), None)


class AuthStatus(_Model):
    """Whether a provider is logged in, and how. Never holds a credential.

    Examples
    --------
    >>> AuthStatus(logged_in=True, method="api_key", kind="api-key").summary()
    'logged in (api_key)'
    """

    logged_in: bool
    method: str | None = None
    """The provider's own name for the active method, as its CLI reports it."""
    detail: str = ""
    kind: AuthKind | None = None
    """Which descriptor method is active, when known."""
    source: str | None = None
    """Where the credential comes from (an environment variable's name, a store)."""

    def summary(self) -> str:
        """One short line for tables and status lines."""
        if not self.logged_in:
            return "not logged in"
        return f"logged in ({self.method})" if self.method else "logged in"


class ProviderCapabilities(_Model):
    """What a provider can do, declared by its adapter (conservative by default)."""

    live_signals: bool = False
    """A verified live channel (dialogs, blocked states) beside the transcript."""
    dialog_kinds: list[DialogKind] = Field(default_factory=list)
    """Dialog kinds lab_widget can answer for this provider."""
    session_resume: bool = False
    model_selection: bool = False
    """Whether a run can request a model by name."""
    models: list[str] = Field(default_factory=list)
    """Model names the provider offers (aliases included), if it declares them."""


class ScrubPattern(_Model):
    r"""An attribution line an agent writes into commits or files, with samples it must match.

    Where lab_widget exports agent-written text (``Run.diff``, ``Run.commit``), every line
    in which ``pattern`` matches (``re.search``, one line at a time) is removed. The
    pattern is compiled and tried on each of its ``samples`` when it is built: a pattern
    that does not compile or misses a sample raises
    :class:`~lab_widget.errors.ScrubPatternError` at once (at import time for a
    provider's constants), never while scrubbing.

    Examples
    --------
    >>> ScrubPattern(pattern=r"^Signed-off-by: Bot\b", samples=["Signed-off-by: Bot <b@x>"])
    ScrubPattern(pattern='^Signed-off-by: Bot\\b', samples=['Signed-off-by: Bot <b@x>'])
    >>> ScrubPattern(pattern="^Bot", samples=["Human"])
    Traceback (most recent call last):
    ...
    lab_widget.errors.ScrubPatternError: scrub pattern '^Bot' does not match its sample 'Human'
    """

    pattern: str
    samples: list[str] = Field(min_length=1)
    """Lines the pattern must match, taken from what the CLI really writes."""

    @model_validator(mode="after")
    def _check(self) -> ScrubPattern:
        try:
            compiled = re.compile(self.pattern)
        except re.error as exc:
            raise ScrubPatternError(
                f"scrub pattern {self.pattern!r} does not compile: {exc}"
            ) from exc
        for sample in self.samples:
            if "\n" in sample or compiled.search(sample) is None:
                raise ScrubPatternError(
                    f"scrub pattern {self.pattern!r} does not match its sample {sample!r}"
                )
        return self

    @property
    def regex(self) -> re.Pattern[str]:
        """The compiled pattern (``re`` caches compilations)."""
        return re.compile(self.pattern)


def _relative(value: str, what: str) -> str:
    path = PurePosixPath(value)
    if not value or path.is_absolute() or ".." in path.parts or "\\" in value:
        raise SeedMetaError(f"{what} {value!r} must be a relative path inside the workspace")
    return value


class SeedMeta(_Model):
    """What a provider declares so one generic seeder can prepare a workspace.

    Paths are relative to the run's folder, ``/``-separated. Built with a path that
    leaves the workspace, it raises :class:`~lab_widget.errors.SeedMetaError`.

    Examples
    --------
    >>> meta = SeedMeta(context_file="AGENT.md", skills_dir=".agent/skills",
    ...                 exclude=["/AGENT.md", "/.agent/skills/"])
    >>> meta.skill_path("lint")
    '.agent/skills/lint/SKILL.md'
    """

    context_file: str
    """The file the CLI reads as project instructions, where a seed's context goes."""
    skills_dir: str | None = None
    """The folder of project skills (``None``: the CLI has none)."""
    skill_file: str = "SKILL.md"
    """Each skill is ``<skills_dir>/<name>/<skill_file>``."""
    exclude: list[str] = Field(default_factory=list)
    """``.git/info/exclude`` lines (gitignore syntax, relative to the run's folder) that keep
    seeded files, and files the CLI itself writes into the workspace, out of
    ``git status``. The seeder adds exactly these: they must cover what it writes."""
    scrub_patterns: list[ScrubPattern] = Field(default_factory=list)
    """Attribution lines removed wherever lab_widget exports agent-written text."""

    @model_validator(mode="after")
    def _check(self) -> SeedMeta:
        _relative(self.context_file, "context_file")
        if self.skills_dir is not None:
            _relative(self.skills_dir, "skills_dir")
        if "/" in self.skill_file or self.skill_file in ("", ".", ".."):
            raise SeedMetaError(f"skill_file {self.skill_file!r} must be a plain file name")
        for line in self.exclude:
            if not line.strip() or line.startswith(("#", "!")) or "\n" in line:
                raise SeedMetaError(f"exclude entry {line!r} must be one plain gitignore line")
        return self

    def skill_path(self, name: str) -> str:
        """Where the skill ``name`` goes, relative to the run's folder."""
        if self.skills_dir is None:
            raise SeedMetaError("this provider declares no skills folder")
        return f"{self.skills_dir}/{name}/{self.skill_file}"


AgentScope = Literal["main", "subagent"]
"""Who made a model request: the agent the user talks to, or a sub-agent it started."""

CostUnit = Literal["USD"]
"""The unit of every cost lab_widget reports (the field names say it too: ``..._usd``)."""


class ModelUsage(_Model):
    """Token totals of one model, for the main agent or its sub-agents.

    Costs are exact decimals (:class:`decimal.Decimal`, a string in JSON), in USD.

    Examples
    --------
    >>> ModelUsage(model="m", usage=Usage(output_tokens=3), requests=1).scope
    'main'
    """

    model: str
    scope: AgentScope = "main"
    usage: Usage = Field(default_factory=Usage)
    requests: int = 0
    """API responses counted."""
    cost_usd_estimate: Decimal | None = None
    """``usage`` priced with the pinned table; ``None`` for a model it does not know."""
    vendor_cost_usd: Decimal | None = None
    """The cost the CLI itself recorded for this model, where it records one."""


RateLimitKind = Literal["usage", "requests", "tokens", "credits", "spend"]
"""What a limit meters: a plan's usage allowance the vendor reports only as a share
(``usage``), requests, tokens, prepaid credits, or money spent (``spend``)."""


class RateLimit(_Model):
    """One snapshot of a rate limit or quota, as the vendor reported it.

    The vendor gives either a share used (``used_percent``) or absolute figures (``used``,
    ``limit``, ``remaining`` in ``unit``), sometimes both; each is kept as given and never
    derived from the other. Absolute figures are exact decimals.

    Examples
    --------
    >>> r = RateLimit(limit_id="codex", window="primary", window_minutes=300, used_percent=42.5)
    >>> r.key, r.kind
    (('codex', 'primary'), 'usage')
    >>> RateLimit(limit_id="credits", kind="credits", remaining=Decimal("12.34")).model_dump(
    ...     mode="json", exclude_defaults=True)
    {'limit_id': 'credits', 'kind': 'credits', 'remaining': '12.34'}
    """

    limit_id: str
    """The vendor's id of the limit, in the vendor's words."""
    name: str | None = None
    """The vendor's label for it, where it gives one."""
    window: str | None = None
    """Which window of the limit (``"primary"``, ``"secondary"``, ``"five_hour"``...)."""
    window_minutes: int | None = None
    """How long the window is, where the vendor says."""
    kind: RateLimitKind = "usage"
    used_percent: float | None = None
    """Share of the window used, 0-100 (above 100 once exceeded), as reported."""
    used: Decimal | None = None
    limit: Decimal | None = None
    remaining: Decimal | None = None
    unit: str | None = None
    """The unit of ``used`` / ``limit`` / ``remaining`` (``"USD"``, ``"credits"``...)."""
    unlimited: bool | None = None
    resets_at: datetime | None = None
    status: str | None = None
    """The vendor's word for the limit's state (``"allowed"``, ``"rejected"``...)."""
    plan_type: str | None = None
    observed_at: datetime | None = None
    """When the vendor reported it (the record's time)."""
    source: str = ""
    """Where it was read (a transcript record, the CLI's status line, an error)."""

    @property
    def key(self) -> tuple[str, str | None]:
        """What identifies the limit across snapshots: its id and window."""
        return (self.limit_id, self.window)


TurnOutcome = Literal["ok", "error", "interrupted", "running"]
"""How a turn ended."""


class TurnFacts(_Model):
    """What a transcript records about one turn beyond its messages.

    A reader keys each by ``seq``: the seq of the user message that started the turn.
    """

    seq: int
    prompt_id: str | None = None
    """The CLI's own id of the prompt, where it has one."""
    model_requested: str | None = None
    service_tier: str | None = None
    reasoning_effort: str | None = None
    duration_ms: int | None = None
    """How long the turn took, as the CLI recorded it."""
    vendor_cost_usd: Decimal | None = None
    """The turn's cost as the CLI reported it, where it does."""
    ended_at: datetime | None = None


class Turn(_Model):
    """One turn: a user prompt and everything the agent did until it answered.

    Derived from the conversation (a user prompt starts a turn) and the facts the reader
    records (:attr:`lab_widget.Run.turns`, :attr:`Chat.turns`). Costs are exact decimals,
    in USD.
    """

    index: int
    """0 for the conversation's first turn."""
    seq: int
    """The seq of the user message that started it."""
    last_seq: int
    """The seq of its last message."""
    prompt: str
    model_requested: str | None = None
    model: str | None = None
    """The model that answered (its last response's)."""
    models: list[str] = Field(default_factory=list)
    """Every model that answered in the turn, sub-agents' included, in order of use."""
    started_at: datetime | None = None
    ended_at: datetime | None = None
    duration_ms: int | None = None
    """As the CLI recorded it; else from the first and last message's times."""
    usage: Usage = Field(default_factory=Usage)
    """Every API response of the turn once, with its final figures, sub-agents included."""
    requests: int = 0
    cost_usd_estimate: Decimal | None = None
    vendor_cost_usd: Decimal | None = None
    currency: CostUnit = "USD"
    tool_calls: dict[str, int] = Field(default_factory=dict)
    """Tool calls by tool name."""
    tool_errors: int = 0
    errors: list[str] = Field(default_factory=list)
    """The error notes of the turn (API errors, failures the transcript records)."""
    service_tier: str | None = None
    reasoning_effort: str | None = None
    finished: bool = True
    """False for a turn still under way (the conversation's last)."""
    outcome: TurnOutcome = "ok"
    """How it ended: answered (``ok``), with an error note, interrupted, or still running."""


class SessionSummary(_Model):
    """What a transcript tells about its session as a whole.

    Costs are exact decimals (:class:`decimal.Decimal`, a string in JSON), in USD; a
    cost the CLI recorded (``vendor_cost_usd``) is shown beside the estimate, never
    replaced by it, and neither is a bill.
    """

    transcript_id: str | None = None
    model: str | None = None
    """The model that answered (the latest assistant message's)."""
    model_requested: str | None = None
    """The model the run asked for, where the transcript or the run records it."""
    usage: Usage = Field(default_factory=Usage)
    """Token totals as the vendor billed them: each API response counted once, with its
    final figures, sub-agents included."""
    models: list[ModelUsage] = Field(default_factory=list)
    """``usage`` broken down by model and scope (main agent, sub-agents), each priced
    on its own."""
    cost_usd_estimate: Decimal | None = None
    """``usage`` priced with lab_widget's pinned price table, model by model (an estimate,
    never a bill); ``None`` when the table knows none of the models."""
    vendor_cost_usd: Decimal | None = None
    """The cost the CLI itself recorded for the session, where it records one: exact, as
    the CLI wrote it, and still not an invoice."""
    currency: CostUnit = "USD"
    """The unit of both costs."""
    price_table: str | None = None
    """The version of the price table the estimate comes from."""
    rate_limits: list[RateLimit] = Field(default_factory=list)
    """The latest snapshot of each rate limit or quota the vendor reported."""
    turn_facts: list[TurnFacts] = Field(default_factory=list)
    """What the transcript records per turn (requested model, tier, effort, duration)."""
    context_tokens: int | None = None
    """Context used: the latest model response's input and cache tokens."""
    context_window: int | None = None
    """The model's context window, from the pinned table; ``None`` when unknown."""
    turn_durations_ms: list[int] = Field(default_factory=list)
    """How long each finished turn took, where the CLI records it."""
    cwd: str | None = None
    branch: str | None = None
    cli_version: str | None = None
    started_at: datetime | None = None
    updated_at: datetime | None = None


def subagent_threads(messages: list[Message]) -> dict[str, list[Message]]:
    """Each sub-agent's messages, keyed by the id of the call that started it.

    Examples
    --------
    >>> ms = [Message(seq=0, kind="text", role="user", text="go"),
    ...       Message(seq=1, kind="text", role="user", text="count", parent_tool_id="t1")]
    >>> {k: [m.text for m in v] for k, v in subagent_threads(ms).items()}
    {'t1': ['count']}
    """
    threads: dict[str, list[Message]] = {}
    for message in messages:
        if message.parent_tool_id is not None:
            threads.setdefault(message.parent_tool_id, []).append(message)
    return threads


Exporter = Callable[["Chat", "str | os.PathLike[str]", "str | None", "str | None"], Path]
"""Writes one conversation to a file: ``(chat, path, title, format)``."""

_exporter: Exporter | None = None


def set_exporter(exporter: Exporter) -> None:
    """Install what :meth:`Chat.export` calls.

    The schema is the base every layer builds on, so it cannot import the exporter, which
    builds on it: the exporter installs itself here when the package is imported.
    """
    global _exporter  # noqa: PLW0603 (one process-wide hook, set once at import)
    _exporter = exporter


class Chat(_Model):
    """A whole conversation as read from a transcript.

    ``messages`` holds the sub-agents' messages too, each with the ``parent_tool_id`` of the
    call that started it; :attr:`main` leaves them out and :attr:`subagents` groups them.
    """

    messages: list[Message]
    state: State
    session: SessionSummary
    turns: list[Turn] = Field(default_factory=list)
    """One row per turn (a user prompt and what followed), with its tokens, costs and
    tools; filled by whoever builds the chat (:func:`lab_widget.read_transcript`,
    :meth:`lab_widget.Run.chat`)."""

    @property
    def main(self) -> list[Message]:
        """The conversation with the agent itself, without its sub-agents' messages."""
        return [m for m in self.messages if m.parent_tool_id is None]

    @property
    def subagents(self) -> dict[str, list[Message]]:
        """Each sub-agent's messages, keyed by the id of the call that started it."""
        return subagent_threads(self.messages)

    def export(
        self,
        path: str | os.PathLike[str],
        *,
        title: str | None = None,
        format: str | None = None,
    ) -> Path:
        """Write the conversation to ``path`` as a notebook, Markdown or a self-contained page.

        The format follows the suffix: ``.ipynb`` (Markdown and code cells), ``.md``, or
        ``.html`` (sanitised, no script, images inline); ``format="ipynb" | "markdown" |
        "html"`` overrides it. Tool calls with their results, dialogs with their answers,
        the reasoning (collapsed), sub-agents' work and the tokens and estimated cost are
        all in it. Returns the path written.
        """
        if _exporter is None:  # pragma: no cover (the package installs it on import)
            raise RuntimeError("lab_widget's exporter is not loaded: import lab_widget")
        return _exporter(self, path, title, format)
