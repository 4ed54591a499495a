"""What an OpenCode reader has mapped of one session: the message list, each message's
info, role and usage, the parts shown and where, the state, and the message primitives the
mappings (``_message_infos.py``, ``_message_parts.py``) add and replace messages through.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Any

from ...schema import LifecycleLevel, Message, RateLimit, State, Usage
from ..kit import as_dict
from ._parts import stamp

__all__ = ["SessionState"]


@dataclass
class SessionState:
    """What an OpenCode reader has mapped of one session, and the message primitives every
    mapping goes through. The reader makes a new one to start over.
    """

    messages: list[Message] = field(default_factory=list)
    changed: dict[int, None] = field(default_factory=dict)
    """Seqs of the messages added or replaced since the last read."""
    roles: dict[str, str] = field(default_factory=dict)
    """Message id -> its role."""
    infos: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Message id -> its latest info."""
    parts: dict[str, int] = field(default_factory=dict)
    """Part id -> seq of its message."""
    asking: dict[int, None] = field(default_factory=dict)
    """Seqs of questions the agent waits on."""
    aborted: set[str] = field(default_factory=set)
    errors: set[str] = field(default_factory=set)
    limits: dict[tuple[str, str | None], RateLimit] = field(default_factory=dict)
    """The latest snapshot of each limit failed requests reported."""
    rejected: set[str] = field(default_factory=set)
    usage: dict[str, Usage] = field(default_factory=dict)
    """Per assistant message, as counted."""
    message_usage: dict[str, Usage] = field(default_factory=dict)
    """A message's own tokens."""
    steps: dict[str, dict[str, Usage]] = field(default_factory=dict)
    """Message -> step-finish part -> usage."""
    costs: dict[str, Decimal] = field(default_factory=dict)
    step_reasons: dict[str, str] = field(default_factory=dict)
    """Message -> its last step-finish reason."""
    first_of: dict[str, int] = field(default_factory=dict)
    """Message id -> seq of its first shown part."""
    durations: dict[str, int] = field(default_factory=dict)
    compactions: dict[str, int] = field(default_factory=dict)
    """Compaction request message -> seq of its note."""
    state: State = "idle"
    model: str | None = None
    facts: dict[str, Any] = field(default_factory=dict)
    """Plain fields of the session's summary."""

    def add_message(self, **fields: Any) -> Message:
        """Append a message (the next seq) and report it as changed."""
        message = Message(seq=len(self.messages), **fields)
        self.messages.append(message)
        self.changed[message.seq] = None
        return message

    def replace_message(self, message: Message) -> None:
        """Put an updated copy of a message in place (same seq), reported if it differs."""
        if self.messages[message.seq] != message:
            self.messages[message.seq] = message
            self.changed[message.seq] = None

    def lifecycle(self, text: str, level: LifecycleLevel, when: datetime | None) -> None:
        """Add a lifecycle note."""
        self.add_message(kind="lifecycle", role="system", text=text, level=level, timestamp=when)

    def session_facts(self, info: dict[str, Any]) -> None:
        """Note the session's own facts from its stored info."""
        for fact, key in (("cwd", "directory"), ("cli_version", "version")):
            value = info.get(key)
            self.facts[fact] = value if isinstance(value, str) else None
        self.facts["started_at"] = stamp(as_dict(info.get("time")).get("created"))
