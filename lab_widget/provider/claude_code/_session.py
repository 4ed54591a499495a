"""What a Claude Code reader has read of one transcript file: the message list, the usage
ledger, the turn facts, the sub-agent links, and the message primitives every mapping
(``_user_entries.py``, ``_assistant_entries.py``, the bookkeeping entries in
``_transcript.py``) and the sub-agents (``_subagents.py``) add and replace messages through.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...schema import AgentScope, LifecycleLevel, Message, RateLimit, State
from .. import TranscriptRef
from ..kit import ModelWatch, TurnFactsLog, UsageLedger
from . import _compat
from ._entries import timestamp

__all__ = ["COMPACTED", "SessionState"]

COMPACTED = "Conversation compacted"


@dataclass
class SessionState:
    """What a Claude Code reader has read, and the message primitives every mapping goes
    through. The reader makes a new one to start over.
    """

    ref: TranscriptRef
    scope: AgentScope = "main"
    ledger: UsageLedger = field(default_factory=UsageLedger)
    """The usage of the session and its sub-agents (shared with the sub-agents' readers)."""
    messages: list[Message] = field(default_factory=list)
    changed: dict[int, None] = field(default_factory=dict)
    """Seqs of the messages added or replaced since the last read."""
    tool_seq: dict[str, int] = field(default_factory=dict)
    """Tool call id -> seq of its message."""
    carrier: dict[str, int] = field(default_factory=dict)
    """Response id -> seq of the message that shows its usage."""
    state: State = "idle"
    open_response: bool = False
    """Whether the last response seen asked for tools (its turn goes on), for the state of a
    transcript nobody writes any more."""
    seen_turn: bool = False
    facts: dict[str, Any] = field(default_factory=dict)
    """Plain fields, turned into a SessionSummary only when asked: a model per entry would
    cost more than the parse itself."""
    turn_durations: list[int] = field(default_factory=list)
    limits: dict[tuple[str, str | None], RateLimit] = field(default_factory=dict)
    """Limits the API said were reached (its refusals), latest per limit."""
    turns: TurnFactsLog = field(default_factory=TurnFactsLog)
    """Per turn (keyed by its prompt's seq): what the transcript records beside messages."""
    models: ModelWatch = field(default_factory=ModelWatch)
    pending: dict[int, None] = field(default_factory=dict)
    """Seqs of dialogs still pending, so asking costs nothing however long the chat is."""
    compaction: int | None = None
    """Seq of the compaction note still waiting for its summary."""
    before_prompt: tuple[int, State, bool] | None = None
    """The state before the latest prompt, while it may still turn out to be a command."""
    background: dict[str, None] = field(default_factory=dict)
    """Calls whose sub-agent runs in the background and has not reported back."""
    agent_links: dict[str, str] = field(default_factory=dict)
    """Sub-agent id -> the tool call that started it, as this file tells."""
    agent_calls: dict[str, str] = field(default_factory=dict)
    """Sub-agent calls (tool id -> prompt) whose sub-agent is not known yet."""
    handbacks: set[str] = field(default_factory=set)
    """A sub-agent's report calls, shown as its reply: their results are not shown."""
    finished: set[str] = field(default_factory=set)
    """Sub-agent calls whose finish is noted already (when the report came back)."""

    def add_message(self, **fields: Any) -> Message:
        """Append a message (the next seq) and report it as changed."""
        message = Message(seq=len(self.messages), **fields)
        self.messages.append(message)
        self.changed[message.seq] = None
        self._note_pending(message)
        return message

    def replace_message(self, message: Message) -> None:
        """Put an updated copy of a message in place (same seq) and report it."""
        self.messages[message.seq] = message
        self.changed[message.seq] = None
        self._note_pending(message)

    def append_message(self, message: Message, parent_tool_id: str) -> Message:
        """Append a sub-agent's message, nested under the call ``parent_tool_id``."""
        copy = message.model_copy(
            update={"seq": len(self.messages), "parent_tool_id": parent_tool_id}
        )
        self.messages.append(copy)
        self.changed[copy.seq] = None
        self._note_pending(copy)
        if copy.tool is not None:
            self.tool_seq.setdefault(copy.tool.id, copy.seq)
            if copy.tool.name in _compat.SUBAGENT_TOOLS and copy.tool.agent_id is None:
                self.agent_calls[copy.tool.id] = str(copy.tool.input.get("prompt") or "")
        return copy

    def link_agent(self, tool_id: str, agent_id: str) -> None:
        """Note on the call ``tool_id`` that it runs the sub-agent ``agent_id``."""
        self.agent_calls.pop(tool_id, None)
        old = self.tool_message(tool_id)
        if old is not None and old.tool is not None and old.tool.agent_id != agent_id:
            tool = old.tool.model_copy(update={"agent_id": agent_id})
            self.replace_message(old.model_copy(update={"tool": tool}))

    def unlinked_agent_calls(self, linked: set[str]) -> dict[str, str]:
        """Running sub-agent calls not linked to a sub-agent yet: tool id -> prompt."""
        return {t: p for t, p in self.agent_calls.items() if t not in linked}

    def tool_message(self, tool_id: str) -> Message | None:
        """The message of the tool call ``tool_id``, if this reader has it."""
        seq = self.tool_seq.get(tool_id)
        return self.messages[seq] if seq is not None else None

    def lifecycle(
        self, text: str, level: LifecycleLevel, entry: dict[str, Any] | None, detail: str = ""
    ) -> Message:
        """Add a lifecycle note, stamped by ``entry`` when there is one."""
        return self.add_message(
            kind="lifecycle",
            role="system",
            text=text,
            level=level,
            detail=detail,
            native_id=entry.get("uuid") if entry else None,
            timestamp=timestamp(entry) if entry else None,
        )

    def note_turn(self, **facts: Any) -> None:
        """Record facts of the turn under way (the latest prompt's), main thread only."""
        if self.scope == "main":
            self.turns.note(**facts)

    def compacted(self, entry: dict[str, Any], summary: str = "", note: str = "") -> None:
        """A compaction: its boundary, or the summary that follows it."""
        if self.compaction is not None and summary:
            # The summary follows its boundary: it belongs to that message.
            old = self.messages[self.compaction]
            self.replace_message(old.model_copy(update={"detail": summary.strip()}))
            self.compaction = None
            return
        message = self.lifecycle(COMPACTED + note, "info", entry, detail=summary.strip())
        self.compaction = None if summary else message.seq

    def _note_pending(self, message: Message) -> None:
        if message.dialog is not None and message.dialog.status == "pending":
            self.pending[message.seq] = None
        else:
            self.pending.pop(message.seq, None)
