"""Gemini CLI's session files: how their lines map to the universal schema.

Grammar pinned to Gemini CLI 0.61.0 (see ``_compat.py``); fixtures recorded from that
version by ``scripts/record_gemini_fixtures.py`` live in ``tests/fixtures/gemini/``.

A session file is an event log. Line 1 is the session's metadata (``sessionId``,
``startTime``...). A line with a string ``id`` is a message record; a later record with
the same ``id`` replaces the earlier one (a model response is re-appended once its tool
calls finish). ``{"$set": {...}}`` updates metadata; ``$set.messages`` replaces the whole
message list. ``{"$rewindTo": id}`` drops that message and everything after it.

Gemini CLI rewrites the message list when it rolls a cancelled turn back: the records of
that turn vanish from its history, and a declined tool call makes it write the remaining
history again as copies under new ids first. The chat keeps showing what the user saw
happen: a rewrite never removes a shown record, and the copies appended after the first
record it dropped are not shown twice. ``$rewindTo`` (``/rewind``) does cut the chat.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from pathlib import Path
from typing import Any

from ...schema import (
    AgentScope,
    LifecycleLevel,
    Message,
    ModelUsage,
    SessionSummary,
    State,
    ToolCall,
    Usage,
)
from .._jsonl import CorruptLine, JsonlTail
from .._seam import ReadResult, TranscriptReader, TranscriptRef
from . import _compat
from ._signals import approval_dialog, confirmation_id, confirmations

__all__ = [
    "GeminiTranscriptReader",
    "is_context",
    "is_document",
    "peek_session",
    "read_header",
    "thinking",
    "tool_output",
]

_EXIT_CODE = re.compile(_compat.EXIT_CODE)
_PROCESS_GROUP = re.compile(_compat.PROCESS_GROUP)
_LEGACY_SHELL = re.compile(_compat.LEGACY_SHELL_OUTPUT, re.DOTALL)
_PEEK_BYTES = 1 << 20
_HEAD_BYTES = 1 << 12
_FINAL_TOOL = {"success": "ok", "error": "error", "cancelled": "error"}
_LEVELS: dict[str, LifecycleLevel] = {"info": "info", "warning": "warning", "error": "error"}
_TURN_EVENTS = ("BeforeAgent", "AfterAgent")
_NOTE = "\x00note"
"""The type of a stand-in record for an unreadable line (no real id or type starts so)."""


def _timestamp(value: Any) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None


def is_context(text: str) -> bool:
    r"""Whether a user text part is Gemini CLI's own context rather than the user's words.

    Examples
    --------
    >>> is_context("<session_context>\nThis is the Gemini CLI."), is_context("hi")
    (True, False)
    """
    return text.lstrip().startswith(_compat.CONTEXT_PREFIXES)


def _texts(content: Any) -> str:
    """The text of a record's ``content`` (a string or a list of parts), context left out."""
    if isinstance(content, str):
        return "" if is_context(content) else content
    if not isinstance(content, list):
        return ""
    return "\n".join(
        str(p["text"])
        for p in content
        if isinstance(p, dict)
        and isinstance(p.get("text"), str)
        and not p.get("thought")
        and not is_context(str(p["text"]))
    )


def tool_output(result: Any) -> str:
    r"""The text of a tool call's ``result`` (``functionResponse`` parts), unwrapped.

    Examples
    --------
    >>> raw = "<untrusted_context>\nOutput: hi\nProcess Group PGID: 7\n</untrusted_context>"
    >>> tool_output([{"functionResponse": {"response": {"output": raw}}}])
    'hi'
    >>> tool_output([{"functionResponse": {"response": {"error": "denied"}}}])
    'denied'
    >>> old = "Command: ls x\nDirectory: .\nOutput: (empty)\nError: no x\nExit Code: 2\nSignal: 0\n"
    >>> tool_output([{"functionResponse": {"response": {"output": old}}}])
    'no x\nExit Code: 2'
    """
    texts: list[str] = []
    for part in result if isinstance(result, list) else []:
        response = (
            part.get("functionResponse", {}).get("response") if isinstance(part, dict) else None
        )
        if not isinstance(response, dict):
            continue
        value = response.get("output", response.get("error"))
        text = value if isinstance(value, str) else json.dumps(value)
        head, tail = _compat.OUTPUT_WRAPPER
        if text.startswith(head) and text.endswith(tail):
            text = text[len(head) : -len(tail)]
        legacy = _LEGACY_SHELL.match(text)
        if legacy is not None:
            text = _legacy_shell(legacy)
        if text.startswith("Output: "):
            text = text[len("Output: ") :]
        text = _PROCESS_GROUP.sub("", text).rstrip("\n")
        texts.append("" if text in _compat.LEGACY_EMPTY else text)
    return "\n".join(texts)


