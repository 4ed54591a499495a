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
reasoning are mapped as ``_compat.py`` describes.
"""

from __future__ import annotations

import json
from datetime import datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

from ...schema import (
    AgentScope,
    Dialog,
    LifecycleLevel,
    Message,
    ModelUsage,
    SessionSummary,
    State,
    ToolCall,
    Usage,
)
from .. import ReadResult, TranscriptReader, TranscriptRef, as_dict, exact
from . import _compat
from ._parts import (
    COMPACTED,
    attachments,
    hidden_reasoning,
    load_json_file,
    question_fields,
    rejected,
    stamp,
    step_usage,
    tool_call,
)
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
        self._compactions: dict[str, int] = {}  # compaction request message -> its note
        self._last: tuple[int, str] | None = None
        self._messages: list[Message] = []
        self._changed: dict[int, None] = {}
        self._roles: dict[str, str] = {}
        self._infos: dict[str, dict[str, Any]] = {}
        self._parts: dict[str, int] = {}
        self._asking: dict[int, None] = {}  # seqs of questions the agent waits on
        self._aborted: set[str] = set()
        self._errors: set[str] = set()
        self._rejected: set[str] = set()
        self._usage: dict[str, Usage] = {}  # per assistant message, as counted
        self._message_usage: dict[str, Usage] = {}  # a message's own tokens
        self._steps: dict[str, dict[str, Usage]] = {}  # message -> step-finish part -> usage
        self._costs: dict[str, Decimal] = {}
        self._step_reasons: dict[str, str] = {}  # message -> its last step-finish reason
        self._first_of: dict[str, int] = {}  # message id -> seq of its first shown part
        self._durations: dict[str, int] = {}
        self._state: State = "idle"
        self._model: str | None = None
        self._facts: dict[str, Any] = {"transcript_id": self.ref.transcript_id}
        if self._clear_echo:
            self._add(kind="text", role="user", text=self._clear_echo, command=self._clear_echo)

    # -- TranscriptReader --------------------------------------------------------------

    @property
    def messages(self) -> list[Message]:
        return list(self._messages)

    @property
    def pending_dialog(self) -> Dialog | None:
        # The question tool's part is in the store, with its questions, while it waits.
        if not self._asking:
            return None
        return self._messages[next(reversed(self._asking))].dialog

    @property
    def state(self) -> State:
        return self._state

    @property
    def summary(self) -> SessionSummary:
        scope: AgentScope = "subagent" if self._subagent else "main"
        models: dict[tuple[str, AgentScope], tuple[Usage, int]] = {}
        for msg_id, usage in self._usage.items():
            key = (str(self._infos.get(msg_id, {}).get("modelID") or "unknown"), scope)
            before, requests = models.get(key, (Usage(), 0))
            models[key] = (before + usage, requests + max(1, len(self._steps.get(msg_id, {}))))
        costs = list(self._costs.values())
        for child in self._children.values():
            summary = child.summary
            for item in summary.models:
                key = (item.model, "subagent")
                before, requests = models.get(key, (Usage(), 0))
                models[key] = (before + item.usage, requests + item.requests)
            if summary.vendor_cost_usd is not None:
                costs.append(summary.vendor_cost_usd)
        return SessionSummary(
            **self._facts,
            model=self._model,
            usage=sum((u for u, _ in models.values()), Usage()),
            models=[
                ModelUsage(model=name, scope=where, usage=usage, requests=requests)
                for (name, where), (usage, requests) in models.items()
            ],
            vendor_cost_usd=sum(costs, Decimal(0)) if costs else None,
            turn_durations_ms=list(self._durations.values()),
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
        changed = self.messages if rewritten else [self._messages[s] for s in sorted(self._changed)]
        self._changed = {}
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
                added = self._add(**nested.model_dump(exclude={"seq"}))
                self._child_seq[(agent_id, message.seq)] = added.seq
            else:
                self._replace(nested.model_copy(update={"seq": seq}))

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
            self._add(
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
                self._session_facts(info)
            return "legacy"
        if has_events(self.ref.path, self.ref.transcript_id):
            return "events"
        found = read_rows(self.ref.path, self.ref.transcript_id, 0)
        if not found or not found[0]:
            return None
        info = read_session(self.ref.path, self.ref.transcript_id)
        if info is not None:
            self._session_facts(info)
        return "rows"

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
                self._lifecycle(note, "warning", None)
                continue
            if change.table == "message":
                infos[change.id] = {**value, "id": change.id, "sessionID": self.ref.transcript_id}
            else:
                parts.append({**value, "id": change.id, "messageID": change.message_id})
        for info in infos.values():
            self._message(info)
        for part in [*(p for i in infos for p in self._orphans.pop(i, [])), *parts]:
            if str(part["messageID"]) not in self._roles:
                # Its message is not stored yet (or unreadable): kept until it is.
                self._orphans.setdefault(str(part["messageID"]), []).append(part)
                continue
            self._part(part)
        # Message ids sort in creation order.
        touched = sorted({*infos, *(str(p["messageID"]) for p in parts)})
        for msg_id in touched:
            latest = self._infos.get(msg_id)
            if latest is not None:
                self._message(latest)
        newest = max(self._infos, default=None)
        if newest is not None and touched and touched[-1] != newest:
            self._message(self._infos[newest])

    def _session_facts(self, info: dict[str, Any]) -> None:
        for fact, key in (("cwd", "directory"), ("cli_version", "version")):
            value = info.get(key)
            self._facts[fact] = value if isinstance(value, str) else None
        self._facts["started_at"] = stamp(as_dict(info.get("time")).get("created"))

    def apply(self, rows: list[EventRow]) -> None:
        """Map event rows read after the last ones applied."""
        for row in rows:
            self._last = (row.seq, row.id)
            try:
                data = json.loads(row.data)
            except ValueError:
                self._lifecycle(f"Skipped unreadable event {row.seq}", "warning", None)
                continue
            if isinstance(data, dict):
                self._event(row.type, data)

    # -- mapping -----------------------------------------------------------------------

    def _add(self, **fields: Any) -> Message:
        message = Message(seq=len(self._messages), **fields)
        self._messages.append(message)
        self._changed[message.seq] = None
        return message

    def _replace(self, message: Message) -> None:
        if self._messages[message.seq] != message:
            self._messages[message.seq] = message
            self._changed[message.seq] = None

    def _lifecycle(self, text: str, level: LifecycleLevel, when: datetime | None) -> None:
        self._add(kind="lifecycle", role="system", text=text, level=level, timestamp=when)

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
                self._session_facts(info)

    def _message(self, info: dict[str, Any]) -> None:
        msg_id = str(info["id"])
        role = info.get("role")
        first = msg_id not in self._roles
        self._roles[msg_id] = str(role)
        self._infos[msg_id] = info
        times = as_dict(info.get("time"))
        updated = stamp(times.get("completed") or times.get("created"))
        if updated is not None:
            self._facts["updated_at"] = updated
        if role == "user":
            if first:
                self._state = "working"
            return
        if role != "assistant":
            return
        if isinstance(info.get("modelID"), str) and info["modelID"]:
            self._model = info["modelID"]
        usage = step_usage(info.get("tokens"))
        if usage is not None and usage.total:
            # Billed even when the message then failed or was stopped.
            self._message_usage[msg_id] = usage
            self._count_usage(msg_id)
        cost = exact(info.get("cost"))
        if cost is not None:
            self._costs[msg_id] = cost
        error = info.get("error")
        if isinstance(error, dict):
            self._error(msg_id, error, updated)
            return
        completed = times.get("completed")
        if completed is None:
            # Its last step says how it ended, should the message never be marked done.
            self._state = self._step_state(msg_id)
            return
        if info.get("finish") == _compat.TOOL_CALLS_FINISH and msg_id not in self._rejected:
            self._state = "working"
            return
        self._state = "idle"
        parent = self._infos.get(str(info.get("parentID")))
        started = as_dict((parent or {}).get("time")).get("created")
        if isinstance(started, int) and isinstance(completed, int):
            self._durations[str(info.get("parentID"))] = max(0, completed - started)

    def _step_state(self, msg_id: str) -> State:
        """The state an assistant message's steps give: ``working`` until a step finished
        other than by calling tools (then its answer is complete), or after a rejected call.
        """
        reason = self._step_reasons.get(msg_id)
        if reason is None or (reason == _compat.TOOL_CALLS_FINISH and msg_id not in self._rejected):
            return "working"
        return "idle"

    def _count_usage(self, msg_id: str) -> None:
        """The usage of one assistant message: its steps' (``step-finish`` parts, each once,
        as last written), else the message's own ``tokens``.
        """
        steps = self._steps.get(msg_id)
        usage = sum(steps.values(), Usage()) if steps else self._message_usage.get(msg_id)
        if usage is None:
            return
        self._usage[msg_id] = usage
        last = next(reversed(steps.values())) if steps else usage
        self._facts["context_tokens"] = last.input_tokens + last.cache_read_tokens
        self._put_usage(msg_id, usage)

    def _put_usage(self, msg_id: str, usage: Usage) -> None:
        # The usage belongs to the response's first message (its parts come later, or
        # were read before the message completed).
        seq = self._first_of.get(msg_id)
        if seq is not None:
            self._replace(self._messages[seq].model_copy(update={"usage": usage}))

    def _error(self, msg_id: str, error: dict[str, Any], when: datetime | None) -> None:
        self._state = "idle"
        if error.get("name") == _compat.ABORTED_ERROR:
            self._close_running("aborted")
            if msg_id not in self._aborted:
                self._aborted.add(msg_id)
                self._lifecycle("Interrupted", "info", when)
            return
        if msg_id in self._errors:
            return
        self._errors.add(msg_id)
        data = as_dict(error.get("data"))
        text = str(data.get("message") or error.get("name") or "Error")
        self._lifecycle(text, "error", when)

    def _close_running(self, why: str) -> None:
        for seq in self._parts.values():
            message = self._messages[seq]
            if message.tool is not None and message.tool.status == "running":
                tool = message.tool.model_copy(update={"status": "error", "output": why})
                update: dict[str, Any] = {"tool": tool}
                if message.dialog is not None:
                    update["dialog"] = message.dialog.model_copy(
                        update={"status": "dismissed", "outcome": why}
                    )
                    self._asking.pop(message.seq, None)
                self._replace(message.model_copy(update=update))

    def _part(self, part: dict[str, Any]) -> None:
        part_id = str(part["id"])
        msg_id = str(part.get("messageID") or "")
        role = self._roles.get(msg_id)
        info = self._infos.get(msg_id, {})
        when = stamp(as_dict(info.get("time")).get("created"))
        fields = self._fields(part, part_id, msg_id, role, info)
        if fields is None:
            return
        seq = self._parts.get(part_id)
        if seq is None:
            first = msg_id not in self._first_of
            usage = self._usage.get(msg_id) if first and role == "assistant" else None
            message = self._add(native_id=msg_id, timestamp=when, usage=usage, **fields)
            self._parts[part_id] = seq = message.seq
            if first:
                self._first_of[msg_id] = seq
            if part.get("type") == _compat.COMPACTION_PART:
                self._compactions[msg_id] = seq
        else:
            old = self._messages[seq]
            self._replace(old.model_copy(update=dict(fields, usage=old.usage)))
        if fields.get("dialog") is not None and fields["dialog"].status == "pending":
            self._asking[seq] = None
        else:
            self._asking.pop(seq, None)
        tool = fields.get("tool")
        if isinstance(tool, ToolCall) and tool.agent_id in self._children:
            # What the sub-agent has done so far goes right under its call.
            self._mirror(tool.agent_id)

    def _fields(
        self,
        part: dict[str, Any],
        part_id: str,
        msg_id: str,
        role: str | None,
        info: dict[str, Any],
    ) -> dict[str, Any] | None:
        """What one part shows as (``None``: nothing, or not yet); bookkeeping parts
        (step-finish, a compaction summary's text, a pasted file) update other messages.
        """
        kind = part.get("type")
        text = str(part.get("text") or "")
        if kind == "text" and role == "user":
            if text and not part.get("synthetic"):
                return {"kind": "text", "role": "user", "text": text}
        elif kind == "text" and role == "assistant":
            if info.get("summary") is True:
                self._compaction_summary(info, text)
                return None
            if text or part_id in self._parts:
                return {"kind": "text", "role": "assistant", "text": text, "model": self._model}
        elif kind == "reasoning" and role == "assistant":
            text = text.strip()
            hidden = not text and hidden_reasoning(part.get("metadata"))
            if text or hidden or part_id in self._parts:
                return {
                    "kind": "text",
                    "role": "assistant",
                    "text": text,
                    "thinking": True,
                    "redacted": hidden,
                    "model": self._model,
                }
        elif kind == "file" and role is not None:
            self._file(part, part_id, msg_id, role)
        elif kind == _compat.COMPACTION_PART:
            return {"kind": "lifecycle", "role": "system", "level": "info", "text": COMPACTED}
        elif kind == "step-finish" and role == "assistant":
            usage = step_usage(part.get("tokens"))
            if usage is not None:
                self._steps.setdefault(msg_id, {})[part_id] = usage
                self._count_usage(msg_id)
            self._step_reasons[msg_id] = str(part.get("reason") or "")
            if msg_id == max(self._infos, default=None) and not as_dict(info.get("error")):
                self._state = self._step_state(msg_id)
        elif kind == "tool":
            return self._tool_fields(part, msg_id)
        return None

    def _tool_fields(self, part: dict[str, Any], msg_id: str) -> dict[str, Any]:
        state = as_dict(part.get("state"))
        if rejected(str(state.get("error") or "")):
            self._rejected.add(msg_id)
        tool = tool_call(part)
        fields: dict[str, Any] = {
            "kind": "tool",
            "role": "assistant",
            "tool": tool,
            "model": self._model,
            "attachments": attachments(state.get(_compat.ATTACHMENTS_KEY)),
        }
        if part.get("tool") == _compat.QUESTION_TOOL:
            fields.update(question_fields(state, tool))
        if tool.agent_id is not None:
            self._child(tool.agent_id, tool.id)
            if tool.status != "running":
                self._child_done.add(tool.agent_id)
        return fields

    def _file(self, part: dict[str, Any], part_id: str, msg_id: str, role: str) -> None:
        """A file the user attached (or a tool returned) as a part of its own: an image
        goes on the message's first shown part, else on a message of its own.
        """
        found = attachments([part])
        if not found:
            return
        seq = self._first_of.get(msg_id)
        if seq is None:
            chat_role = "user" if role == "user" else "assistant"
            message = self._add(kind="text", role=chat_role, native_id=msg_id, attachments=found)
            self._parts[part_id] = self._first_of[msg_id] = message.seq
            return
        shown = self._messages[seq]
        keep = [a for a in shown.attachments if a not in found]
        self._replace(shown.model_copy(update={"attachments": keep + found}))

    def _compaction_summary(self, info: dict[str, Any], text: str) -> None:
        """A compaction's summary goes under the note its request opened, and so does the
        summary's usage (the response the note stands for).
        """
        seq = self._compactions.get(str(info.get("parentID")))
        if seq is None:
            return
        self._first_of.setdefault(str(info["id"]), seq)
        note = self._messages[seq]
        usage = self._usage.get(str(info["id"]), note.usage)
        self._replace(note.model_copy(update={"detail": text.strip(), "usage": usage}))


def apply_events(ref: TranscriptRef, rows: list[EventRow]) -> OpenCodeTranscriptReader:
    """A reader that has applied ``rows`` (for previews and tests)."""
    reader = OpenCodeTranscriptReader(ref)
    reader.apply(rows)
    return reader
