"""Sub-agents of a Claude Code session: found beside the main file, read like it, nested.

A sub-agent writes its own transcript, ``<session>/subagents/agent-<id>.jsonl`` (entries
``isSidechain: true`` with ``agentId``). Which call started it is told several ways across
versions, all read: the call's result (``toolUseResult.agentId``; 2.1.332 returns it at once,
``status: "async_launched"``, and the sub-agent reports back later in a task notification),
``progress`` entries of type ``agent_progress`` (``parentToolUseID``, ``data.agentId``), the
``agent-<id>.meta.json`` beside the file (``toolUseId``), and, for versions that wrote none of
these while the sub-agent ran, the sub-agent's first prompt matched to the call's ``prompt``.

A compaction is written in the same folder (``agent-acompact-<id>.jsonl``): a billed request
no call started. Its usage counts in the session with scope ``compaction``; its messages (the
summary prompt and the summary) are not folded in, since the session's own file already shows
the compaction and its summary.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ...schema import AgentScope, Message
from .. import TranscriptRef
from ..kit import UsageLedger, json_lines, load_json, read_head
from ._entries import prompt_text
from ._files import subagent_dir, subagent_file
from ._session import SessionState
from ._usage_scan import scope_of

if TYPE_CHECKING:
    from ._transcript import ClaudeTranscriptReader

__all__ = ["Subagents"]

ChildFactory = Callable[[TranscriptRef, UsageLedger, AgentScope], "ClaudeTranscriptReader"]
"""A reader of a sub-agent's (or a compaction's) file, counting into the session's ledger."""

_PEEK_BYTES = 64 << 10
_MISSING = "The sub-agent's transcript is missing: its work cannot be shown"
_UNREADABLE = "The sub-agent's transcript could not be read"


@dataclass
class _Child:
    agent_id: str
    tool_id: str
    reader: ClaudeTranscriptReader
    seqs: dict[int, int] = field(default_factory=dict)
    """The sub-agent's own seq -> the seq of its copy in the session's list."""


class Subagents:
    """Finds a session's sub-agents and folds their messages into what its reader has read."""

    def __init__(self, root: SessionState, child: ChildFactory) -> None:
        self._root = root
        self._child = child
        self._dir = subagent_dir(root.ref.path)
        self._children: dict[str, _Child] = {}
        self._listed_mtime: int | None = None
        self._unlinked: dict[str, Path] = {}
        """Files found in the folder whose call is not known yet, by agent id."""
        self._warned: set[str] = set()
        self._compactions: dict[str, ClaudeTranscriptReader] = {}
        """Compactions' readers, by file name: read for their usage only."""

    @property
    def watch(self) -> Path:
        """The folder to watch for sub-agents' writes."""
        return self._dir

    def read(self) -> None:
        """Open newly linked sub-agents and read what every one of them appended."""
        self._discover()
        for child in list(self._children.values()):
            self._read_child(child)
        for reader in self._compactions.values():
            try:
                reader.read()  # into the shared ledger; the messages stay out
            except OSError:
                pass  # read again at the next change; the usage only counts once it reads

    # -- finding them ------------------------------------------------------------------

    def _links(self) -> dict[str, str]:
        links = dict(self._root.agent_links)
        for child in self._children.values():
            links.update(child.reader.agent_links)
        return links

    def _discover(self) -> None:
        self._list_folder()
        for agent_id, tool_id in self._links().items():
            if agent_id not in self._children:
                self._open(agent_id, tool_id)
        if self._unlinked:
            self._match_prompts()

    def _list_folder(self) -> None:
        try:
            mtime = self._dir.stat().st_mtime_ns
        except OSError:
            return
        if mtime == self._listed_mtime:
            return
        self._listed_mtime = mtime
        try:
            files = list(self._dir.glob("agent-*.jsonl"))
        except OSError:
            return
        for path in files:
            if scope_of(path) == "compaction":
                if path.name not in self._compactions:
                    ref = TranscriptRef(transcript_id=path.stem, path=path)
                    self._compactions[path.name] = self._child(ref, self._root.ledger, "compaction")
                continue
            agent_id = path.stem.removeprefix("agent-")
            if agent_id in self._children or agent_id in self._unlinked:
                continue
            tool_id = _meta_tool_id(path.with_suffix(".meta.json"))
            if tool_id is not None:
                self._root.agent_links.setdefault(agent_id, tool_id)
            else:
                self._unlinked[agent_id] = path

    def _match_prompts(self) -> None:
        calls = self._root.unlinked_agent_calls(set(self._links().values()))
        if not calls:
            return
        for agent_id, path in list(self._unlinked.items()):
            prompt = _first_prompt(path)
            if prompt is None:
                continue
            tool_id = next((t for t, p in calls.items() if p.strip() == prompt.strip()), None)
            if tool_id is not None:
                del self._unlinked[agent_id]
                calls.pop(tool_id)
                self._root.agent_links.setdefault(agent_id, tool_id)
                self._open(agent_id, tool_id)

    def _open(self, agent_id: str, tool_id: str) -> None:
        path = subagent_file(self._root.ref.path, agent_id)
        if path is None or not path.is_file():
            self._warn_missing(agent_id, tool_id)
            return
        ref = TranscriptRef(transcript_id=agent_id, path=path)
        reader = self._child(ref, self._root.ledger, "subagent")
        self._children[agent_id] = _Child(agent_id, tool_id, reader)
        self._unlinked.pop(agent_id, None)
        self._root.link_agent(tool_id, agent_id)

    def _warn_missing(self, agent_id: str, tool_id: str) -> None:
        # Launched and not written yet is normal; finished with no file is a loss to show.
        call = self._root.tool_message(tool_id)
        finished = call is not None and call.tool is not None and call.tool.status != "running"
        if finished and agent_id not in self._warned:
            self._warned.add(agent_id)
            self._root.add_message(
                kind="lifecycle",
                role="system",
                level="warning",
                text=_MISSING,
                parent_tool_id=tool_id,
            )

    # -- reading them ------------------------------------------------------------------

    def _read_child(self, child: _Child) -> None:
        try:
            result = child.reader.read()
        except OSError as exc:
            if child.agent_id not in self._warned:
                self._warned.add(child.agent_id)
                self._root.add_message(
                    kind="lifecycle",
                    role="system",
                    level="warning",
                    text=f"{_UNREADABLE}: {exc}",
                    parent_tool_id=child.tool_id,
                )
            return
        for message in result.changed:
            self._fold(child, message)

    def _fold(self, child: _Child, message: Message) -> None:
        parent = message.parent_tool_id or child.tool_id
        seq = child.seqs.get(message.seq)
        if seq is None:
            copy = self._root.append_message(message, parent)
            child.seqs[message.seq] = copy.seq
        else:
            self._root.replace_message(
                message.model_copy(update={"seq": seq, "parent_tool_id": parent})
            )


def _meta_tool_id(path: Path) -> str | None:
    tool_id = load_json(path).get("toolUseId")
    return tool_id if isinstance(tool_id, str) and tool_id else None


def _first_prompt(path: Path) -> str | None:
    head = read_head(path, _PEEK_BYTES)
    for entry in json_lines(head or b""):
        if isinstance(entry, dict) and entry.get("type") == "user":
            return prompt_text(entry)
    return None