def _legacy_shell(match: re.Match[str]) -> str:
    """The text of an older version's shell result: its output and error, and the exit
    code when it is not 0 (as the current format keeps it, so it marks the call failed).
    """
    lines = [
        match.group(name)
        for name in ("output", "error")
        if match.group(name).strip() not in _compat.LEGACY_EMPTY
    ]
    code = match.group("code").strip()
    if code not in ("0", *_compat.LEGACY_EMPTY):
        lines.append(f"Exit Code: {code}")
    return "\n".join(lines)


def thinking(record: dict[str, Any]) -> list[str]:
    r"""The reasoning a model response carries, one text per thought, before its answer.

    Gemini CLI keeps a response's thoughts as ``thoughts`` (``subject`` and ``description``,
    parsed from the thought's ``**subject**`` heading); a thought part left in ``content``
    counts too. A thought part without text (only its signature kept) is hidden reasoning:
    an empty text, shown as hidden, never dropped.

    Examples
    --------
    >>> thinking({"thoughts": [{"subject": "Plan", "description": "Run ls."}]})
    ['**Plan**\n\nRun ls.']
    >>> thinking({"content": [{"thought": True, "thoughtSignature": "c2ln"}, {"text": "hi"}]})
    ['']
    """
    found: list[str] = []
    thoughts = record.get("thoughts")
    for thought in thoughts if isinstance(thoughts, list) else []:
        if not isinstance(thought, dict):
            continue
        subject = str(thought.get("subject") or "").strip()
        description = str(thought.get("description") or "").strip()
        text = "\n\n".join(x for x in (f"**{subject}**" if subject else "", description) if x)
        if text:
            found.append(text)
    content = record.get("content")
    for part in content if isinstance(content, list) else []:
        if isinstance(part, dict) and part.get("thought"):
            raw = part.get("text")
            found.append(raw.strip() if isinstance(raw, str) else "")
    return found


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def _usage(tokens: Any) -> Usage | None:
    """A record's ``tokens`` as billed: cached tokens apart from the rest of the input, the
    tool-use prompt as input, thoughts as output.

    Examples
    --------
    >>> u = _usage({"input": 1000, "output": 50, "cached": 400, "thoughts": 20, "tool": 7})
    >>> (u.input_tokens, u.output_tokens, u.cache_read_tokens, u.total)
    (607, 70, 400, 1077)
    """
    if not isinstance(tokens, dict):
        return None
    cached = _count(tokens.get("cached"))
    return Usage(
        # Gemini counts cached tokens inside the prompt's; the schema keeps them apart.
        input_tokens=max(0, _count(tokens.get("input")) - cached) + _count(tokens.get("tool")),
        output_tokens=_count(tokens.get("output")) + _count(tokens.get("thoughts")),
        cache_read_tokens=cached,
    )


