"""The event log of an ACP host read into the universal schema.

Message and thought chunks are coalesced into one message per run of chunks; a tool call
is one message, updated in place by its updates (status, content, diffs, terminal refs);
a plan is one lifecycle message per turn, replaced as the agent revises it; a permission
request is a dialog message that ends as the answer was given. Usage updates feed the
session summary. An update kind this reader does not know is shown once as unsupported,
never an error.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal, InvalidOperation
from typing import Any

from ..provider import APPROVE, APPROVE_ALWAYS, REJECT, ReadResult, TranscriptReader, TranscriptRef
from ..provider.kit import command_line
from ..schema import (
    Answer,
    Dialog,
    LifecycleLevel,
    Message,
    Option,
    Question,
    SessionSummary,
    State,
    ToolCall,
    ToolStatus,
    Usage,
)

__all__ = ["OPTION_LABELS", "AcpTranscriptReader", "FormField", "form_field", "tool_output"]

_log = logging.getLogger(__name__)

REJECT_ALWAYS = "Reject always"

OPTION_LABELS = {
    "allow_once": APPROVE,
    "allow_always": APPROVE_ALWAYS,
    "reject_once": REJECT,
    "reject_always": REJECT_ALWAYS,
}
"""The chat's label for each permission option kind ACP defines."""

_ONCE = frozenset({"allow_once", "reject_once"})
"""The option kinds a tool that asks every call offers: an "always" would stop the asking."""


def asks_every_call(title: str, servers: list[dict[str, Any]]) -> bool:
    """Whether a call titled ``title`` is of a tool of the run's own servers that asks
    before every call: agents title an MCP tool with its server's name and its own.

    Examples
    --------
    >>> servers = [{"name": "kernel", "asking": ["run_python"], "reading": ["describe"]}]
    >>> asks_every_call("kernel_run_python", servers), asks_every_call("kernel_describe", servers)
    (True, False)
    >>> asks_every_call("run_python", servers)
    False
    """
    return any(
        str(server.get("name")) in title and str(tool) in title
        for server in servers
        for tool in server.get("asking") or ()
    )


def approval_body(tool_input: Any) -> str:
    """What an approval shows of the call: its code as Python, else its input as JSON.

    Examples
    --------
    >>> print(approval_body({"code": "x = 1"}))
    ```python
    x = 1
    ```
    >>> approval_body({})
    ''
    """
    if not isinstance(tool_input, dict) or not tool_input:
        return ""
    code = tool_input.get("code")
    if isinstance(code, str):
        return f"```python\n{code}\n```"
    return json.dumps(tool_input, indent=2)


_STATUS: dict[str, ToolStatus] = {
    "pending": "running",
    "in_progress": "running",
    "completed": "ok",
    "failed": "error",
}

_KNOWN = {
    "user_message_chunk",
    "agent_message_chunk",
    "agent_thought_chunk",
    "tool_call",
    "tool_call_update",
    "plan",
    "available_commands_update",
    "current_mode_update",
    "config_option_update",
    "session_info_update",
    "usage_update",
}


def _text_of(block: Any) -> str:
    if not isinstance(block, dict):
        return ""
    if block.get("type") == "text":
        return str(block.get("text", ""))
    if block.get("type") == "resource_link":
        return f"[{block.get('name') or block.get('uri')}]"
    return f"[{block.get('type', 'content')}]"


def unfenced(text: str) -> str:
    r"""The body of a text that is one fenced code block, else the text: content is
    Markdown, a tool's output is shown as plain text, where the fences would be noise.

    Examples
    --------
    >>> unfenced("```sh\n42\n```\n")
    '42\n'
    >>> unfenced("see:\n```\nx\n```")
    'see:\n```\nx\n```'
    """
    lines = text.strip("\n").split("\n")
    fences = [i for i, line in enumerate(lines) if line.startswith("```")]
    if len(lines) < 2 or fences != [0, len(lines) - 1] or lines[-1].strip() != "```":
        return text
    return "".join(f"{line}\n" for line in lines[1:-1])


