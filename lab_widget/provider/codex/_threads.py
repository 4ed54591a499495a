"""The rollouts one Codex reader reads (the main thread's and its sub-agents'), and what it
has read of them: the message list, the session's facts, and the primitives every mapping
(``_response_items.py``, the events in ``_transcript.py``) adds and replaces messages through.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from ...schema import AgentScope, LifecycleLevel, Message, ModelUsage, RateLimit, State, Usage
from ..kit import JsonlTail, TurnFactsLog
from ..kit import iso_time as _timestamp
from ._items import Counts
from ._rollouts import find_thread

__all__ = ["RolloutState", "Thread"]


@dataclass
class Thread:
    """One rollout being read: the main thread or a sub-agent's."""

    path: Path | None
    scope: AgentScope = "main"
    parent_tool_id: str | None = None
    agent_id: str | None = None
    nickname: str | None = None
    spawned_at: datetime | None = None
    beside: Path | None = None
    """A rollout of the same session, where this thread's is looked for."""
    tail: JsonlTail | None = None
    model: str | None = None
    tools: dict[str, int] = field(default_factory=dict)
    """Call id → seq of its tool message."""
    names: dict[str, str] = field(default_factory=dict)
    """Call id → tool name (the output says which call it closes, not what it was)."""
    failed: set[str] = field(default_factory=set)
    """Ids of the MCP calls Codex marked failed (``_compat.MCP_CALL_ITEM``)."""
    previous_total: Counts | None = None
    response: list[int] = field(default_factory=list)
    """Seqs of the messages of the model response still waiting for its token count."""
    task_events: bool = False
    """Whether this rollout marks turns (``task_started`` / ``task_complete``); 0.80.0
    writes neither, and its state comes from the structure alone."""
    turn_open: bool = False
    structural: State = "idle"
    summary: str | None = None
    """A ``/compact`` summary waiting for its ``compacted`` line."""
    last_compaction: int | None = None
    last_output: int | None = None
    """Seq of the tool message whose output is this thread's latest item (an image the
    tool returned may follow as a message of its own)."""
    children: list[str] = field(default_factory=list)
    """Agent ids this thread spawned during its current turn."""
    missing_reported: bool = False

    @property
    def state(self) -> State:
        if self.task_events:
            return "working" if self.turn_open else "idle"
        return self.structural


@dataclass
class RolloutState:
    """What a Codex reader has read: its threads, messages and the session's facts, and the
    message primitives every mapping goes through. The reader makes a new one to start over.
    """

    main: Thread
    children: dict[str, Thread] = field(default_factory=dict)
    """Sub-agents' threads by agent (thread) id."""
    messages: list[Message] = field(default_factory=list)
    changed: dict[int, None] = field(default_factory=dict)
    """Seqs of the messages added or replaced since the last read."""
    facts: dict[str, Any] = field(default_factory=dict)
    turn_durations: list[int] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    models: dict[tuple[str, str], ModelUsage] = field(default_factory=dict)
    limits: dict[tuple[str, str | None], RateLimit] = field(default_factory=dict)
    turns: TurnFactsLog = field(default_factory=TurnFactsLog)
    """Per turn (keyed by its prompt's seq): what turn_context and task_complete record."""

    def locate(self, child: Thread) -> None:
        if child.beside is None or child.agent_id is None:
            return
        path = find_thread(child.agent_id, child.beside, child.spawned_at)
        if path is not None:
            child.path, child.tail = path, JsonlTail(path)

    def add(self, thread: Thread, **fields: Any) -> Message:
        if thread.parent_tool_id is not None:
            fields.setdefault("parent_tool_id", thread.parent_tool_id)
        message = Message(seq=len(self.messages), **fields)
        self.messages.append(message)
        self.changed[message.seq] = None
        if message.role == "assistant" and message.kind in ("text", "tool", "dialog"):
            thread.response.append(message.seq)
        return message

    def replace(self, message: Message) -> None:
        self.messages[message.seq] = message
        self.changed[message.seq] = None

    def lifecycle(
        self,
        thread: Thread,
        text: str,
        level: LifecycleLevel,
        line: dict[str, Any] | None,
        detail: str = "",
    ) -> Message:
        return self.add(
            thread,
            kind="lifecycle",
            role="system",
            text=text,
            level=level,
            detail=detail,
            timestamp=_timestamp(line.get("timestamp")) if line else None,
        )

    def running(self, thread: Thread) -> list[int]:
        return [
            seq
            for seq in thread.tools.values()
            if (tool := self.messages[seq].tool) is not None and tool.status == "running"
        ]

    def close_running(self, thread: Thread, why: str) -> None:
        for seq in self.running(thread):
            message = self.messages[seq]
            assert message.tool is not None
            tool = message.tool.model_copy(update={"status": "error", "output": why})
            self.replace(message.model_copy(update={"tool": tool}))