class ModelTally:
    """Usage summed per model and scope, each response counted as one request.

    Examples
    --------
    >>> t = ModelTally()
    >>> t.add("m", "main", Usage(output_tokens=2)); t.add("m", "main", Usage(output_tokens=3))
    >>> [(m.model, m.scope, m.requests, m.usage.output_tokens) for m in t.breakdown()]
    [('m', 'main', 2, 5)]
    """

    def __init__(self) -> None:
        self._found: dict[tuple[str, AgentScope], tuple[Usage, int]] = {}

    def add(self, model: str | None, scope: AgentScope, usage: Usage) -> None:
        key = (model or "unknown", scope)
        before, requests = self._found.get(key, (Usage(), 0))
        self._found[key] = (before + usage, requests + 1)

    def total(self) -> Usage:
        return sum((usage for usage, _ in self._found.values()), Usage())

    def breakdown(self) -> list[ModelUsage]:
        return [
            ModelUsage(model=model, scope=scope, usage=usage, requests=requests)
            for (model, scope), (usage, requests) in self._found.items()
        ]


def _is_user_prompt(record: dict[str, Any]) -> bool:
    return record.get("type") == "user" and bool(_texts(record.get("content")))


def turn_state(signals: list[dict[str, Any]], session_id: str) -> State | None:
    """``working`` between a turn's BeforeAgent and AfterAgent hooks, else ``idle``.

    ``None`` when the spool holds no turn of this session.

    Examples
    --------
    >>> turn_state([{"hook_event_name": "BeforeAgent", "session_id": "s"}], "s")
    'working'
    >>> turn_state([{"hook_event_name": "BeforeAgent", "session_id": "t"}], "s") is None
    True
    """
    for record in reversed(signals):
        event = record.get("hook_event_name")
        if event in _TURN_EVENTS and record.get("session_id") == session_id:
            return "working" if event == "BeforeAgent" else "idle"
    return None


