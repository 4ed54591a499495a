"""OpenCode's session event log mapped to the universal schema, incrementally.

Grammar pinned to OpenCode 1.18.33 (see ``_compat.py``); fixtures recorded from that
version by ``scripts/record_opencode_fixtures.py`` live in ``tests/fixtures/opencode/`` as
JSON lines, one ``event`` row each (``{"seq", "id", "type", "data"}``, ``data`` the stored
JSON text).

``message.updated`` carries a message's whole info and ``message.part.updated`` a part's
whole state, each re-sent on every change: the reader keeps one universal message per
text, reasoning or tool part and replaces it (same ``seq``) as the part grows.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from ..._answers import describe_answers
from ...schema import (
    Dialog,
    LifecycleLevel,
    Message,
    SessionSummary,
    State,
    ToolCall,
    Usage,
)
from .._seam import ReadResult, TranscriptReader, TranscriptRef
from . import _compat
from ._dialogs import question_dialog, recorded_answers
from ._store import EventRow, read_events

__all__ = ["OpenCodeTranscriptReader", "apply_events"]


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _stamp(ms: Any) -> datetime | None:
    if isinstance(ms, bool) or not isinstance(ms, int | float):
        return None
    try:
        return datetime.fromtimestamp(ms / 1000, tz=UTC)
    except (OverflowError, OSError, ValueError):
        return None


def _usage(tokens: Any) -> Usage | None:
    if not isinstance(tokens, dict):
        return None
    cache = _dict(tokens.get("cache"))

    def n(value: Any) -> int:
        return value if isinstance(value, int) and not isinstance(value, bool) else 0

    return Usage(
        input_tokens=n(tokens.get("input")),
        output_tokens=n(tokens.get("output")) + n(tokens.get("reasoning")),
        cache_read_tokens=n(cache.get("read")),
        cache_write_tokens=n(cache.get("write")),
    )


class OpenCodeTranscriptReader(TranscriptReader):
    """Maps one OpenCode session (``ref.transcript_id``) of the store at ``ref.path``.

    State: ``working`` from a new user message until its last assistant message completes
    (one that finished with tool calls is followed by another), or is aborted.

    ``clear_echo`` starts the epoch with the ``/new`` that opened it: OpenCode records the
    command nowhere, so the reader synthesises its echo.
    """

    def __init__(self, ref: TranscriptRef, clear_echo: str | None = None) -> None:
        self.ref = ref
        self._clear_echo = clear_echo
        self._reset()

    def _reset(self) -> None:
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
        self._usage: dict[str, Usage] = {}
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
        total = Usage()
        for usage in self._usage.values():
            total = Usage(
                input_tokens=total.input_tokens + usage.input_tokens,
                output_tokens=total.output_tokens + usage.output_tokens,
                cache_read_tokens=total.cache_read_tokens + usage.cache_read_tokens,
                cache_write_tokens=total.cache_write_tokens + usage.cache_write_tokens,
            )
        return SessionSummary(
            **self._facts,
            model=self._model,
            usage=total,
            turn_durations_ms=list(self._durations.values()),
        )

    def read(self) -> ReadResult:
        rows, rewritten = read_events(
            self.ref.path, self.ref.transcript_id, self._last[0] if self._last else -1, self._last
        )
        if rewritten:
            self._reset()
        self.apply(rows)
        changed = self.messages if rewritten else [self._messages[s] for s in sorted(self._changed)]
        self._changed = {}
        return ReadResult(changed=changed, reset=rewritten)

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
                for fact, key in (("cwd", "directory"), ("cli_version", "version")):
                    value = info.get(key)
                    self._facts[fact] = value if isinstance(value, str) else None
                self._facts["started_at"] = _stamp(_dict(info.get("time")).get("created"))

    def _message(self, info: dict[str, Any]) -> None:
        msg_id = str(info["id"])
        role = info.get("role")
        first = msg_id not in self._roles
        self._roles[msg_id] = str(role)
        self._infos[msg_id] = info
        times = _dict(info.get("time"))
        updated = _stamp(times.get("completed") or times.get("created"))
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
        error = info.get("error")
        if isinstance(error, dict):
            self._error(msg_id, error, updated)
            return
        completed = times.get("completed")
        if completed is None:
            self._state = "working"
            return
        usage = _usage(info.get("tokens"))
        if usage is not None:
            self._usage[msg_id] = usage
            self._facts["context_tokens"] = usage.input_tokens + usage.cache_read_tokens
            self._put_usage(msg_id, usage)
        if info.get("finish") == _compat.TOOL_CALLS_FINISH and msg_id not in self._rejected:
            self._state = "working"
            return
        self._state = "idle"
        parent = self._infos.get(str(info.get("parentID")))
        started = _dict((parent or {}).get("time")).get("created")
        if isinstance(started, int) and isinstance(completed, int):
            self._durations[str(info.get("parentID"))] = max(0, completed - started)

    def _put_usage(self, msg_id: str, usage: Usage) -> None:
        # The usage belongs to the message's last answer part.
        for seq in sorted(self._parts.values(), reverse=True):
            message = self._messages[seq]
            if message.native_id == msg_id and message.kind in ("text", "tool"):
                self._replace(message.model_copy(update={"usage": usage}))
                return

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
        data = _dict(error.get("data"))
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
        kind = part.get("type")
        info = self._infos.get(msg_id, {})
        when = _stamp(_dict(info.get("time")).get("created"))
        fields: dict[str, Any] | None = None
        if kind == "text" and role == "user":
            text = str(part.get("text") or "")
            if text and not part.get("synthetic"):
                fields = {"kind": "text", "role": "user", "text": text}
        elif kind == "text" and role == "assistant":
            text = str(part.get("text") or "")
            if text or part_id in self._parts:
                fields = {"kind": "text", "role": "assistant", "text": text, "model": self._model}
        elif kind == "reasoning" and role == "assistant":
            text = str(part.get("text") or "")
            if text or part_id in self._parts:
                # A quiet note: reasoning is not part of the answer.
                fields = {
                    "kind": "lifecycle",
                    "role": "assistant",
                    "level": "info",
                    "text": text,
                    "model": self._model,
                }
        elif kind == "tool":
            state = _dict(part.get("state"))
            if _compat.REJECTED_ERROR in str(state.get("error") or ""):
                self._rejected.add(msg_id)
            fields = {
                "kind": "tool",
                "role": "assistant",
                "tool": self._tool(part),
                "model": self._model,
            }
            if part.get("tool") == _compat.QUESTION_TOOL:
                fields.update(self._question(state, fields["tool"]))
        if fields is None:
            return
        seq = self._parts.get(part_id)
        if seq is None:
            message = self._add(native_id=msg_id, timestamp=when, **fields)
            self._parts[part_id] = seq = message.seq
        else:
            old = self._messages[seq]
            self._replace(old.model_copy(update=dict(fields, usage=old.usage)))
        if fields.get("dialog") is not None and fields["dialog"].status == "pending":
            self._asking[seq] = None
        else:
            self._asking.pop(seq, None)

    @staticmethod
    def _question(state: dict[str, Any], tool: ToolCall) -> dict[str, Any]:
        """A question tool's part as a dialog, once its questions are known."""
        dialog = question_dialog(state.get("input"), tool.id)
        if not dialog.questions:
            return {}
        if tool.status == "ok":
            answers = recorded_answers(dialog, state.get("metadata"))
            outcome = describe_answers(dialog, answers or [])
            dialog = dialog.model_copy(
                update={"status": "answered", "answers": answers, "outcome": outcome}
            )
        elif tool.status == "error":
            dialog = dialog.model_copy(update={"status": "dismissed", "outcome": "dismissed"})
        return {"kind": "dialog", "dialog": dialog}

    @staticmethod
    def _tool(part: dict[str, Any]) -> ToolCall:
        state = _dict(part.get("state"))
        raw_input = state.get("input")
        status = state.get("status")
        output: str | None = None
        result = "running"
        if status == "completed":
            output = str(state.get("output") or "")
            metadata = _dict(state.get("metadata"))
            code = metadata.get("exit")
            result = "error" if isinstance(code, int) and code != 0 else "ok"
        elif status == "error":
            output = str(state.get("error") or "error")
            result = "error"
            if _compat.REJECTED_ERROR in output:
                output = f"{output} (rejected)"
        return ToolCall(
            id=str(part.get("callID") or part.get("id")),
            name=str(part.get("tool") or "tool"),
            input=raw_input if isinstance(raw_input, dict) else {},
            status=result,
            output=output,
        )


def apply_events(ref: TranscriptRef, rows: list[EventRow]) -> OpenCodeTranscriptReader:
    """A reader that has applied ``rows`` (for previews and tests)."""
    reader = OpenCodeTranscriptReader(ref)
    reader.apply(rows)
    return reader
