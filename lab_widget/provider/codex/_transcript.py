"""Codex CLI's rollout files: where they live and how their lines map to the universal schema.

Grammar pinned to Codex 0.171.0 (see ``_compat.py``); fixtures recorded from that version
by ``scripts/record_codex_fixtures.py`` live in ``tests/fixtures/codex/``.

A rollout line is ``{"timestamp", "ordinal", "type", "payload"}``. Conversation content is
in ``response_item`` lines (the model's input/output items); lifecycle is in ``event_msg``
lines (``task_started``, ``task_complete``, ``turn_aborted``, ``token_count``). Codex also
writes ``item_completed`` events that repeat the items: they are skipped.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from pathlib import Path
from typing import Any

from ...schema import LifecycleLevel, Message, SessionSummary, State, ToolCall, Usage
from .._jsonl import CorruptLine, JsonlTail, Line
from .._seam import ReadResult, TranscriptReader, TranscriptRef
from . import _compat

__all__ = [
    "CodexTranscriptReader",
    "peek_rollout",
    "pending_rollout",
    "read_meta",
    "rollouts",
]

_EXIT_CODE = re.compile(_compat.EXIT_CODE)
_PEEK_BYTES = 1 << 20
_PENDING = "rollout-pending-"


def pending_rollout(sessions: Path, thread_id: str) -> Path:
    """A stand-in path for a thread whose rollout does not exist yet.

    Codex names a rollout by the thread's start time, which is known only once the file
    exists; a reader opened on this path finds the real file by the thread id.

    Examples
    --------
    >>> pending_rollout(Path("/h/sessions"), "abc")
    PosixPath('/h/sessions/rollout-pending-abc.jsonl')
    """
    return sessions / f"{_PENDING}{thread_id}.jsonl"


def _resolve_pending(path: Path) -> Path | None:
    if not path.name.startswith(_PENDING):
        return path
    thread_id = path.name[len(_PENDING) : -len(".jsonl")]
    found = sorted(path.parent.glob(f"*/*/*/rollout-*-{thread_id}.jsonl"))
    return found[0] if found else None


def _timestamp(line: dict[str, Any]) -> datetime | None:
    value = line.get("timestamp")
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None


def _texts(content: Any) -> str:
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return "\n".join(
        str(part.get("text", ""))
        for part in content
        if isinstance(part, dict) and part.get("type") in ("input_text", "output_text", "text")
    )


def is_context(text: str) -> bool:
    r"""Whether a user-role message is Codex's own context rather than the user's words.

    Examples
    --------
    >>> is_context("<environment_context>\n  <cwd>/w</cwd>"), is_context("hello")
    (True, False)
    """
    return text.lstrip().startswith(_compat.CONTEXT_PREFIXES)


def _usage(raw: Any) -> Usage | None:
    if not isinstance(raw, dict):
        return None
    cached = int(raw.get("cached_input_tokens") or 0)
    return Usage(
        # Codex counts cached tokens inside input_tokens; the schema keeps them apart.
        input_tokens=max(0, int(raw.get("input_tokens") or 0) - cached),
        output_tokens=int(raw.get("output_tokens") or 0),
        cache_read_tokens=cached,
        cache_write_tokens=int(raw.get("cache_write_input_tokens") or 0),
    )


def _arguments(raw: Any) -> dict[str, object]:
    if isinstance(raw, dict):
        return raw
    try:
        value = json.loads(raw) if isinstance(raw, str) else None
    except ValueError:
        return {"arguments": raw}
    return value if isinstance(value, dict) else {"arguments": raw}


def _output_text(raw: Any) -> str:
    if isinstance(raw, str):
        return raw
    if isinstance(raw, list):
        return _texts(raw)
    if isinstance(raw, dict):
        return str(raw.get("content") or raw.get("output") or json.dumps(raw))
    return "" if raw is None else str(raw)


def _tool_failed(output: str) -> bool:
    match = _EXIT_CODE.search(output)
    if match is not None:
        return match.group(1) != "0"
    return output.lstrip().lower().startswith(("rejected", "aborted", "error"))


class CodexTranscriptReader(TranscriptReader):
    """Maps one Codex rollout into messages, incrementally.

    State: ``working`` from ``task_started`` until ``task_complete`` or ``turn_aborted``.

    ``clear_echo`` starts the epoch with the ``/new`` that opened it: Codex records the
    command nowhere, so the reader synthesises its echo.
    """

    def __init__(self, ref: TranscriptRef, clear_echo: str | None = None) -> None:
        self.ref = ref
        self._clear_echo = clear_echo
        self._path = _resolve_pending(ref.path)
        self._tail = JsonlTail(self._path or ref.path)
        self._reset()

    def _reset(self) -> None:
        self._messages: list[Message] = []
        self._tool_seq: dict[str, int] = {}
        self._state: State = "idle"
        self._facts: dict[str, Any] = {"transcript_id": self.ref.transcript_id}
        self._turn_durations: list[int] = []
        self._usage_total = Usage()
        self._model: str | None = None
        self._since_usage: list[int] = []
        self._changed: dict[int, None] = {}
        if self._clear_echo:
            self._add(kind="text", role="user", text=self._clear_echo, command=self._clear_echo)

    # -- TranscriptReader --------------------------------------------------------------

    @property
    def messages(self) -> list[Message]:
        return list(self._messages)

    @property
    def state(self) -> State:
        return self._state

    @property
    def summary(self) -> SessionSummary:
        return SessionSummary(
            **self._facts, usage=self._usage_total, turn_durations_ms=list(self._turn_durations)
        )

    @property
    def path(self) -> Path | None:
        """The rollout read, once it exists (a new thread has none before its first message)."""
        return self._path

    def read(self) -> ReadResult:
        if self._path is None:
            self._path = _resolve_pending(self.ref.path)
            if self._path is None:
                changed = [self._messages[s] for s in sorted(self._changed)]
                self._changed = {}
                return ReadResult(changed=changed)
            self._tail = JsonlTail(self._path)
        items = self._tail.read_iter()
        reset = self._tail.rewound
        if reset:
            self._reset()
        # Not cleared here: a new epoch's synthesised echo is a change of its first read.
        for item in items:
            if isinstance(item, CorruptLine):
                self._lifecycle(
                    f"Skipped unreadable transcript line {item.number}: {item.error}",
                    "warning",
                    None,
                )
            elif isinstance(item.value, dict):
                self._line(item)
        changed = self.messages if reset else [self._messages[s] for s in sorted(self._changed)]
        self._changed = {}
        return ReadResult(changed=changed, reset=reset)

    # -- mapping -----------------------------------------------------------------------

    def _add(self, **fields: Any) -> Message:
        message = Message(seq=len(self._messages), **fields)
        self._messages.append(message)
        self._changed[message.seq] = None
        if message.role == "assistant":
            self._since_usage.append(message.seq)
        return message

    def _replace(self, message: Message) -> None:
        self._messages[message.seq] = message
        self._changed[message.seq] = None

    def _lifecycle(self, text: str, level: LifecycleLevel, line: dict[str, Any] | None) -> None:
        self._add(
            kind="lifecycle",
            role="system",
            text=text,
            level=level,
            timestamp=_timestamp(line) if line else None,
        )

    def _line(self, item: Line) -> None:
        line: dict[str, Any] = item.value
        kind = line.get("type")
        payload = line.get("payload")
        if not isinstance(payload, dict):
            return
        if kind == "session_meta":
            self._session_meta(payload, line)
        elif kind == "turn_context":
            model = payload.get("model")
            if isinstance(model, str):
                self._model = model
                self._facts.setdefault("model_requested", model)
        elif kind == "response_item":
            self._response_item(payload, line)
        elif kind == "event_msg":
            self._event(payload, line)
        elif kind == "compacted":
            self._lifecycle("Conversation compacted", "info", line)
        stamp = _timestamp(line)
        if stamp is not None:
            self._facts["updated_at"] = stamp

    def _session_meta(self, payload: dict[str, Any], line: dict[str, Any]) -> None:
        self._facts["cwd"] = payload.get("cwd")
        self._facts["cli_version"] = payload.get("cli_version")
        started = _timestamp({"timestamp": payload.get("timestamp")}) or _timestamp(line)
        self._facts["started_at"] = started
        git = payload.get("git")
        if isinstance(git, dict) and isinstance(git.get("branch"), str):
            self._facts["branch"] = git["branch"]

    def _response_item(self, payload: dict[str, Any], line: dict[str, Any]) -> None:
        kind = payload.get("type")
        stamp = _timestamp(line)
        if kind == "message":
            role = payload.get("role")
            text = _texts(payload.get("content"))
            if role == "user" and text and not is_context(text):
                self._add(
                    kind="text",
                    role="user",
                    text=text,
                    native_id=payload.get("id"),
                    timestamp=stamp,
                )
            elif role == "assistant" and text:
                self._add(
                    kind="text",
                    role="assistant",
                    text=text,
                    native_id=payload.get("id"),
                    timestamp=stamp,
                    model=self._model,
                )
        elif kind == "reasoning":
            summary = payload.get("summary")
            parts = [
                str(p.get("text", ""))
                for p in (summary if isinstance(summary, list) else [])
                if isinstance(p, dict)
            ]
            text = "\n\n".join(p for p in parts if p)
            if text:
                # Shown as a quiet note: a reasoning summary is not part of the answer.
                self._add(
                    kind="lifecycle",
                    role="assistant",
                    level="info",
                    text=text,
                    native_id=payload.get("id"),
                    timestamp=stamp,
                    model=self._model,
                )
        elif kind in ("function_call", "custom_tool_call", "local_shell_call"):
            call_id = str(payload.get("call_id") or payload.get("id") or "")
            raw = payload.get("arguments") if kind == "function_call" else payload.get("input")
            if kind == "local_shell_call":
                raw = payload.get("action")
            tool = ToolCall(
                id=call_id,
                name=str(payload.get("name") or kind),
                input=_arguments(raw) if kind != "custom_tool_call" else {"input": raw},
            )
            message = self._add(
                kind="tool",
                role="assistant",
                tool=tool,
                native_id=payload.get("id"),
                timestamp=stamp,
                model=self._model,
            )
            self._tool_seq[call_id] = message.seq
        elif kind in ("function_call_output", "custom_tool_call_output"):
            call_id = str(payload.get("call_id") or "")
            seq = self._tool_seq.get(call_id)
            output = _output_text(payload.get("output"))
            if seq is None:
                return  # an output whose call this epoch never saw (a resumed thread)
            message = self._messages[seq]
            assert message.tool is not None
            status = "error" if _tool_failed(output) else "ok"
            if output.rstrip().endswith(_compat.DECLINED_OUTPUT):
                status, output = "error", f"{output.rstrip()} (rejected)"
            tool = message.tool.model_copy(update={"status": status, "output": output})
            self._replace(message.model_copy(update={"tool": tool}))

    def _event(self, payload: dict[str, Any], line: dict[str, Any]) -> None:
        kind = payload.get("type")
        if kind == "task_started":
            self._state = "working"
        elif kind == "task_complete":
            self._state = "idle"
            duration = payload.get("duration_ms")
            if isinstance(duration, int) and not isinstance(duration, bool):
                self._turn_durations.append(duration)
        elif kind == "turn_aborted":
            self._state = "idle"
            self._close_running("aborted")
            self._lifecycle("Interrupted", "info", line)
        elif kind == "token_count":
            self._token_count(payload)
        elif kind == "context_compacted":
            self._lifecycle("Conversation compacted", "info", line)
        elif kind == "error":
            self._lifecycle(str(payload.get("message") or "Error"), "error", line)

    def _close_running(self, why: str) -> None:
        for seq in self._tool_seq.values():
            message = self._messages[seq]
            if message.tool is not None and message.tool.status == "running":
                tool = message.tool.model_copy(update={"status": "error", "output": why})
                self._replace(message.model_copy(update={"tool": tool}))

    def _token_count(self, payload: dict[str, Any]) -> None:
        info = payload.get("info")
        if not isinstance(info, dict):
            return
        total = _usage(info.get("total_token_usage"))
        if total is not None:
            self._usage_total = total
        last = _usage(info.get("last_token_usage"))
        if last is not None:
            self._facts["context_tokens"] = last.input_tokens + last.cache_read_tokens
            # The usage belongs to the response just recorded: put it on its last message.
            for seq in reversed(self._since_usage):
                message = self._messages[seq]
                if message.kind in ("text", "tool") and message.usage is None:
                    self._replace(message.model_copy(update={"usage": last}))
                    break
        self._since_usage = []
        if self._model is not None:
            self._facts["model"] = self._model


def read_meta(path: Path) -> dict[str, Any] | None:
    """The ``session_meta`` payload of a rollout (its first line), if readable."""
    try:
        with path.open("rb") as f:
            first = f.readline(_PEEK_BYTES)
    except OSError:
        return None
    try:
        line = json.loads(first)
    except ValueError:
        return None
    if isinstance(line, dict) and line.get("type") == "session_meta":
        payload = line.get("payload")
        return payload if isinstance(payload, dict) else None
    return None


def rollouts(sessions: Path) -> list[Path]:
    """Every rollout under a ``sessions`` folder (``YYYY/MM/DD/rollout-*.jsonl``)."""
    try:
        return sorted(sessions.glob("*/*/*/rollout-*.jsonl"))
    except OSError:
        return []


def peek_rollout(path: Path) -> tuple[str | None, str | None]:
    """``(first user prompt, model)`` from a bounded prefix of a rollout."""
    prompt: str | None = None
    model: str | None = None
    try:
        with path.open("rb") as f:
            data = f.read(_PEEK_BYTES)
    except OSError:
        return None, None
    for raw in data.splitlines():
        try:
            line = json.loads(raw)
        except ValueError:
            continue
        payload = line.get("payload") if isinstance(line, dict) else None
        if not isinstance(payload, dict):
            continue
        if line.get("type") == "turn_context" and model is None:
            model = payload.get("model") if isinstance(payload.get("model"), str) else None
        if (
            prompt is None
            and line.get("type") == "response_item"
            and payload.get("type") == "message"
            and payload.get("role") == "user"
        ):
            text = _texts(payload.get("content"))
            if text and not is_context(text):
                prompt = text
        if prompt is not None and model is not None:
            break
    return prompt, model
