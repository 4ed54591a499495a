"""OpenCode's sessions mapped to the universal schema, incrementally.

Grammar pinned to OpenCode 1.18.33 (see ``_compat.py``); fixtures recorded from that
version by ``scripts/record_opencode_fixtures.py`` live in ``tests/fixtures/opencode/`` as
JSON lines, one ``event`` row each (``{"seq", "id", "type", "data"}``, ``data`` the stored
JSON text), and from older versions in ``tests/fixtures/opencode/v<version>/``.

``message.updated`` carries a message's whole info and ``message.part.updated`` a part's
whole state, each re-sent on every change: the reader keeps one universal message per
text, reasoning or tool part and replaces it (same ``seq``) as the part grows.

Where a session has no event log (versions before it, or that leave it empty) the same
infos and parts are read from where that version keeps their latest state: the store's
``message`` and ``part`` rows (by ``time_updated``), or, before the SQLite store, one JSON
file per session, message and part under ``storage/``. Each source feeds the same mapping.

A ``task`` call's sub-agent is a child session of the same store: a reader of its own,
whose messages join this list nested under the call (``parent_tool_id``). A running
command's output so far is the call's ``progress``; compactions, images and hidden
reasoning are mapped as ``_compat.py`` describes. What the reader has mapped is a
``SessionState`` (``_session.py``), mapped onto by the functions of ``_message_infos.py``
and ``_message_parts.py``; here are the sources they are read from and the sub-agents.
"""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

from ...schema import AgentScope, Dialog, Message, ModelUsage, SessionSummary, State, Usage
from .. import ReadResult, TranscriptReader, TranscriptRef
from . import _compat
from ._message_infos import message_info
from ._message_parts import message_part
from ._parts import load_json_file
from ._session import SessionState
from ._store import (
    EventRow,
    RowChange,
    has_events,
    read_events,
    read_legacy,
    read_rows,
    read_session,
)

__all__ = ["OpenCodeTranscriptReader", "apply_events"]


