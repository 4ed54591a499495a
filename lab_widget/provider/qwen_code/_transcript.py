"""Qwen Code's session files: how their lines map to the universal schema.

Grammar pinned to Qwen Code 0.24.4 (see ``_compat.py``); fixtures recorded by
``scripts/record_qwen_code_fixtures.py`` live in ``tests/fixtures/qwen-code/``.

A session file is append-only JSONL, one chat record a line, each linked to the one before
by ``parentUuid``: a prompt (``user``), a model response (``assistant``, its text and
calls), a call's result (``tool_result``), bookkeeping (``system``). A response's calls
show as tool messages at once; a result updates its call's message. Usage is each
response's ``usageMetadata``, once (``kit.UsageLedger``, by the record's ``uuid``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from ...schema import Message, SessionSummary, State
from .. import ReadResult, TranscriptReader, TranscriptRef
from ..kit import CorruptLine, JsonlTail, UsageLedger, iso_time
from . import _compat
from ._dialogs import answered
from ._records import call_result, record_usage, response_messages, user_message
from ._signals import last_turn_record

__all__ = ["QwenCodeTranscriptReader"]


class QwenCodeTranscriptReader(TranscriptReader):
    """Maps one Qwen Code session file into messages, incrementally.

    State: from the file alone, ``working`` after a prompt, a response with calls or a
    call's result, ``idle`` after a response without calls; the run's turn hooks
    (``turn_signals``) say ``working`` from a prompt's hook, and ``idle`` from its ``Stop``
    once the file agrees (or ``_compat.STOP_BEFORE_RECORD`` later). ``clear_echo`` starts
    an epoch the clear command opened (Qwen Code records the command nowhere).
    """

    def __init__(
        self,
        ref: TranscriptRef,
        clear_echo: str | None = None,
        turn_signals: Callable[[], list[dict[str, Any]]] | None = None,
    ) -> None:
        self.ref = ref
        self._clear_echo = clear_echo
        self._turn_signals = turn_signals
        self._tail = JsonlTail(ref.path)
        self._reset()

    def _reset(self) -> None:
        self._messages: list[Message] = []
        self._calls: dict[str, tuple[int, str]] = {}
        self._ledger = UsageLedger()
        self._last_turn_record: str | None = None
        self._prompt_time = ""
        self._facts: dict[str, Any] = {}

    # -- TranscriptReader --------------------------------------------------------------

    @property
    def messages(self) -> list[Message]:
        return list(self._messages)

    @property
    def state(self) -> State:
        read = self.settled_state()
        if self._turn_signals is None:
            return read
        record = last_turn_record(self._turn_signals(), self._session())
        if record is None:
            return read
        if self._last_turn_record == "declined":
            return "idle"
        if record.get("hook_event_name") == _compat.PROMPT_SUBMITTED:
            return "working"
        # The Stop hook may come before the response's record is appended: the turn ends
        # once the file shows it too, or a while after the hook (a turn the CLI ended
        # without a response, as an interrupt's).
        stamp = iso_time(record.get("timestamp"))
        late = stamp is None or time.time() - stamp.timestamp() > _compat.STOP_BEFORE_RECORD
        return "idle" if read == "idle" or late else "working"

    def settled_state(self) -> State:
        if self._last_turn_record is None:
            return "idle"
        return "idle" if self._last_turn_record in ("answered", "declined") else "working"

    @property
    def summary(self) -> SessionSummary:
        return SessionSummary(
            transcript_id=self._session(),
            model=self._facts.get("model"),
            usage=self._ledger.total,
            models=self._ledger.models(),
            context_tokens=self._facts.get("context"),
            context_window=self._facts.get("window"),
            cwd=self._facts.get("cwd"),
            cli_version=self._facts.get("version"),
        )

    def read(self) -> ReadResult:
        items = list(self._tail.read_iter())
        reset = self._tail.rewound
        if reset:
            self._reset()
        changed: dict[int, None] = {}
        if self._clear_echo and not self._messages:
            echo = self._clear_echo
            changed[
                self._add(Message(seq=0, kind="text", role="user", text=echo, command=echo))
            ] = None
        for item in items:
            if isinstance(item, CorruptLine):
                text = f"Skipped unreadable transcript line {item.number}: {item.error}"
                note = Message(seq=0, kind="lifecycle", role="system", level="warning", text=text)
                changed[self._add(note)] = None
            elif isinstance(item.value, dict):
                changed.update(dict.fromkeys(self._apply(item.value)))
        if reset:
            return ReadResult(changed=list(self._messages), reset=True)
        return ReadResult(changed=[self._messages[seq] for seq in sorted(changed)])

    # -- mapping -----------------------------------------------------------------------

    def _session(self) -> str:
        return str(self._facts.get("session") or self.ref.transcript_id)

    def _add(self, message: Message) -> int:
        seq = len(self._messages)
        self._messages.append(message.model_copy(update={"seq": seq}))
        return seq

    def _apply(self, record: dict[str, Any]) -> list[int]:
        """Map one record; the seqs it added or changed."""
        for key, field in (("session", "sessionId"), ("cwd", "cwd"), ("version", "version")):
            if isinstance(record.get(field), str):
                self._facts.setdefault(key, record[field])
        kind = record.get("type")
        prompt = user_message(record)
        if prompt is not None:
            self._last_turn_record = "prompt"
            self._prompt_time = str(record.get("timestamp") or "")
            return [self._add(prompt)]
        if kind == _compat.ASSISTANT_TYPE:
            return self._response(record)
        result = call_result(record)
        if result is None:
            return []
        call_id, status, output = result
        # A declined call ends its turn, and no Stop hook says so.
        self._last_turn_record = "declined" if _compat.REJECTED_STATUS in output else "result"
        found = self._calls.get(call_id)
        if found is None:
            return []
        seq, since = found
        message = self._messages[seq]
        assert message.tool is not None
        tool = message.tool.model_copy(update={"status": status, "output": output})
        message = message.model_copy(update={"tool": tool})
        if self._turn_signals is not None:
            message = answered(message, self._turn_signals(), self._session(), since)
        self._messages[seq] = message
        return [seq]

    def _response(self, record: dict[str, Any]) -> list[int]:
        found = response_messages(record)
        usage = record_usage(record)
        if usage is not None and found:
            # On the response's first message, so summing messages counts it once.
            found[0] = found[0].model_copy(update={"usage": usage})
        added = [self._add(m) for m in found]
        calls = [s for s in added if self._messages[s].tool is not None]
        for seq in calls:
            tool = self._messages[seq].tool
            assert tool is not None
            self._calls[tool.id] = (seq, self._prompt_time)
        self._last_turn_record = "called" if calls else "answered"
        model = record.get("model") if isinstance(record.get("model"), str) else None
        if model:
            self._facts["model"] = model
        if usage is not None:
            self._ledger.record(str(record.get("uuid")), usage, model)
            self._facts["context"] = usage.input_tokens + usage.cache_read_tokens
        window = record.get("contextWindowSize")
        if isinstance(window, int):
            self._facts["window"] = window
        return added