def tool_output(content: list[Any]) -> str:
    """A tool call's content as text: text blocks, diffs as unified-style hunks, terminals.

    Examples
    --------
    >>> tool_output([{"type": "content", "content": {"type": "text", "text": "ok"}}])
    'ok'
    >>> print(tool_output([{"type": "diff", "path": "a.py", "oldText": "x", "newText": "y"}]))
    --- a.py
    +++ a.py
    -x
    +y
    """
    parts: list[str] = []
    for item in content:
        if not isinstance(item, dict):
            continue
        kind = item.get("type")
        if kind == "content":
            parts.append(unfenced(_text_of(item.get("content"))))
        elif kind == "diff":
            path = item.get("path", "")
            old = str(item.get("oldText") or "").splitlines()
            new = str(item.get("newText") or "").splitlines()
            lines = [f"--- {path}", f"+++ {path}", *(f"-{x}" for x in old)]
            parts.append("\n".join([*lines, *(f"+{x}" for x in new)]))
        elif kind == "terminal":
            parts.append(f"(terminal {item.get('terminalId', '')})")
    return "\n".join(p for p in parts if p)


RAW_OUTPUT_KEYS = ("output", "formatted_output", "aggregated_output", "stdout")
"""Where a tool call's ``rawOutput`` object holds the text the tool produced, by preference
(ACP leaves the object's shape to the agent; these are the fields agents fill)."""


def raw_output(raw: Any) -> str:
    r"""A tool call's ``rawOutput`` as text: a string is itself; an object gives the first
    text among :data:`RAW_OUTPUT_KEYS`, else the whole value is shown as JSON (never lost).

    Examples
    --------
    >>> raw_output("ok")
    'ok'
    >>> raw_output({"call_id": "c1", "stdout": "42\n", "exit_code": 0})
    '42\n'
    >>> raw_output({"exit_code": 1})
    '{\n  "exit_code": 1\n}'
    """
    if isinstance(raw, str):
        return raw
    if isinstance(raw, dict):
        for key in RAW_OUTPUT_KEYS:
            if isinstance(raw.get(key), str):
                return str(raw[key])
    return json.dumps(raw, indent=2)


def _usage(raw: Any) -> Usage | None:
    if not isinstance(raw, dict):
        return None
    return Usage(
        input_tokens=int(raw.get("inputTokens") or 0),
        output_tokens=int(raw.get("outputTokens") or 0),
        cache_read_tokens=int(raw.get("cachedReadTokens") or 0),
        cache_write_tokens=int(raw.get("cachedWriteTokens") or 0),
        reasoning_tokens=int(raw.get("thoughtTokens") or 0),
    )


@dataclass(frozen=True)
class FormField:
    """One property of an elicitation's form: its question, and how answers map to values."""

    key: str
    kind: str
    """The property's JSON type (``string``, ``number``, ``integer``, ``boolean``, ``array``)."""
    question: Question
    values: dict[str, Any]
    """The value behind each option's label."""

    def value(self, answer: Answer) -> Any:
        """The value this answer gives the property (``None``: left empty)."""
        if self.kind == "array":
            return [self.values[label] for label in answer.selected]
        if answer.selected:
            return self.values[answer.selected[0]]
        text = (answer.text or "").strip()
        if not text:
            return None
        if self.kind == "integer":
            return int(text)
        if self.kind == "number":
            return float(text)
        return text

    def recorded(self, value: Any) -> Answer:
        """The answer that gave ``value``, as the dialog shows it."""
        labels = {json.dumps(v): label for label, v in self.values.items()}
        if isinstance(value, list):
            return Answer(selected=[labels.get(json.dumps(v), str(v)) for v in value])
        if json.dumps(value) in labels:
            return Answer(selected=[labels[json.dumps(value)]])
        return Answer(text=None if value is None else str(value))


def form_field(key: str, spec: dict[str, Any]) -> FormField:
    """A property of an elicitation's form schema as a question.

    Examples
    --------
    >>> f = form_field("db", {"type": "string", "title": "Database", "enum": ["pg", "lite"]})
    >>> [o.label for o in f.question.options], f.question.free_text
    (['pg', 'lite'], False)
    >>> form_field("ok", {"type": "boolean"}).values
    {'Yes': True, 'No': False}
    """
    kind = str(spec.get("type", "string"))
    title = str(spec.get("title") or key)
    items = spec.get("items")
    source: dict[str, Any] = items if kind == "array" and isinstance(items, dict) else spec
    choices: list[tuple[str, Any]] = []
    if isinstance(source.get("enum"), list):
        names = source.get("enumNames") or []
        choices = [
            (str(names[i]) if i < len(names) else str(v), v) for i, v in enumerate(source["enum"])
        ]
    for option in source.get("oneOf") or source.get("anyOf") or []:
        if isinstance(option, dict) and "const" in option:
            choices.append((str(option.get("title") or option["const"]), option["const"]))
    if kind == "boolean":
        choices = [("Yes", True), ("No", False)]
    question = Question(
        header=title,
        text=str(spec.get("description") or title),
        options=[Option(label=label) for label, _ in choices],
        multi_select=kind == "array",
        free_text=not choices,
    )
    return FormField(key, kind, question, dict(choices))