class GeminiTranscriptReader(TranscriptReader):
    """Maps one Gemini CLI session file into messages, incrementally.

    State: from the transcript alone, ``working`` after a user prompt or a finished tool
    call, ``idle`` after a model reply without tool calls or a cancellation. A model reply
    that is about to call tools is written before its calls, so when ``turn_signals`` gives
    the run's hook records the turn hooks decide instead.

    ``clear_echo`` starts the epoch with the ``/clear`` that opened it: Gemini CLI records
    the command nowhere, so the reader synthesises its echo.
    """

    def __init__(
        self,
        ref: TranscriptRef,
        clear_echo: str | None = None,
        turn_signals: Any = None,
    ) -> None:
        self.ref = ref
        self._clear_echo = clear_echo
        self._turn_signals = turn_signals
        self._tail = JsonlTail(ref.path)
        self._reset()

    def _reset(self) -> None:
        self._document: bool | None = None
        self._document_key: tuple[int, int, int] | None = None
        self._records: list[dict[str, Any]] = []
        self._index: dict[str, int] = {}
        self._first_seq: list[int] = []
        self._messages: list[Message] = []
        self._facts: dict[str, Any] = {"transcript_id": self.ref.transcript_id}
        self._pending_echo = bool(self._clear_echo)

    # -- TranscriptReader --------------------------------------------------------------

    @property
    def messages(self) -> list[Message]:
        return list(self._messages)

    @property
    def state(self) -> State:
        if self._turn_signals is not None:
            signals = self._turn_signals()
            session = str(self._facts.get("session_id") or self.ref.transcript_id)
            found = turn_state(signals, session)
            if found == "working" and self._ended_after(signals, session):
                return "idle"
            if found is not None:
                return found
        return self._transcript_state()

    def _ended_after(self, signals: list[dict[str, Any]], session: str) -> bool:
        """Whether the transcript ends the turn the hooks left open: a declined tool call
        ends it with a cancellation record and no AfterAgent hook.
        """
        last = self._records[-1] if self._records else None
        if last is None or last.get("type") not in ("info", "error"):
            return False
        started = max(
            (
                str(r.get("timestamp") or "")
                for r in signals
                if r.get("hook_event_name") == "BeforeAgent" and r.get("session_id") == session
            ),
            default="",
        )
        return str(last.get("timestamp") or "") >= started

    def _transcript_state(self) -> State:
        for record in reversed(self._records):
            kind = record.get("type")
            if kind == "user":
                if _is_user_prompt(record) or _has_function_response(record):
                    return "working"
                continue
            if kind == "gemini":
                calls = record.get("toolCalls")
                if not calls:
                    return "idle"
                statuses = [c.get("status") for c in calls if isinstance(c, dict)]
                return "idle" if "cancelled" in statuses else "working"
            if kind in ("info", "error"):
                return "idle"
        return "idle"

    @property
    def summary(self) -> SessionSummary:
        # Each response once (a re-appended record replaced the earlier one), with the
        # figures of its last record.
        models = ModelTally()
        model: str | None = None
        context: int | None = None
        for record in self._records:
            usage = _usage(record.get("tokens")) if record.get("type") == "gemini" else None
            name = record.get("model") if isinstance(record.get("model"), str) else None
            if usage is not None:
                models.add(name, "main", usage)
                context = usage.input_tokens + usage.cache_read_tokens
            if record.get("type") == "gemini" and name:
                model = name
        return SessionSummary(
            **self._facts_public(),
            usage=models.total(),
            models=models.breakdown(),
            model=model,
            context_tokens=context,
        )

    def _facts_public(self) -> dict[str, Any]:
        return {k: v for k, v in self._facts.items() if k != "session_id"}

    def read(self) -> ReadResult:
        if self._document is None:
            self._document = is_document(self.ref.path)
        if self._document:
            return self._read_document()
        items = self._tail.read_iter()
        rewound = self._tail.rewound
        if rewound:
            self._reset()  # the file was rewritten: it is read again from its start
        old = self._messages
        dirty: int | None = None
        for item in items:
            if isinstance(item, CorruptLine):
                touched: int | None = self._put(
                    {
                        "id": f"{_NOTE}{item.number}",
                        "type": _NOTE,
                        "content": f"Skipped unreadable transcript line {item.number}: "
                        f"{item.error}",
                    }
                )
            elif isinstance(item.value, dict):
                touched = self._line(item.value)
            else:
                touched = None
            if touched is not None:
                dirty = touched if dirty is None else min(dirty, touched)
        return self._finish(old, dirty, rewound)

    def _finish(self, old: list[Message], dirty: int | None, rewound: bool) -> ReadResult:
        """Map again from the first changed record and report what that changed."""
        if dirty is None and not self._pending_echo:
            return ReadResult(changed=[], reset=rewound)
        self._pending_echo = False
        self._rebuild(dirty if dirty is not None else len(self._records))
        new = self._messages
        if rewound or len(new) < len(old):
            return ReadResult(changed=list(new), reset=True)
        changed = [m for m in new if m.seq >= len(old) or old[m.seq] != m]
        return ReadResult(changed=changed)

    def _read_document(self) -> ReadResult:
        """Read a session kept as one JSON document (older versions), rewritten whole.

        The CLI rewrites the whole file on every change, so each change is read whole; an
        unchanged file (same inode, size and modification time) is not read again. A
        document that does not parse while an earlier one did is a rewrite caught half
        way: the earlier records stand until the next change.
        """
        old = self._messages
        try:
            stat = self.ref.path.stat()
            key = (stat.st_ino, stat.st_size, stat.st_mtime_ns)
            if key == self._document_key:
                return ReadResult(changed=[])
            data = self.ref.path.read_bytes()
        except OSError:
            return ReadResult(changed=[])
        try:
            document = json.loads(data)
            if not isinstance(document, dict):
                raise ValueError("not a JSON object")
        except ValueError as exc:
            if self._document_key is not None or not data.strip():
                return ReadResult(changed=[])  # half written, or not written yet
            self._document_key = key
            note = {
                "id": f"{_NOTE}document",
                "type": _NOTE,
                "content": f"Skipped the unreadable session file: {exc}",
            }
            return self._finish(old, self._put(note), False)
        self._document_key = key
        self._line({k: v for k, v in document.items() if k != "messages"})
        messages = document.get("messages")
        listed = [
            m for m in (messages if isinstance(messages, list) else []) if isinstance(m, dict)
        ]
        records = [m for m in listed if isinstance(m.get("id"), str)]
        # The document is the whole history: what it no longer holds was cut (/rewind).
        dirty = next(
            (i for i, (a, b) in enumerate(zip(self._records, records, strict=False)) if a != b),
            min(len(self._records), len(records)),
        )
        if dirty == len(self._records) == len(records):
            return ReadResult(changed=[])
        self._records = records
        self._index = {str(r["id"]): i for i, r in enumerate(records)}
        return self._finish(old, dirty, False)

    # -- records -----------------------------------------------------------------------

    def _line(self, line: dict[str, Any]) -> int | None:
        """Apply one line; the first record position it changed, if any."""
        if isinstance(line.get("id"), str):
            return self._put(line)
        if "$rewindTo" in line:
            position = self._index.get(str(line["$rewindTo"]))
            if position is None:
                return None
            self._cut(position)
            return position
        update = line.get("$set")
        if isinstance(update, dict):
            stamp = _timestamp(update.get("lastUpdated"))
            if stamp is not None:
                self._facts["updated_at"] = stamp
            messages = update.get("messages")
            if isinstance(messages, list):
                return self._set_messages([m for m in messages if isinstance(m, dict)])
            return None
        if isinstance(line.get("sessionId"), str):
            self._facts["session_id"] = line["sessionId"]
            self._facts["started_at"] = _timestamp(line.get("startTime"))
            self._facts["updated_at"] = _timestamp(line.get("lastUpdated"))
        return None

    def _put(self, record: dict[str, Any]) -> int:
        position = self._index.get(record["id"])
        if position is None:
            position = len(self._records)
            self._records.append(record)
            self._index[record["id"]] = position
        else:
            self._records[position] = record
        return position

    def _cut(self, position: int) -> None:
        for record in self._records[position:]:
            self._index.pop(str(record.get("id")), None)
        del self._records[position:]

    def _set_messages(self, messages: list[dict[str, Any]]) -> int | None:
        """Apply a whole-list rewrite the way the chat shows it (see the module's notes)."""
        listed = [m for m in messages if isinstance(m.get("id"), str)]
        wanted = {m["id"] for m in listed}
        dropped = next(
            (
                i
                for i, r in enumerate(self._records)
                if r["id"] not in wanted and r.get("type") != _NOTE
            ),
            None,
        )
        if dropped is None:
            # Nothing dropped: only new records are added.
            added = [m for m in listed if m["id"] not in self._index]
            first = len(self._records)
            for message in added:
                self._put(message)
            return first if added else None
        # A roll-back: what it dropped stays shown; copies it appended after that go.
        copies = [i for i, r in enumerate(self._records) if i > dropped and r["id"] in wanted]
        if not copies:
            return None
        self._records = [r for i, r in enumerate(self._records) if i not in set(copies)]
        self._index = {str(r["id"]): i for i, r in enumerate(self._records)}
        return copies[0]

    # -- mapping -----------------------------------------------------------------------

    def _rebuild(self, start: int) -> None:
        """Map records from ``start`` on again (earlier messages are unchanged)."""
        start = min(start, len(self._first_seq))
        keep = self._first_seq[start] if start < len(self._first_seq) else len(self._messages)
        messages = self._messages[:keep]
        if not messages and self._clear_echo:
            echo = self._clear_echo
            messages.append(Message(seq=0, kind="text", role="user", text=echo, command=echo))
        del self._first_seq[start:]
        for record in self._records[start:]:
            self._first_seq.append(len(messages))
            for message in self._map(record, position_prompt=self._prompt_time(record)):
                messages.append(message.model_copy(update={"seq": len(messages)}))
        self._messages = messages

    def _prompt_time(self, record: dict[str, Any]) -> str:
        """When the user prompt before ``record`` was sent (ISO text, sortable)."""
        position = self._index.get(str(record.get("id")), len(self._records))
        for earlier in reversed(self._records[:position]):
            if _is_user_prompt(earlier):
                return str(earlier.get("timestamp") or "")
        return ""

    def _confirmation(self, call: dict[str, Any], since: str) -> dict[str, Any] | None:
        """The spooled confirmation a shell or edit call waited on, if it waited on one."""
        name = call.get("name")
        if name == _compat.SHELL_TOOL:
            kind, field, arg = _compat.SHELL_CONFIRM, "command", "command"
        elif name in _compat.EDIT_TOOLS:
            kind, field, arg = _compat.EDIT_CONFIRM, "filePath", "file_path"
        else:
            return None
        if self._turn_signals is None:
            return None
        args = call.get("args")
        value = args.get(arg) if isinstance(args, dict) else None
        ended = str(call.get("timestamp") or "9999")
        session = str(self._facts.get("session_id") or self.ref.transcript_id)
        found = [
            r
            for r in confirmations(self._turn_signals(), session)
            if r["details"].get("type") == kind
            and r["details"].get(field) == value
            and since <= str(r.get("timestamp") or "") <= ended
        ]
        return found[-1] if found else None

    def _map(self, record: dict[str, Any], position_prompt: str = "") -> list[Message]:
        kind = record.get("type")
        stamp = _timestamp(record.get("timestamp"))
        native = str(record.get("id"))
        if kind == "user":
            text = _texts(record.get("content"))
            if not text:
                return []  # context, or the tool results sent back to the model
            return [
                Message(
                    seq=0, kind="text", role="user", text=text, native_id=native, timestamp=stamp
                )
            ]
        if kind == _NOTE:
            text = str(record.get("content"))
            return [Message(seq=0, kind="lifecycle", role="system", level="warning", text=text)]
        if kind in _LEVELS:
            text = _texts(record.get("content")) or str(record.get("content") or "")
            if not text:
                return []
            return [
                Message(
                    seq=0,
                    kind="lifecycle",
                    role="system",
                    level=_LEVELS[str(kind)],
                    text=text,
                    native_id=native,
                    timestamp=stamp,
                )
            ]
        if kind != "gemini":
            return []
        model = record.get("model") if isinstance(record.get("model"), str) else None
        out: list[Message] = []
        for thought in thinking(record):
            out.append(
                Message(
                    seq=0,
                    kind="text",
                    role="assistant",
                    text=thought,
                    thinking=True,
                    redacted=not thought,
                    native_id=native,
                    timestamp=stamp,
                    model=model,
                )
            )
        text = _texts(record.get("content"))
        if text:
            out.append(
                Message(
                    seq=0,
                    kind="text",
                    role="assistant",
                    text=text,
                    native_id=native,
                    timestamp=stamp,
                    model=model,
                )
            )
        calls = record.get("toolCalls")
        for call in calls if isinstance(calls, list) else []:
            if isinstance(call, dict):
                out.append(self._tool(call, native, stamp, model))
                confirm = self._confirmation(call, position_prompt)
                tool = out[-1].tool
                if confirm is not None and tool is not None and tool.status != "running":
                    rejected = tool.status == "error" and "(rejected)" in (tool.output or "")
                    dialog = approval_dialog(confirm["details"], confirmation_id(confirm))
                    dialog = dialog.model_copy(
                        update={
                            "status": "rejected" if rejected else "answered",
                            "outcome": "rejected" if rejected else "approved",
                        }
                    )
                    # The call goes by the confirmation's id too: a declined confirmation
                    # fires no hook, so the chat learns from this call that it was answered.
                    tool = tool.model_copy(update={"id": dialog.tool_id})
                    out[-1] = out[-1].model_copy(
                        update={"kind": "dialog", "dialog": dialog, "tool": tool}
                    )
        usage = _usage(record.get("tokens"))
        if usage is not None and out:
            # On the response's first message, so summing messages counts it once.
            out[0] = out[0].model_copy(update={"usage": usage})
        return out

    @staticmethod
    def _tool(
        call: dict[str, Any], native: str, stamp: datetime | None, model: str | None
    ) -> Message:
        status = str(call.get("status") or "")
        args = call.get("args")
        output: str | None = None
        final = _FINAL_TOOL.get(status)
        if final is not None:
            output = tool_output(call.get("result"))
            if status == "success":
                match = _EXIT_CODE.search(output)
                if match is not None and match.group(1) != "0":
                    final = "error"
            if status == "cancelled":
                output = f"{output} (rejected)".strip()
        tool = ToolCall(
            id=str(call.get("id") or ""),
            name=str(call.get("name") or "tool"),
            input=args if isinstance(args, dict) else {},
            status=final or "running",
            output=output,
        )
        return Message(
            seq=0,
            kind="tool",
            role="assistant",
            tool=tool,
            native_id=native,
            timestamp=_timestamp(call.get("timestamp")) or stamp,
            model=model,
        )


