"""GitHub Copilot CLI's session event log mapped to the universal schema, incrementally.

Grammar pinned to Copilot CLI 1.0.102 (see ``_compat.py``; the CLI ships the schema of its
events as ``schemas/session-events.schema.json``). ``events.jsonl`` is append-only, one
event ``{type, data, id, timestamp, parentId}`` a line:

- ``user.message`` (``data.content``: what was typed) opens a prompt;
- ``assistant.message`` (``reasoningText``, ``content``, ``toolRequests[{toolCallId, name,
  arguments}]``, ``apiCallId``) is one model call's answer, its ``session.usage_record``
  written just before it (``usage.apiCallId``);
- ``tool.execution_complete`` (``toolCallId``, ``success``, ``result.content``, or for a
  failed call ``error.message``) closes a call;
- ``permission.requested`` / ``permission.completed`` bracket an approval prompt;
- an ``ask_user`` call is a question form and an ``exit_plan_mode`` call plan mode's
  review, each open until its ``tool.execution_complete``;
- ``assistant.turn_end`` closes one model call, ``abort`` an interrupted prompt,
  ``session.error`` a failed one, ``session.shutdown`` the session (``/clear``, exit).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ...schema import Answer, Dialog, Message, SessionSummary, State, ToolCall, Usage
from .. import ALWAYS_OUTCOME, APPROVE_ALWAYS, ReadResult, TranscriptReader, TranscriptRef
from ..kit import (
    CorruptLine,
    JsonlTail,
    UsageLedger,
    iso_time,
)
from . import _compat
from ._dialogs import approval_dialog, plan_dialog, plan_ended
from ._questions import answered, question_dialog

__all__ = ["CopilotTranscriptReader"]


def _time(event: dict[str, Any]) -> datetime | None:
    stamp = event.get("timestamp")
    if not isinstance(stamp, str):
        return None
    try:
        return datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return None


def usage_of(data: dict[str, Any]) -> Usage:
    """One ``session.usage_record``'s ``usage`` as a :class:`Usage` (input less cache reads)."""

    def count(key: str) -> int:
        value = data.get(key)
        return value if isinstance(value, int) else 0

    return Usage(
        input_tokens=max(count("inputTokens") - count("cacheReadTokens"), 0),
        output_tokens=count("outputTokens"),
        cache_read_tokens=count("cacheReadTokens"),
        cache_write_tokens=count("cacheWriteTokens"),
        reasoning_tokens=count("reasoningTokens"),
    )


def message_usage(data: dict[str, Any]) -> Usage | None:
    """The usage an ``assistant.message`` itself carries: ``outputTokens`` alone, as versions
    without ``session.usage_record`` (1.0.70) record it; they record no input tokens.

    Examples
    --------
    >>> message_usage({"outputTokens": 14}).output_tokens, message_usage({}) is None
    (14, True)
    """
    output = data.get("outputTokens")
    return Usage(output_tokens=output) if isinstance(output, int) else None


