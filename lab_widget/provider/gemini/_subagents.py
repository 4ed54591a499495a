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
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from .._seam import ReadResult, TranscriptRef
from . import _compat

__all__ = ["AgentReader", "SubAgents", "agents_folder"]


class AgentReader(Protocol):
    """What a sub-agent's session reader offers the main reader."""

    def read(self) -> ReadResult: ...


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
