"""How OpenCode's stored message infos and parts map into messages, whichever source they
were read from (the event log, the store's rows, legacy files): one message per text,
reasoning or tool part, replaced (same seq) as the part grows; a message's usage, cost and
end; questions, compactions, images and sub-agents' calls.
"""

from __future__ import annotations

from abc import abstractmethod
from datetime import datetime
from decimal import Decimal
from typing import Any

from ...schema import LifecycleLevel, Message, RateLimit, State, ToolCall, Usage
from .. import TranscriptReader
from ..kit import as_dict, exact
from . import _compat
from ._limits import api_error_limits
from ._parts import (
    COMPACTED,
    attachments,
    hidden_reasoning,
    plan_fields,
    question_fields,
    rejected,
    stamp,
    step_usage,
    tool_call,
)

__all__ = ["SessionMapping"]


class SessionMapping(TranscriptReader):
    """Maps one session's infos and parts; the reader it is part of reads them and its
    sub-agents.
    """

    _messages: list[Message]
    _changed: dict[int, None]
    _roles: dict[str, str]
    """Message id -> its role."""
    _infos: dict[str, dict[str, Any]]
    """Message id -> its latest info."""
    _parts: dict[str, int]
    """Part id -> seq of its message."""
    _asking: dict[int, None]
    """Seqs of questions the agent waits on."""
    _aborted: set[str]
    _errors: set[str]
    _limits: dict[tuple[str, str | None], RateLimit]
    """The latest snapshot of each limit failed requests reported."""
    _rejected: set[str]
    _usage: dict[str, Usage]
    """Per assistant message, as counted."""
    _message_usage: dict[str, Usage]
    _steps: dict[str, dict[str, Usage]]
    _costs: dict[str, Decimal]
    _step_reasons: dict[str, str]
    _first_of: dict[str, int]
    """Message id -> seq of its first shown part."""
    _durations: dict[str, int]
    _compactions: dict[str, int]
    """Compaction request message -> seq of its note."""
    _children: dict[str, Any]
    """Sub-agents' readers by session id."""
    _child_done: set[str]
    _state: State
    _model: str | None
    _facts: dict[str, Any]

    @abstractmethod
    def _child(self, agent_id: str, call_id: str) -> None:
        """Start reading the sub-agent ``agent_id`` that the call ``call_id`` runs."""

    @abstractmethod
    def _mirror(self, agent_id: str) -> None:
        """Read one sub-agent's session on and show what changed in it."""

    def _session_facts(self, info: dict[str, Any]) -> None:
        for fact, key in (("cwd", "directory"), ("cli_version", "version")):
            value = info.get(key)
            self._facts[fact] = value if isinstance(value, str) else None
        self._facts["started_at"] = stamp(as_dict(info.get("time")).get("created"))

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
        for limit in api_error_limits(data, when):
            self._limits[limit.key] = limit

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
        elif part.get("tool") == _compat.PLAN_EXIT_TOOL:
            fields.update(plan_fields(tool))
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