def session_facts(data: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
    """The facts of a ``session.start`` event's data (CLI version, folder, branch, start
    time) and the model it selected.
    """
    facts: dict[str, Any] = {"cli_version": data.get("copilotVersion")}
    context = data.get("context") if isinstance(data.get("context"), dict) else {}
    assert isinstance(context, dict)
    for key in ("cwd", "branch"):
        if isinstance(context.get(key), str):
            facts[key] = context[key]
    facts["started_at"] = iso_time(data.get("startTime"))
    model = data.get("selectedModel")
    return facts, model if isinstance(model, str) else None


class CopilotTranscriptReader(TranscriptReader):
    """Maps one Copilot CLI ``events.jsonl`` into messages.

    State from structure: ``working`` from a prompt until the model call that asks for no
    tool ends (``assistant.turn_end`` after an answer without ``toolRequests``, or the
    ``agentStop`` hook's ``hook.start`` after it where the log records hooks), ``idle``
    after it, an ``abort`` or a ``session.error``; ``question`` while a
    ``permission.requested`` waits for its ``permission.completed`` and while an
    ``ask_user`` form waits for its ``tool.execution_complete``; after
    ``session.shutdown`` (``idle``, nothing pending: the process says whether the run
    ended). ``clear_echo`` opens an epoch the clear command started: Copilot
    CLI records no command.
    """

    def __init__(self, ref: TranscriptRef, clear_echo: str | None = None) -> None:
        self.ref = ref
        self._clear_echo = clear_echo
        self._tail = JsonlTail(ref.path)
        self._reset()

    def _reset(self) -> None:
        self._messages: list[Message] = []
        self._tools: dict[str, int] = {}  # tool call id -> message index
        self._pending: dict[str, str] = {}  # permission request id -> tool call id
        self._asking: dict[str, None] = {}  # open ask_user / exit_plan_mode call ids
        # Of those, the ones the user has answered (their result is on its way).
        self._answered: set[str] = set()
        self._usage = UsageLedger()
        self._api_usage: dict[str, tuple[Usage, str | None]] = {}
        self._state: State = "idle"
        self._asked_tools = False
        self._hooked = False  # the log records hooks: the turn ends at agentStop's
        self._model: str | None = None
        self._facts: dict[str, Any] = {}
        self._echoed = False
        self._shut = False

    # -- TranscriptReader ------------------------------------------------------------------

    @property
    def messages(self) -> list[Message]:
        return list(self._messages)

    @property
    def state(self) -> State:
        if (self._pending or self._asking) and not self._shut:
            return "question"
        return self._state

    @property
    def pending_dialog(self) -> Dialog | None:
        if self._shut:
            return None
        for call_id in reversed([*self._pending.values(), *self._asking]):
            index = self._tools.get(call_id)
            dialog = self._messages[index].dialog if index is not None else None
            if dialog is not None:
                return dialog
        return None

    @property
    def summary(self) -> SessionSummary:
        return SessionSummary(
            transcript_id=self.ref.transcript_id,
            model=self._model,
            usage=self._usage.total,
            models=self._usage.models(),
            cli_version=self._facts.get("cli_version"),
            cwd=self._facts.get("cwd"),
            branch=self._facts.get("branch"),
            started_at=self._facts.get("started_at"),
        )

    def read(self) -> ReadResult:
        items = self._tail.read_iter()
        rewound = self._tail.rewound
        if rewound:
            self._reset()
        changed: dict[int, None] = {}
        if not self._echoed and self._clear_echo:
            self._echoed = True
            changed[
                self._add(kind="text", role="user", text=self._clear_echo, command=self._clear_echo)
            ] = None
        for item in items:
            if isinstance(item, CorruptLine):
                index = self._add(
                    kind="lifecycle",
                    role="system",
                    level="warning",
                    text=f"Skipped unreadable transcript line {item.number}: {item.error}",
                )
                changed[index] = None
            elif isinstance(item.value, dict):
                for index in self._event(item.value):
                    changed[index] = None
        return ReadResult(changed=[self._messages[i] for i in sorted(changed)], reset=rewound)

    # -- events ----------------------------------------------------------------------------

    def _add(self, **fields: Any) -> int:
        self._messages.append(Message(seq=len(self._messages), **fields))
        return len(self._messages) - 1

    def _said(self, text: str, **fields: Any) -> int:
        """The model's text (with ``thinking=True``, its reasoning) as a new message."""
        return self._add(kind="text", role="assistant", text=text, **fields)

    def _update(self, index: int, **fields: Any) -> int:
        self._messages[index] = self._messages[index].model_copy(update=fields)
        return index

    def _event(self, event: dict[str, Any]) -> list[int]:
        kind = event.get("type")
        data = event.get("data") if isinstance(event.get("data"), dict) else {}
        assert isinstance(data, dict)
        native = event.get("id") if isinstance(event.get("id"), str) else None
        when = _time(event)
        if kind == "session.start":
            self._facts, model = session_facts(data)
            self._model = model or self._model
        elif kind == "user.message":
            self._state, self._asked_tools = "working", False
            text = data.get("content")
            return [
                self._add(
                    kind="text", role="user", text=str(text or ""), native_id=native, timestamp=when
                )
            ]
        elif kind == "session.usage_record":
            usage = data.get("usage")
            if isinstance(usage, dict) and isinstance(usage.get("apiCallId"), str):
                model = usage.get("model") if isinstance(usage.get("model"), str) else None
                self._api_usage[usage["apiCallId"]] = (usage_of(usage), model)
                self._usage.record(usage["apiCallId"], usage_of(usage), model)
        elif kind == "assistant.message":
            return self._assistant(data, native, when)
        elif kind == "assistant.reasoning":
            text = data.get("content")
            if isinstance(text, str) and text:
                return [self._said(text, thinking=True, native_id=native, timestamp=when)]
        elif kind == "tool.execution_complete":
            return self._tool_done(data)
        elif kind == _compat.HUMAN_RESPONSE:
            call_id = str(data.get("toolCallId") or "")
            if call_id in self._asking:
                self._answered.add(call_id)
        elif kind == "permission.requested":
            return self._permission(data)
        elif kind == "permission.completed":
            return self._permission_done(data)
        elif kind == "assistant.turn_end":
            if not self._asked_tools and self._state == "working" and not self._hooked:
                self._state = "idle"
        elif kind == "hook.start":
            # With hooks the TUI is done at agentStop, after the last turn_end: it still
            # shows "Working" between the two, and a paste then is taken as a queued message.
            # Older versions (1.0.70) have no agentStop.
            self._hooked = _compat.has_turn_done(self._facts.get("cli_version"))
            if data.get("hookType") == _compat.TURN_DONE and self._state == "working":
                self._state = "idle"
        elif kind == "abort":
            self._state = "idle"
            closed = self._close_running("Interrupted")
            return [
                *closed,
                self._add(
                    kind="lifecycle",
                    role="system",
                    level="warning",
                    text="Interrupted",
                    native_id=native,
                    timestamp=when,
                ),
            ]
        elif kind == "session.error":
            self._state = "idle"
            return [
                self._add(
                    kind="lifecycle",
                    role="system",
                    level="error",
                    text=str(data.get("message") or "Error"),
                    native_id=native,
                    timestamp=when,
                )
            ]
        elif kind == "session.shutdown":
            # The session is over (/clear, exit): nothing is pending; the process, not the
            # log, says the run ended.
            self._state, self._shut = "idle", True
        return []

    def _assistant(
        self, data: dict[str, Any], native: str | None, when: datetime | None
    ) -> list[int]:
        touched: list[int] = []
        api = data.get("apiCallId") if isinstance(data.get("apiCallId"), str) else None
        usage, model = self._api_usage.pop(api, (None, None)) if api else (None, None)
        model = model or (data.get("model") if isinstance(data.get("model"), str) else None)
        if usage is None and api and self._usage.usage(api) is None:
            # An older version's message carries its own (output) tokens.
            usage = message_usage(data)
            if usage is not None:
                self._usage.record(api, usage, model)
        self._model = model or self._model
        # The model's reasoning rides on its answer (chat completions' streamed
        # reasoning_content); it comes first, as the model streamed it. The usage goes on the
        # first of the two shown.
        said = (
            (data.get("reasoningText"), True, f"{native}:reasoning" if native else None),
            (data.get("content"), False, native),
        )
        for text, thinking, own_id in said:
            if isinstance(text, str) and text:
                touched.append(
                    self._said(
                        text,
                        thinking=thinking,
                        model=model,
                        usage=usage,
                        native_id=own_id,
                        timestamp=when,
                    )
                )
                usage = None
        requests = data.get("toolRequests")
        self._asked_tools = bool(requests)
        for request in requests if isinstance(requests, list) else []:
            if not isinstance(request, dict) or not isinstance(request.get("toolCallId"), str):
                continue
            call_id = request["toolCallId"]
            arguments = request.get("arguments")
            tool = ToolCall(
                id=call_id,
                name=str(request.get("name") or "tool"),
                input=arguments if isinstance(arguments, dict) else {},
                shell=_compat.SHELL_TOOLS.line(
                    str(request.get("name")), arguments if isinstance(arguments, dict) else {}
                ),
            )
            dialog = None
            if tool.name == _compat.QUESTION_TOOL:
                dialog = question_dialog(tool.input, call_id)
            elif tool.name == _compat.PLAN_TOOL:
                dialog = plan_dialog(tool.input, call_id)
            if dialog is not None:
                self._asking[call_id] = None
            index = self._add(
                kind="tool" if dialog is None else "dialog",
                role="assistant",
                tool=tool,
                dialog=dialog,
                model=model,
                usage=usage,
                native_id=call_id,
                timestamp=when,
            )
            usage = None
            self._tools[call_id] = index
            touched.append(index)
        return touched

    def _tool_done(self, data: dict[str, Any]) -> list[int]:
        index = self._tools.get(str(data.get("toolCallId")))
        message = self._messages[index] if index is not None else None
        if index is None or message is None or message.tool is None:
            return []
        result = data.get("result") if isinstance(data.get("result"), dict) else {}
        assert isinstance(result, dict)
        output = result.get("content")
        error = data.get("error") if isinstance(data.get("error"), dict) else {}
        assert isinstance(error, dict)
        said = str(error.get("message") or "")
        tool = message.tool.model_copy(
            update={
                "status": "ok" if data.get("success") else "error",
                # A failed call has no result: what went wrong is its error's message.
                "output": output if isinstance(output, str) else said or None,
            }
        )
        if message.tool.id not in self._asking or message.dialog is None:
            return [self._update(index, tool=tool)]
        del self._asking[message.tool.id]
        self._answered.discard(message.tool.id)
        if message.dialog.kind == "plan":
            ended = plan_ended(message.dialog, bool(data.get("success")), said)
            return [self._update(index, tool=tool, dialog=ended)]
        detailed = result.get("detailedContent")
        dialog = answered(
            message.dialog,
            message.tool.input,
            bool(data.get("success")),
            detailed if isinstance(detailed, str) else str(output or ""),
        )
        kind = "dialog" if dialog is not None else "tool"
        return [self._update(index, tool=tool, dialog=dialog, kind=kind)]

    def _close_running(self, why: str) -> list[int]:
        touched = []
        for index in self._tools.values():
            message = self._messages[index]
            tool = message.tool
            if tool is None or tool.status != "running" or tool.id in self._answered:
                continue  # an answered form's result may come after the abort: it ends it
            fields: dict[str, Any] = {
                "tool": tool.model_copy(update={"status": "error", "output": why})
            }
            if tool.id in self._asking and message.dialog is not None:
                del self._asking[tool.id]
                fields["dialog"] = message.dialog.model_copy(
                    update={"status": "dismissed", "outcome": why}
                )
            touched.append(self._update(index, **fields))
        return touched

    def _permission(self, data: dict[str, Any]) -> list[int]:
        request = data.get("permissionRequest")
        if not isinstance(request, dict):
            return []
        call_id = str(request.get("toolCallId") or "")
        self._pending[str(data.get("requestId"))] = call_id
        index = self._tools.get(call_id)
        if index is None:
            return []
        tool = self._messages[index].tool
        dialog = approval_dialog(request, tool.name if tool else _compat.SHELL_TOOL)
        return [self._update(index, dialog=dialog, kind="dialog")]

    def _permission_done(self, data: dict[str, Any]) -> list[int]:
        call_id = self._pending.pop(str(data.get("requestId")), None)
        index = self._tools.get(str(call_id))
        message = self._messages[index] if index is not None else None
        if index is None or message is None or message.dialog is None:
            return []
        result = data.get("result") if isinstance(data.get("result"), dict) else {}
        assert isinstance(result, dict)
        kind = result.get("kind")
        fields: dict[str, Any] = {"status": "answered" if kind in _compat.APPROVED else "rejected"}
        if kind in _compat.APPROVED:
            fields["outcome"] = "approved"
        if kind in _compat.APPROVED_ALWAYS:
            # The log itself says the approval was kept: no need for the chat's memory.
            fields.update(outcome=ALWAYS_OUTCOME, answers=[Answer(selected=[APPROVE_ALWAYS])])
        return [self._update(index, dialog=message.dialog.model_copy(update=fields))]
