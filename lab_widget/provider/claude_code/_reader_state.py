"""What every part of the Claude Code reader works on: the session's message list, the
primitives each entry maps through, and the state its entries change.

The reader (``_transcript.py``) is built from parts that each map one side of the
transcript (``_user_entries.py``, ``_assistant_entries.py``); they share this state.
"""

from __future__ import annotations

from typing import Any

from ...schema import AgentScope, LifecycleLevel, Message, RateLimit, State
from .. import TranscriptReader, TranscriptRef
from ..kit import ModelWatch, TurnFactsLog, UsageLedger
from . import _compat
from ._entries import timestamp

__all__ = ["COMPACTED", "ReaderState"]

COMPACTED = "Conversation compacted"


class ReaderState(TranscriptReader):
    """The state and message primitives of a Claude Code session's reader."""

    ref: TranscriptRef
    _scope: AgentScope
    _messages: list[Message]
    _changed: dict[int, None]
    _tool_seq: dict[str, int]
    """Tool call id -> seq of its message."""
    _ledger: UsageLedger
    _carrier: dict[str, int]
    """Response id -> seq of the message that shows its usage."""
    _state: State
    _open_response: bool
    """Whether the last response seen asked for tools (its turn goes on)."""
    _seen_turn: bool
    _facts: dict[str, Any]
    _turns: TurnFactsLog
    _models: ModelWatch
    _pending: dict[int, None]
    """Seqs of dialogs still pending."""
    _compaction: int | None
    """Seq of the compaction note still waiting for its summary."""
    _before_prompt: tuple[int, State, bool] | None
    """The state before the latest prompt, while it may still turn out to be a command."""
    _background: dict[str, None]
    """Calls whose sub-agent runs in the background and has not reported back."""
    agent_links: dict[str, str]
    """Sub-agent id -> the tool call that started it, as this file tells."""
    _limits: dict[tuple[str, str | None], RateLimit]
    """Limits the API said were reached (its refusals), latest per limit."""
    _agent_calls: dict[str, str]
    """Sub-agent calls (tool id -> prompt) whose sub-agent is not known yet."""

    def add_message(self, **fields: Any) -> Message:
        """Append a message (the next seq) and report it as changed."""
        message = Message(seq=len(self._messages), **fields)
        self._messages.append(message)
        self._changed[message.seq] = None
        self._note_pending(message)
        return message

    def replace_message(self, message: Message) -> None:
        """Put an updated copy of a message in place (same seq) and report it."""
        self._messages[message.seq] = message
        self._changed[message.seq] = None
        self._note_pending(message)

    def append_message(self, message: Message, parent_tool_id: str) -> Message:
        """Append a sub-agent's message, nested under the call ``parent_tool_id``."""
        copy = message.model_copy(
            update={"seq": len(self._messages), "parent_tool_id": parent_tool_id}
        )
        self._messages.append(copy)
        self._changed[copy.seq] = None
        self._note_pending(copy)
        if copy.tool is not None:
            self._tool_seq.setdefault(copy.tool.id, copy.seq)
            if copy.tool.name in _compat.SUBAGENT_TOOLS and copy.tool.agent_id is None:
                self._agent_calls[copy.tool.id] = str(copy.tool.input.get("prompt") or "")
        return copy

    @property
    def ledger(self) -> UsageLedger:
        """The usage of the session and its sub-agents."""
        return self._ledger

    def link_agent(self, tool_id: str, agent_id: str) -> None:
        """Note on the call ``tool_id`` that it runs the sub-agent ``agent_id``."""
        self._agent_calls.pop(tool_id, None)
        old = self.tool_message(tool_id)
        if old is not None and old.tool is not None and old.tool.agent_id != agent_id:
            tool = old.tool.model_copy(update={"agent_id": agent_id})
            self.replace_message(old.model_copy(update={"tool": tool}))

    def unlinked_agent_calls(self, linked: set[str]) -> dict[str, str]:
        """Running sub-agent calls not linked to a sub-agent yet: tool id -> prompt."""
        return {t: p for t, p in self._agent_calls.items() if t not in linked}

    def tool_message(self, tool_id: str) -> Message | None:
        """The message of the tool call ``tool_id``, if this reader has it."""
        seq = self._tool_seq.get(tool_id)
        return self._messages[seq] if seq is not None else None

    def _note_pending(self, message: Message) -> None:
        if message.dialog is not None and message.dialog.status == "pending":
            self._pending[message.seq] = None
        else:
            self._pending.pop(message.seq, None)

    def _lifecycle(
        self, text: str, level: LifecycleLevel, entry: dict[str, Any] | None, detail: str = ""
    ) -> Message:
        return self.add_message(
            kind="lifecycle",
            role="system",
            text=text,
            level=level,
            detail=detail,
            native_id=entry.get("uuid") if entry else None,
            timestamp=timestamp(entry) if entry else None,
        )

    def _note_turn(self, **facts: Any) -> None:
        # Facts of the turn under way (the latest prompt's), main thread only.
        if self._scope == "main":
            self._turns.note(**facts)

    def _compacted(self, entry: dict[str, Any], summary: str = "", note: str = "") -> None:
        if self._compaction is not None and summary:
            # The summary follows its boundary: it belongs to that message.
            old = self._messages[self._compaction]
            self.replace_message(old.model_copy(update={"detail": summary.strip()}))
            self._compaction = None
            return
        message = self._lifecycle(COMPACTED + note, "info", entry, detail=summary.strip())
        self._compaction = None if summary else message.seq