class OpenCodeTranscriptReader(TranscriptReader):
    """Maps one OpenCode session (``ref.transcript_id``) of the store at ``ref.path``.

    State: ``working`` from a new user message until its last assistant message completes
    (one that finished with tool calls is followed by another), or is aborted.

    ``clear_echo`` starts the epoch with the ``/new`` that opened it: OpenCode records the
    command nowhere, so the reader synthesises its echo.
    """

    def __init__(
        self, ref: TranscriptRef, clear_echo: str | None = None, *, subagent: bool = False
    ) -> None:
        self.ref = ref
        self._clear_echo = clear_echo
        self._subagent = subagent
        self._reset()

    def _reset(self) -> None:
        self._source: str | None = None  # "events", "rows" or "legacy", once known
        self._since = 0  # rows: the newest time_updated read
        self._stored: dict[tuple[str, str], str] = {}  # rows and files: the data applied
        self._files: dict[Path, tuple[int, int]] = {}  # legacy: file keys read
        self._orphans: dict[str, list[dict[str, Any]]] = {}  # parts read before their message
        # Sub-agents (task child sessions) by session id: their reader, the call that
        # started each, and where their messages sit in this list.
        self._children: dict[str, OpenCodeTranscriptReader] = {}
        self._child_call: dict[str, str] = {}
        self._child_seq: dict[tuple[str, int], int] = {}
        self._child_missing: set[str] = set()
        self._child_done: set[str] = set()  # sub-agents whose call has finished
        self._last: tuple[int, str] | None = None
        self._session = SessionState(facts={"transcript_id": self.ref.transcript_id})
        if self._clear_echo:
            self._session.add_message(
                kind="text", role="user", text=self._clear_echo, command=self._clear_echo
            )

    # -- TranscriptReader --------------------------------------------------------------

    @property
    def messages(self) -> list[Message]:
        return list(self._session.messages)

    @property
    def pending_dialog(self) -> Dialog | None:
        # The question tool's part is in the store, with its questions, while it waits.
        if not self._session.asking:
            return None
        return self._session.messages[next(reversed(self._session.asking))].dialog

    @property
    def state(self) -> State:
        return self._session.state

    def _own_models(self, scope: AgentScope) -> dict[tuple[str, AgentScope], tuple[Usage, int]]:
        """The session's own usage and request count per model (its children apart)."""
        models: dict[tuple[str, AgentScope], tuple[Usage, int]] = {}
        for msg_id, usage in self._session.usage.items():
            key = (str(self._session.infos.get(msg_id, {}).get("modelID") or "unknown"), scope)
            before, requests = models.get(key, (Usage(), 0))
            models[key] = (
                before + usage,
                requests + max(1, len(self._session.steps.get(msg_id, {}))),
            )
        return models

    @property
    def summary(self) -> SessionSummary:
        scope: AgentScope = "subagent" if self._subagent else "main"
        models = self._own_models(scope)
        costs = list(self._session.costs.values())
        for child in self._children.values():
            summary = child.summary
            for item in summary.models:
                key: tuple[str, AgentScope] = (item.model, "subagent")
                before, requests = models.get(key, (Usage(), 0))
                models[key] = (before + item.usage, requests + item.requests)
            if summary.vendor_cost_usd is not None:
                costs.append(summary.vendor_cost_usd)
        return SessionSummary(
            **self._session.facts,
            model=self._session.model,
            usage=sum((u for u, _ in models.values()), Usage()),
            models=[
                ModelUsage(model=name, scope=where, usage=usage, requests=requests)
                for (name, where), (usage, requests) in models.items()
            ],
            vendor_cost_usd=sum(costs, Decimal(0)) if costs else None,
            turn_durations_ms=list(self._session.durations.values()),
            rate_limits=list(self._session.limits.values()),
        )

    def read(self) -> ReadResult:
        if self._source is None:
            self._source = self._detect()
        rewritten = False
        if self._source == "events":
            rows, rewritten = read_events(
                self.ref.path,
                self.ref.transcript_id,
                self._last[0] if self._last else -1,
                self._last,
            )
            if rewritten:
                self._reset()
                self._source = "events"
            self.apply(rows)
        elif self._source == "rows":
            found = read_rows(self.ref.path, self.ref.transcript_id, self._since)
            if found is not None:
                changes, self._since = found
                self.apply_changes(changes)
        elif self._source == "legacy":
            self.apply_changes(read_legacy(self.ref.path, self.ref.transcript_id, self._files))
        self._read_children()
        changed = (
            self.messages
            if rewritten
            else [self._session.messages[s] for s in sorted(self._session.changed)]
        )
        self._session.changed = {}
        return ReadResult(changed=changed, reset=rewritten)

    def _read_children(self) -> None:
        """Read the sub-agents' sessions; their messages join this list, nested under the
        call that started each (its ``parent_tool_id``).
        """
        for agent_id in self._children:
            self._mirror(agent_id)
        self._check_children()

    def _mirror(self, agent_id: str) -> None:
        """Read one sub-agent's session on and show what changed in it."""
        child = self._children[agent_id]
        result = child.read()
        found = child.messages if result.reset else result.changed
        call_id = self._child_call[agent_id]
        for message in found:
            nested = message.model_copy(
                update={"parent_tool_id": message.parent_tool_id or call_id}
            )
            seq = self._child_seq.get((agent_id, message.seq))
            if seq is None:
                added = self._session.add_message(**nested.model_dump(exclude={"seq"}))
                self._child_seq[(agent_id, message.seq)] = added.seq
            else:
                self._session.replace_message(nested.model_copy(update={"seq": seq}))

    def _child(self, agent_id: str, call_id: str) -> None:
        if agent_id in self._children or agent_id == self.ref.transcript_id:
            return
        # A legacy session file's sub-agent has its own file beside it; a store holds both.
        path = (
            self.ref.path.with_name(f"{agent_id}.json")
            if self.ref.path.suffix == ".json"
            else self.ref.path
        )
        ref = TranscriptRef(transcript_id=agent_id, path=path)
        self._children[agent_id] = OpenCodeTranscriptReader(ref, subagent=True)
        self._child_call[agent_id] = call_id

    def _check_children(self) -> None:
        """A finished call whose sub-agent left nothing to read: one warning, under it."""
        for agent_id in self._child_done - self._child_missing:
            if self._children[agent_id].messages:
                continue
            self._child_missing.add(agent_id)
            self._session.add_message(
                kind="lifecycle",
                role="system",
                level="warning",
                text=f"The sub-agent's session {agent_id} could not be read.",
                parent_tool_id=self._child_call[agent_id],
            )

    def _detect(self) -> str | None:
        """Where this session's history is: its event log, the store's rows, or legacy
        files; ``None`` while none holds anything yet (decided on a later read).
        """
        if self.ref.path.suffix == ".json":
            info = load_json_file(self.ref.path)
            if info is not None:
                self._session.session_facts(info)
            return "legacy"
        if has_events(self.ref.path, self.ref.transcript_id):
            return "events"
        found = read_rows(self.ref.path, self.ref.transcript_id, 0)
        if not found or not found[0]:
            return None
        info = read_session(self.ref.path, self.ref.transcript_id)
        if info is not None:
            self._session.session_facts(info)
        return "rows"

    def _event(self, kind: str, data: dict[str, Any]) -> None:
        if kind.startswith(_compat.MESSAGE_UPDATED):
            info = data.get("info")
            if isinstance(info, dict) and isinstance(info.get("id"), str):
                self._message(info)
        elif kind.startswith(_compat.PART_UPDATED):
            part = data.get("part")
            if isinstance(part, dict) and isinstance(part.get("id"), str):
                self._part(part)
        elif kind.startswith(_compat.SESSION_CREATED):
            info = data.get("info")
            if isinstance(info, dict):
                self._session.session_facts(info)

    def _message(self, info: dict[str, Any]) -> None:
        """Map a message's info (the usage scan counts it through its own)."""
        message_info(self._session, info)

    def _part(self, part: dict[str, Any]) -> None:
        """Map a part, and follow the sub-agent its call runs (the usage scan counts it
        through its own).
        """
        tool = message_part(self._session, part)
        if tool is None or tool.agent_id is None:
            return
        self._child(tool.agent_id, tool.id)
        if tool.status != "running":
            self._child_done.add(tool.agent_id)
        if tool.agent_id in self._children:
            # What the sub-agent has done so far goes right under its call.
            self._mirror(tool.agent_id)

    def apply_changes(self, changes: list[RowChange]) -> None:
        """Map messages and parts as stored now (rows or legacy files), messages first.

        Each row holds a message's or part's latest state, not the steps that led to it:
        a message's info is applied before its parts (they need its role) and again after
        them (its usage goes on its last part), and the newest message's info is applied
        last, so the state follows the newest message as it would in the event log.
        """
        infos: dict[str, dict[str, Any]] = {}
        parts: list[dict[str, Any]] = []
        for change in changes:
            key = (change.table, change.id)
            if self._stored.get(key) == change.data:
                continue  # seen already (an update within the last millisecond read)
            self._stored[key] = change.data
            try:
                value = json.loads(change.data)
            except ValueError:
                value = None
            if not isinstance(value, dict):
                note = f"Skipped unreadable stored {change.table} {change.id}"
                self._session.lifecycle(note, "warning", None)
                continue
            if change.table == "message":
                infos[change.id] = {**value, "id": change.id, "sessionID": self.ref.transcript_id}
            else:
                parts.append({**value, "id": change.id, "messageID": change.message_id})
        for info in infos.values():
            self._message(info)
        for part in [*(p for i in infos for p in self._orphans.pop(i, [])), *parts]:
            if str(part["messageID"]) not in self._session.roles:
                # Its message is not stored yet (or unreadable): kept until it is.
                self._orphans.setdefault(str(part["messageID"]), []).append(part)
                continue
            self._part(part)
        # Message ids sort in creation order.
        touched = sorted({*infos, *(str(p["messageID"]) for p in parts)})
        for msg_id in touched:
            latest = self._session.infos.get(msg_id)
            if latest is not None:
                self._message(latest)
        newest = max(self._session.infos, default=None)
        if newest is not None and touched and touched[-1] != newest:
            self._message(self._session.infos[newest])

    def apply(self, rows: list[EventRow]) -> None:
        """Map event rows read after the last ones applied."""
        for row in rows:
            self._last = (row.seq, row.id)
            try:
                data = json.loads(row.data)
            except ValueError:
                self._session.lifecycle(f"Skipped unreadable event {row.seq}", "warning", None)
                continue
            if isinstance(data, dict):
                self._event(row.type, data)


def apply_events(ref: TranscriptRef, rows: list[EventRow]) -> OpenCodeTranscriptReader:
    """A reader that has applied ``rows`` (for previews and tests)."""
    reader = OpenCodeTranscriptReader(ref)
    reader.apply(rows)
    return reader
