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
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..._answers import describe_answers
from ...schema import (
    Dialog,
    LifecycleLevel,
    Message,
    ModelUsage,
    SessionSummary,
    State,
    ToolCall,
    Usage,
)
from .._seam import ReadResult, TranscriptReader, TranscriptRef
from . import _compat
from ._dialogs import question_dialog, recorded_answers
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
        self._source: str | None = None  # "events", "rows" or "legacy", once known
        self._since = 0  # rows: the newest time_updated read
        self._stored: dict[tuple[str, str], str] = {}  # rows and files: the data applied
        self._files: dict[Path, tuple[int, int]] = {}  # legacy: file keys read
        self._orphans: dict[str, list[dict[str, Any]]] = {}  # parts read before their message
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
        self._costs: dict[str, float] = {}
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
        models: dict[str, tuple[Usage, int]] = {}
        for msg_id, usage in self._usage.items():
            name = str(self._infos.get(msg_id, {}).get("modelID") or "unknown")
            before, requests = models.get(name, (Usage(), 0))
            models[name] = (before + usage, requests + max(1, len(self._steps.get(msg_id, {}))))
        return SessionSummary(
            **self._facts,
            model=self._model,
            usage=sum((u for u, _ in models.values()), Usage()),
            models=[
                ModelUsage(model=name, usage=usage, requests=requests)
                for name, (usage, requests) in models.items()
            ],
            vendor_cost_usd=round(sum(self._costs.values()), 9) if self._costs else None,
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
        changed = self.messages if rewritten else [self._messages[s] for s in sorted(self._changed)]
        self._changed = {}
        return ReadResult(changed=changed, reset=rewritten)

    def _detect(self) -> str | None:
        """Where this session's history is: its event log, the store's rows, or legacy
        files; ``None`` while none holds anything yet (decided on a later read).
        """
        if self.ref.path.suffix == ".json":
            info = _load(self.ref.path)
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
        self._facts["started_at"] = _stamp(_dict(info.get("time")).get("created"))

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
        usage = _usage(info.get("tokens"))
        if usage is not None and usage.total:
            # Billed even when the message then failed or was stopped.
            self._message_usage[msg_id] = usage
            self._count_usage(msg_id)
        cost = info.get("cost")
        if isinstance(cost, int | float) and not isinstance(cost, bool):
            self._costs[msg_id] = float(cost)
        error = info.get("error")
        if isinstance(error, dict):
            self._error(msg_id, error, updated)
            return
        completed = times.get("completed")
        if completed is None:
            self._state = "working"
            return
        if info.get("finish") == _compat.TOOL_CALLS_FINISH and msg_id not in self._rejected:
            self._state = "working"
            return
        self._state = "idle"
        parent = self._infos.get(str(info.get("parentID")))
        started = _dict((parent or {}).get("time")).get("created")
        if isinstance(started, int) and isinstance(completed, int):
            self._durations[str(info.get("parentID"))] = max(0, completed - started)

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
            text = str(part.get("text") or "").strip()
            hidden = not text and _hidden_reasoning(part.get("metadata"))
            if text or hidden or part_id in self._parts:
                fields = {
                    "kind": "text",
                    "role": "assistant",
                    "text": text,
                    "thinking": True,
                    "redacted": hidden,
                    "model": self._model,
                }
        elif kind == "step-finish" and role == "assistant":
            usage = _usage(part.get("tokens"))
            if usage is not None:
                self._steps.setdefault(msg_id, {})[part_id] = usage
                self._count_usage(msg_id)
        elif kind == "tool":
            state = _dict(part.get("state"))
            if _rejected(str(state.get("error") or "")):
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
            first = role == "assistant" and msg_id not in self._first_of
            usage = self._usage.get(msg_id) if first else None
            message = self._add(native_id=msg_id, timestamp=when, usage=usage, **fields)
            self._parts[part_id] = seq = message.seq
            if first:
                self._first_of[msg_id] = seq
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
            if _rejected(output):
                output = f"{output} (rejected)"
        return ToolCall(
            id=str(part.get("callID") or part.get("id")),
            name=str(part.get("tool") or "tool"),
            input=raw_input if isinstance(raw_input, dict) else {},
            status=result,
            output=output,
        )


def _hidden_reasoning(metadata: Any) -> bool:
    """Whether a reasoning part's provider metadata says the reasoning was kept only
    encrypted or redacted (``anthropic.redactedData``, ``openai.reasoningEncryptedContent``).

    Examples
    --------
    >>> _hidden_reasoning({"anthropic": {"redactedData": "Zm9v"}})
    True
    >>> _hidden_reasoning({"anthropic": {"signature": "c2ln"}})
    False
    """
    for provider in _dict(metadata).values():
        for key in _compat.HIDDEN_REASONING_KEYS:
            if _dict(provider).get(key):
                return True
    return False


def _rejected(error: str) -> bool:
    return any(marker in error for marker in _compat.REJECTED_ERRORS)


def _load(path: Path) -> dict[str, Any] | None:
    try:
        value = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def apply_events(ref: TranscriptRef, rows: list[EventRow]) -> OpenCodeTranscriptReader:
    """A reader that has applied ``rows`` (for previews and tests)."""
    reader = OpenCodeTranscriptReader(ref)
    reader.apply(rows)
    return reader
