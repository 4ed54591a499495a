"""Qwen Code's chat records, one at a time: the messages a prompt or a model response
shows, a call's result, a response's usage. Their ``message`` is a GenAI ``Content`` read by
the family's parts grammar (``kit.PartsGrammar``); the envelope around it is Qwen Code's own
(``_compat.USER_TYPE`` ...).
"""

from __future__ import annotations

from typing import Any

from ...schema import Message, ToolStatus, Usage
from ..kit import genai_attachments, genai_call, iso_time
from . import _compat

__all__ = ["PARTS", "call_result", "parts", "record_usage", "response_messages", "user_message"]

PARTS = _compat.PARTS


def parts(record: dict[str, Any]) -> list[Any]:
    """The ``message.parts`` of a record (empty when it has none)."""
    message = record.get("message")
    found = message.get("parts") if isinstance(message, dict) else None
    return found if isinstance(found, list) else []


def user_message(record: dict[str, Any]) -> Message | None:
    """A prompt the user typed, as a message (``None`` for anything else).

    Examples
    --------
    >>> m = user_message({"type": "user", "provenance": "real_user", "uuid": "u",
    ...                   "message": {"parts": [{"text": "<system-reminder>x"}, {"text": "hi"}]}})
    >>> m.role, m.text, m.native_id
    ('user', 'hi', 'u')
    """
    if record.get("type") != _compat.USER_TYPE or record.get("provenance") != _compat.REAL_USER:
        return None
    found = parts(record)
    text = PARTS.texts(found)
    images = genai_attachments(found)
    if not text and not images:
        return None
    return Message(
        seq=0,
        kind="text",
        role="user",
        text=text,
        native_id=str(record.get("uuid") or ""),
        timestamp=iso_time(record.get("timestamp")),
        attachments=images,
    )


def response_messages(record: dict[str, Any]) -> list[Message]:
    """A model response's thoughts, text and calls (each call ``running`` until its result).

    Examples
    --------
    >>> ms = response_messages({"type": "assistant", "uuid": "a", "model": "m", "message": {
    ...     "parts": [{"text": "plan", "thought": True}, {"text": "Let me check."},
    ...               {"functionCall": {"id": "c1", "name": "run_shell_command",
    ...                                 "args": {"command": "ls"}}}]}})
    >>> [(m.kind, m.thinking, m.text) for m in ms]
    [('text', True, 'plan'), ('text', False, 'Let me check.'), ('tool', False, '')]
    >>> ms[2].tool.status
    'running'
    """
    native = str(record.get("uuid") or "")
    model = record.get("model") if isinstance(record.get("model"), str) else None
    stamp = iso_time(record.get("timestamp"))

    def said(**fields: Any) -> Message:
        return Message(
            seq=0, role="assistant", native_id=native, timestamp=stamp, model=model, **fields
        )

    found: list[Message] = []
    text: list[str] = []
    for part in parts(record):
        if not isinstance(part, dict):
            continue
        if part.get("thought"):
            thought = part.get("text")
            shown = thought.strip() if isinstance(thought, str) else ""
            found.append(said(kind="text", text=shown, thinking=True, redacted=not shown))
        elif isinstance(part.get("text"), str):
            text.append(part["text"])
        elif isinstance(part.get("functionCall"), dict):
            if text:
                found.append(said(kind="text", text="".join(text)))
                text = []
            tool = genai_call(part["functionCall"], _compat.SHELL_TOOLS, status="running")
            found.append(said(kind="tool", tool=tool))
    if text:
        found.append(said(kind="text", text="".join(text)))
    return found


def call_result(record: dict[str, Any]) -> tuple[str, ToolStatus, str] | None:
    r"""A ``tool_result`` record's call id, final status and output text.

    Examples
    --------
    >>> out = "Command: ls\nDirectory: (root)\nOutput: a\nError: (none)\nExit Code: 0\n"
    >>> reply = {"parts": [{"functionResponse": {"response": {"output": out}}}]}
    >>> call_result({"type": "tool_result", "message": reply,
    ...              "toolCallResult": {"callId": "c", "status": "success"}})
    ('c', 'ok', 'a')
    """
    if record.get("type") != _compat.TOOL_RESULT_TYPE:
        return None
    result = record.get("toolCallResult")
    result = result if isinstance(result, dict) else {}
    call_id = result.get("callId")
    if not isinstance(call_id, str):
        return None
    output = PARTS.tool_output(parts(record))
    status: ToolStatus = (
        "ok" if _compat.TOOL_STATUS.get(str(result.get("status"))) == "ok" else "error"
    )
    if "\nExit Code: " in f"\n{output}" and status == "ok":
        status = "error"  # a field-laid result keeps its exit code only when it is not 0
    if result.get("status") == "cancelled":
        output = f"{output} {_compat.REJECTED_STATUS}".strip()
    return call_id, status, output


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def record_usage(record: dict[str, Any]) -> Usage | None:
    """A model response's ``usageMetadata`` as billed: cached tokens apart from the rest of
    the prompt, thoughts as output.

    Examples
    --------
    >>> u = record_usage({"usageMetadata": {"promptTokenCount": 100, "candidatesTokenCount": 5,
    ...                   "cachedContentTokenCount": 40, "thoughtsTokenCount": 2}})
    >>> (u.input_tokens, u.output_tokens, u.reasoning_tokens, u.cache_read_tokens)
    (60, 7, 2, 40)
    """
    figures = record.get("usageMetadata")
    if not isinstance(figures, dict):
        return None
    keys = _compat.USAGE_KEYS
    cached = _count(figures.get(keys["cached"]))
    thoughts = _count(figures.get(keys["thoughts"]))
    return Usage(
        input_tokens=max(0, _count(figures.get(keys["input"])) - cached),
        output_tokens=_count(figures.get(keys["output"])) + thoughts,
        reasoning_tokens=thoughts,
        cache_read_tokens=cached,
    )