_EXECUTE = "execute"
"""The protocol's tool kind for running a command: shown as a shell call."""


class AcpTranscriptReader(TranscriptReader):
    """Folds one host's event log, incrementally, into messages, a state and a summary."""

    def __init__(self, ref: TranscriptRef) -> None:
        self.ref = ref
        self._offset = 0
        self._messages: list[Message] = []
        self._index: dict[str, int] = {}
        self._changed: set[int] = set()
        self._last_key = ""
        self._in_flight: str | None = None
        self._turn = 0
        self._pending: dict[str, str] = {}
        self._unsupported: set[str] = set()
        self._executing: set[str] = set()
        self._options: dict[tuple[str, str], str] = {}
        self._servers: list[dict[str, Any]] = []
        self.forms: dict[str, list[FormField]] = {}
        """Each elicitation's fields, by the host's request id, in the dialog's order."""
        self.available_commands: list[dict[str, Any]] = []
        """The agent's slash catalog, as its last ``available_commands_update`` gave it."""
        self.agent: dict[str, Any] = {}
        """The agent's ``initialize`` answer (its info and capabilities)."""
        self.session_id: str | None = None
        self.ready = False
        """Whether the session is open (the host takes prompts)."""
        self.exit_code: int | None = None
        self._summary = SessionSummary(transcript_id=ref.transcript_id)

    # -- the seam ----------------------------------------------------------------------

    def read(self) -> ReadResult:
        try:
            with self.ref.path.open("rb") as handle:
                handle.seek(self._offset)
                data = handle.read()
        except FileNotFoundError:
            return ReadResult(changed=[])
        end = data.rfind(b"\n") + 1
        self._offset += end
        for line in data[:end].splitlines():
            try:
                event = json.loads(line)
            except ValueError:
                continue  # the host writes whole lines; a torn one is not ours to judge
            if isinstance(event, dict):
                self._fold(event)
        changed = [self._messages[i] for i in sorted(self._changed)]
        self._changed.clear()
        return ReadResult(changed=changed)

    @property
    def messages(self) -> list[Message]:
        return list(self._messages)

    @property
    def state(self) -> State:
        return "working" if self._in_flight is not None else "idle"

    @property
    def summary(self) -> SessionSummary:
        return self._summary

    @property
    def pending_dialog(self) -> Dialog | None:
        for key in reversed(list(self._pending.values())):
            message = self._messages[self._index[key]]
            if message.dialog is not None and message.dialog.status == "pending":
                return message.dialog
        return None

    def request_of(self, tool_id: str | None) -> str | None:
        """The host's id of the pending permission request for ``tool_id``."""
        for request_id, key in self._pending.items():
            dialog = self._messages[self._index[key]].dialog
            if dialog is not None and dialog.tool_id == tool_id:
                return request_id
        return None

    def option_of(self, request_id: str, label: str) -> str | None:
        """The agent's option id behind the chat's ``label`` in that request."""
        return self._options.get((request_id, label))

    # -- folding -----------------------------------------------------------------------

    def _put(self, key: str, message: Message) -> None:
        if key in self._index:
            index = self._index[key]
            message = message.model_copy(update={"seq": self._messages[index].seq})
            self._messages[index] = message
        else:
            index = len(self._messages)
            message = message.model_copy(update={"seq": index})
            self._messages.append(message)
            self._index[key] = index
        self._changed.add(index)
        self._last_key = key

    def _get(self, key: str) -> Message | None:
        index = self._index.get(key)
        return None if index is None else self._messages[index]

    def _note(
        self, key: str, text: str, level: LifecycleLevel, at: datetime, detail: str = ""
    ) -> None:
        self._put(
            key,
            Message(
                seq=0,
                kind="lifecycle",
                role="system",
                text=text,
                level=level,
                timestamp=at,
                detail=detail,
            ),
        )

    def _fold(self, event: dict[str, Any]) -> None:
        kind = event.get("ev")
        at = datetime.fromtimestamp(float(event.get("t") or 0), UTC)
        self._summary = self._summary.model_copy(update={"updated_at": at})
        if kind == "initialized":
            self.agent = dict(event.get("answer") or {})
            info = self.agent.get("agentInfo") or {}
            self._summary = self._summary.model_copy(
                update={"cli_version": info.get("version"), "started_at": at}
            )
        elif kind == "session":
            session = event.get("session") or {}
            self.session_id = session.get("sessionId")
            self.ready = True
            model = next(
                (
                    o.get("currentValue")
                    for o in session.get("configOptions") or []
                    if isinstance(o, dict) and o.get("category") == "model"
                ),
                None,
            )
            if model:
                self._summary = self._summary.model_copy(update={"model": str(model)})
        elif kind == "prompt":
            self._turn += 1
            self._in_flight = str(event.get("id"))
            self._put(
                f"prompt:{self._in_flight}",
                Message(
                    seq=0, kind="text", role="user", text=str(event.get("text", "")), timestamp=at
                ),
            )
        elif kind == "update":
            self._update(event.get("update") or {}, at)
        elif kind == "tool_servers":
            self._servers = [s for s in event.get("servers") or [] if isinstance(s, dict)]
        elif kind == "permission":
            self._permission(event, at)
        elif kind == "permission_answer":
            self._permission_answer(event)
        elif kind == "elicitation":
            self._elicitation(event, at)
        elif kind == "elicitation_answer":
            self._elicitation_answer(event)
        elif kind == "turn_end":
            self._turn_end(event, at)
        elif kind == "cancel":
            self._note(f"cancel:{self._turn}", "Cancel requested.", "info", at)
        elif kind in ("warning", "prompt_dropped"):
            text = str(event.get("text") or "A prompt arrived while one was in flight; dropped.")
            self._note(f"warn:{self._offset}:{len(self._messages)}", text, "warning", at)
        elif kind == "error":
            self._note(f"error:{len(self._messages)}", str(event.get("text", "")), "error", at)
        elif kind == "exit":
            self.exit_code = int(event.get("code") or 0)
            self._in_flight = None
            tail = "\n".join(str(x) for x in event.get("stderr_tail") or [])
            level: LifecycleLevel = "info" if self.exit_code == 0 else "error"
            self._note("exit", f"The agent exited with code {self.exit_code}.", level, at, tail)

    def _chunk(self, role: str, thinking: bool, text: str, message_id: Any, at: datetime) -> None:
        key = f"chunk:{self._turn}:{role}:{thinking}:{message_id}"
        current = self._get(self._last_key) if self._last_key.startswith(key) else None
        if current is not None:
            self._put(self._last_key, current.model_copy(update={"text": current.text + text}))
            return
        if not text:
            return  # an empty chunk opens no message
        self._put(
            f"{key}:{len(self._messages)}",
            Message(
                seq=0,
                kind="text",
                role="user" if role == "user" else "assistant",
                text=text,
                thinking=thinking,
                timestamp=at,
                native_id=message_id,
            ),
        )

    def _update(self, update: dict[str, Any], at: datetime) -> None:
        kind = str(update.get("sessionUpdate", ""))
        if kind == "user_message_chunk" and self._in_flight is not None:
            # An agent that echoes the prompt in flight (some do, see the ACP suite): it is
            # shown already. A user chunk is the user's own only in a replayed history.
            return
        if kind in ("agent_message_chunk", "agent_thought_chunk", "user_message_chunk"):
            role = "user" if kind == "user_message_chunk" else "assistant"
            text = _text_of(update.get("content"))
            self._chunk(role, kind == "agent_thought_chunk", text, update.get("messageId"), at)
        elif kind in ("tool_call", "tool_call_update"):
            self._tool(update, at)
        elif kind == "plan":
            marks = {"completed": "[x]", "in_progress": "[~]"}
            lines = [
                f"- {marks.get(str(e.get('status')), '[ ]')} {e.get('content', '')}"
                for e in update.get("entries") or []
                if isinstance(e, dict)
            ]
            self._note(f"plan:{self._turn}", "Plan\n" + "\n".join(lines), "info", at)
        elif kind == "available_commands_update":
            self.available_commands = [
                c for c in update.get("availableCommands") or [] if isinstance(c, dict)
            ]
        elif kind == "current_mode_update":
            self._note(
                f"mode:{len(self._messages)}", f"Mode: {update.get('currentModeId')}", "info", at
            )
        elif kind == "usage_update":
            self._usage_update(update)
        elif kind in _KNOWN:
            return  # config options and session info: kept by the agent, nothing to show
        elif kind not in self._unsupported:
            self._unsupported.add(kind)
            _log.warning("unsupported ACP session/update kind %r", kind)
            self._note(
                f"unsupported:{kind}", f"Unsupported update from the agent: {kind}", "warning", at
            )

    def _usage_update(self, update: dict[str, Any]) -> None:
        changes: dict[str, Any] = {}
        if isinstance(update.get("used"), int):
            changes["context_tokens"] = update["used"]
        if isinstance(update.get("size"), int):
            changes["context_window"] = update["size"]
        cost = update.get("cost")
        if isinstance(cost, dict) and cost.get("currency") == "USD":
            try:
                changes["vendor_cost_usd"] = Decimal(str(cost.get("amount")))
            except InvalidOperation:
                pass
        self._summary = self._summary.model_copy(update=changes)

    def _tool(self, update: dict[str, Any], at: datetime) -> None:
        tool_id = str(update.get("toolCallId", ""))
        key = f"tool:{tool_id}"
        old = self._get(key)
        tool = old.tool if old is not None and old.tool is not None else None
        name = str(update.get("title") or update.get("kind") or (tool.name if tool else "tool"))
        fields: dict[str, Any] = {"name": name}
        if isinstance(update.get("rawInput"), dict) and update["rawInput"]:
            fields["input"] = update["rawInput"]
        if update.get("kind") == _EXECUTE:
            self._executing.add(tool_id)  # the call's updates omit the kind
        if tool_id in self._executing:
            # The agents seen name the command ``command`` in rawInput (a string, or an
            # argv list).
            given = fields.get("input", tool.input if tool is not None else {})
            assert isinstance(given, dict)
            line = command_line(given.get("command"))
            fields["shell"] = line or (tool.shell if tool is not None else None)
        if update.get("status") in _STATUS:
            fields["status"] = _STATUS[str(update["status"])]
        content = update.get("content")
        if isinstance(content, list) and content:
            fields["output"] = tool_output(content)
        elif update.get("rawOutput") is not None:
            fields["output"] = raw_output(update["rawOutput"])
        merged = (
            tool.model_copy(update=fields) if tool is not None else ToolCall(id=tool_id, **fields)
        )
        if old is not None:
            self._put(key, old.model_copy(update={"tool": merged}))
        else:
            self._put(key, Message(seq=0, kind="tool", role="assistant", tool=merged, timestamp=at))
        request_id = self.request_of(tool_id)
        asked = self._get(self._pending[request_id]) if request_id is not None else None
        if asked is not None and asked.dialog is not None and not asked.dialog.body:
            # The request came before the call's input (OpenCode's has none): show it now.
            dialog = asked.dialog.model_copy(update={"body": approval_body(merged.input)})
            self._put(self._pending[str(request_id)], asked.model_copy(update={"dialog": dialog}))

    def _permission(self, event: dict[str, Any], at: datetime) -> None:
        request_id = str(event.get("request_id"))
        call = event.get("tool_call") or {}
        title = str(call.get("title") or "a tool call")
        once = asks_every_call(title, self._servers)
        options = []
        for option in event.get("options") or []:
            if once and option.get("kind") not in _ONCE:
                continue
            label = OPTION_LABELS.get(str(option.get("kind")), str(option.get("name")))
            self._options[(request_id, label)] = str(option.get("optionId"))
            options.append(Option(label=label, description=str(option.get("name", ""))))
        tool_input = call.get("rawInput")
        if not tool_input:
            # The call's input as its own updates gave it, where the request repeats none.
            known = self._get(f"tool:{call.get('toolCallId')}")
            tool_input = known.tool.input if known is not None and known.tool else None
        if once:
            body = approval_body(tool_input)
        else:
            body = json.dumps(tool_input, indent=2) if tool_input else ""
        dialog = Dialog(
            kind="approval",
            questions=[
                Question(
                    header="Permission", text=f"Allow {title}?", options=options, free_text=False
                )
            ],
            tool_id=str(call.get("toolCallId") or request_id),
            tool_name=title,
            body=body,
        )
        self._ask(f"permission:{request_id}", request_id, dialog, at)

    def _ask(self, key: str, request_id: str, dialog: Dialog, at: datetime) -> None:
        """Show ``dialog`` as the open question of request ``request_id``."""
        self._pending[request_id] = key
        self._put(key, Message(seq=0, kind="dialog", role="assistant", dialog=dialog, timestamp=at))

    def _asked(self, event: dict[str, Any]) -> tuple[str, str, Message, Dialog] | None:
        """The request ``event`` answers and its open question: request id, message key,
        message and dialog (no longer open once asked for).
        """
        request_id = str(event.get("request_id"))
        key = self._pending.pop(request_id, None)
        message = self._get(key) if key else None
        if key is None or message is None or message.dialog is None:
            return None
        return request_id, key, message, message.dialog

    def _permission_answer(self, event: dict[str, Any]) -> None:
        asked = self._asked(event)
        if asked is None:
            return
        request_id, key, message, asking = asked
        chosen = event.get("option_id")
        label = next(
            (
                lab
                for (rid, lab), oid in self._options.items()
                if rid == request_id and oid == chosen
            ),
            None,
        )
        if label is None:
            dialog = asking.model_copy(update={"status": "dismissed", "outcome": "cancelled"})
        else:
            status = "rejected" if label.startswith("Reject") else "answered"
            outcome = {APPROVE: "approved", APPROVE_ALWAYS: "approved always"}.get(
                label, "rejected"
            )
            dialog = asking.model_copy(
                update={"status": status, "outcome": outcome, "answers": [Answer(selected=[label])]}
            )
        self._put(key, message.model_copy(update={"dialog": dialog}))

    def _elicitation(self, event: dict[str, Any], at: datetime) -> None:
        request_id = str(event.get("request_id"))
        schema = event.get("schema") or {}
        fields = [
            form_field(key, spec)
            for key, spec in (schema.get("properties") or {}).items()
            if isinstance(spec, dict)
        ]
        self.forms[request_id] = fields
        dialog = Dialog(
            kind="question",
            questions=[f.question for f in fields],
            tool_id=str(event.get("tool_id") or request_id),
            tool_name="elicitation",
            body=str(event.get("message", "")),
        )
        self._ask(f"elicitation:{request_id}", request_id, dialog, at)

    def _elicitation_answer(self, event: dict[str, Any]) -> None:
        asked = self._asked(event)
        if asked is None:
            return
        request_id, key, message, asking = asked
        content = event.get("content")
        fields = self.forms.get(request_id, [])
        update: dict[str, Any] = {"status": "dismissed", "outcome": "cancelled"}
        if isinstance(content, dict):
            answers = [f.recorded(content.get(f.key)) for f in fields]
            outcome = "; ".join(
                f"{f.question.header} → {', '.join(a.selected) or a.text or ''}"
                for f, a in zip(fields, answers, strict=True)
            )
            update = {"status": "answered", "answers": answers, "outcome": outcome}
        self._put(key, message.model_copy(update={"dialog": asking.model_copy(update=update)}))

    def _turn_end(self, event: dict[str, Any], at: datetime) -> None:
        self._in_flight = None
        reason = str(event.get("stopReason") or event.get("stop_reason") or "")
        usage = _usage(event.get("usage"))
        if usage is not None:
            last = next(
                (
                    i
                    for i in range(len(self._messages) - 1, -1, -1)
                    if self._messages[i].role == "assistant"
                    and self._messages[i].kind == "text"
                    and not self._messages[i].thinking
                ),
                None,
            )
            if last is not None:
                self._messages[last] = self._messages[last].model_copy(update={"usage": usage})
                self._changed.add(last)
            self._summary = self._summary.model_copy(update={"usage": self._summary.usage + usage})
        if reason == "error":
            self._note(
                f"turn:{self._turn}", f"The prompt failed: {event.get('error', '')}", "error", at
            )
        elif reason not in ("end_turn", ""):
            self._note(
                f"turn:{self._turn}", f"The turn ended: {reason.replace('_', ' ')}.", "info", at
            )