def _has_function_response(record: dict[str, Any]) -> bool:
    content = record.get("content")
    return isinstance(content, list) and any(
        isinstance(p, dict) and "functionResponse" in p for p in content
    )


def is_document(path: Path) -> bool:
    """Whether a session file is one JSON document (older versions) rather than an event log.

    The name tells (``.json`` against ``.jsonl``); a file named otherwise is a document when
    its first line opens an object and holds nothing more.
    """
    if path.suffix in (_compat.DOCUMENT_SUFFIX, _compat.EVENT_LOG_SUFFIX):
        return path.suffix == _compat.DOCUMENT_SUFFIX
    try:
        with path.open("rb") as f:
            first = f.readline(_PEEK_BYTES)
    except OSError:
        return False
    return first.strip() == b"{"


_HEADER_FIELD = re.compile(rb'"(sessionId|startTime|lastUpdated|kind)"\s*:\s*"([^"\\]*)"')


def read_header(path: Path) -> dict[str, Any] | None:
    """The metadata of a session file (its first line; a document's top fields), if readable."""
    try:
        with path.open("rb") as f:
            first = f.readline(_PEEK_BYTES) if not is_document(path) else f.read(_HEAD_BYTES)
    except OSError:
        return None
    if is_document(path):
        # The metadata comes first in the document: a bounded prefix holds it, however long
        # the conversation after it is.
        head = first.split(b'"messages"', 1)[0]
        found = {m.group(1).decode(): m.group(2).decode() for m in _HEADER_FIELD.finditer(head)}
        return found if found.get("sessionId") else None
    try:
        line = json.loads(first)
    except ValueError:
        return None
    return line if isinstance(line, dict) and isinstance(line.get("sessionId"), str) else None


