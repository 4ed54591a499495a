"""The sub-agent sessions of one Gemini CLI session, found beside it and read incrementally.

Gemini CLI 0.61.0 runs a sub-agent (``invoke_agent``: ``generalist``, ``codebase_investigator``,
``cli_help``) as a session of its own, ``chats/<parent session id>/<agent session id>.jsonl``
(header ``kind: "subagent"``), the event log of the main session's grammar. The main
session's call names it in ``toolCalls[].agentId`` once the call has finished; while the
sub-agent works only its file tells, so the folder is listed on every read (one directory
listing; each file is then read from where the last read stopped).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Container
from pathlib import Path
from typing import Protocol

from ...schema import Message, ToolCall
from .. import ReadResult, TranscriptRef
from . import _compat

__all__ = ["AGENT_CALL", "AgentReader", "SubAgents", "agents_folder"]

AGENT_CALL = "agent:"
"""Id prefix of the stand-in for a sub-agent's call that is not recorded yet."""


class AgentReader(Protocol):
    """What a sub-agent's session reader offers the main reader."""

    def read(self) -> ReadResult: ...

    @property
    def messages(self) -> list[Message]: ...


def agents_folder(session_file: Path, session_id: str) -> Path:
    """Where the sub-agents of the session in ``session_file`` keep their files."""
    return session_file.parent / session_id


class SubAgents:
    """Readers of the sub-agent sessions of one session, by agent session id."""

    def __init__(self, open_reader: Callable[[TranscriptRef], AgentReader]) -> None:
        self._open = open_reader
        self.readers: dict[str, AgentReader] = {}

    def read(self, folder: Path | None) -> set[str]:
        """Read what every sub-agent appended (finding new ones first); the ids whose
        messages changed.
        """
        changed: set[str] = set()
        if folder is not None:
            for agent_id, path in _listing(folder):
                if agent_id not in self.readers:
                    self.readers[agent_id] = self._open(
                        TranscriptRef(transcript_id=agent_id, path=path)
                    )
        for agent_id, reader in self.readers.items():
            result = reader.read()
            if result.changed or result.reset:
                changed.add(agent_id)
        return changed

    def nested(self, agent_id: str, call_id: str) -> list[Message]:
        """A sub-agent's messages, nested under the call that started it; one warning when
        its session cannot be found.
        """
        reader = self.readers.get(agent_id)
        if reader is None:
            return [
                Message(
                    seq=0,
                    kind="lifecycle",
                    role="system",
                    level="warning",
                    text=f"The sub-agent's session {agent_id} was not found.",
                    parent_tool_id=call_id,
                )
            ]
        return [
            m.model_copy(update={"parent_tool_id": m.parent_tool_id or call_id})
            for m in reader.messages
        ]

    def running(self, linked: Container[str]) -> list[Message]:
        """Sub-agents at work whose call is not recorded yet (Gemini CLI records a call
        when it finishes): each under a stand-in for its running call (``agent:<id>``).
        """
        out: list[Message] = []
        for agent_id in self.readers:
            if agent_id in linked:
                continue
            call_id = f"{AGENT_CALL}{agent_id}"
            call = ToolCall(id=call_id, name=_compat.AGENT_TOOL, agent_id=agent_id)
            out.append(Message(seq=0, kind="tool", role="assistant", tool=call))
            out += self.nested(agent_id, call_id)
        return out


def _listing(folder: Path) -> list[tuple[str, Path]]:
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return []  # not there yet, or not readable: no sub-agent to show
    found = []
    for entry in entries:
        name = entry.name
        if name.endswith(_compat.EVENT_LOG_SUFFIX) and not name.startswith(_compat.SESSION_PREFIX):
            found.append((name[: -len(_compat.EVENT_LOG_SUFFIX)], Path(entry.path)))
    return sorted(found)
