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

from . import _messages as _messages
from . import _provider as _provider
from . import _session as _session
from ._messages import (
    Answer,
    Attachment,
    CommandSpec,
    Dialog,
    DialogAnswer,
    DialogKind,
    DialogStatus,
    LifecycleLevel,
    Message,
    MessageKind,
    Option,
    Question,
    Role,
    ToolCall,
    ToolStatus,
    Usage,
)
from ._provider import (
    AuthDescriptor,
    AuthMethod,
    AuthStatus,
    ProviderCapabilities,
    ScrubPattern,
    SeedMeta,
)
from ._session import (
    Chat,
    ModelUsage,
    RateLimit,
    SessionSummary,
    Turn,
    TurnFacts,
    set_exporter,
    subagent_threads,
)

# The schema's type aliases and limits, documented here where they are exported.

State = _messages.State
"""The conversational state: the agent waits (``idle``), works, is blocked on something
the widget cannot answer (``needs_input``), asks a dialog (``question``), or is gone."""

IMAGE_MEDIA_TYPES = _messages.IMAGE_MEDIA_TYPES
"""Media types an attachment may carry: raster images only (an SVG can hold script)."""

MAX_ATTACHMENT_BYTES = _messages.MAX_ATTACHMENT_BYTES
"""Attachments larger than this keep their type and size but not their data."""

AuthKind = _provider.AuthKind
"""How a login works: a URL whose code the user pastes back (``oauth-code``), a URL that
redirects to a local port (``oauth-redirect``), a secret key (``api-key``), or something
lab_widget can only report on (``external``)."""

AgentScope = _session.AgentScope
"""Who made a model request: the agent the user talks to, or a sub-agent it started."""

CostUnit = _session.CostUnit
"""The unit of every cost lab_widget reports (the field names say it too: ``..._usd``)."""

RateLimitKind = _session.RateLimitKind
"""What a limit meters: a plan's usage allowance the vendor reports only as a share
(``usage``), requests, tokens, prepaid credits, or money spent (``spend``)."""

TurnOutcome = _session.TurnOutcome
"""How a turn ended."""


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