def _document_records(data: bytes) -> list[dict[str, Any]]:
    """The message records that parse whole in a prefix of a session document."""
    text = data.decode("utf-8", "replace")
    start = text.find('"messages"')
    start = text.find("[", start) if start >= 0 else -1
    if start < 0:
        return []
    decoder = json.JSONDecoder()
    records: list[dict[str, Any]] = []
    position = start + 1
    while True:
        while position < len(text) and text[position] in " \t\r\n,":
            position += 1
        if position >= len(text) or text[position] != "{":
            return records
        try:
            value, position = decoder.raw_decode(text, position)
        except ValueError:
            return records  # cut off by the prefix
        if isinstance(value, dict):
            records.append(value)


def peek_session(path: Path) -> tuple[str | None, str | None]:
    """``(first user prompt, model)`` from a bounded prefix of a session file."""
    prompt: str | None = None
    model: str | None = None
    try:
        with path.open("rb") as f:
            data = f.read(_PEEK_BYTES)
    except OSError:
        return None, None
    lines: list[Any] = []
    if is_document(path):
        lines = _document_records(data)
    else:
        for raw in data.splitlines():
            try:
                lines.append(json.loads(raw))
            except ValueError:
                continue
    for line in lines:
        if not isinstance(line, dict):
            continue
        if prompt is None and line.get("type") == "user":
            prompt = _texts(line.get("content")) or None
        if model is None and line.get("type") == "gemini" and isinstance(line.get("model"), str):
            model = line["model"]
        if prompt is not None and model is not None:
            break
    return prompt, model
