"""Gemini CLI's message records, one at a time: their text, thoughts, tool results and usage.

Pinned to Gemini CLI 0.61.0 (``_compat.py``); older versions' records have the same shape
(their shell results aside, see ``_compat.LEGACY_SHELL_OUTPUT``).
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from ...schema import AgentScope, Message, ModelUsage, Usage
from ..kit import PartsGrammar, genai_attachments, genai_call
from ..kit import iso_time as timestamp
from . import _compat

__all__ = [
    "ModelTally",
    "attachments",
    "has_function_response",
    "is_context",
    "is_user_prompt",
    "record_usage",
    "texts",
    "thinking",
    "timestamp",
    "tool_message",
    "tool_output",
    "user_text",
]

_EXIT_CODE = re.compile(_compat.EXIT_CODE)
_FINAL_TOOL = {"success": "ok", "error": "error", "cancelled": "error"}


_PARTS = PartsGrammar(
    context_prefixes=_compat.CONTEXT_PREFIXES,
    output_wrapper=_compat.OUTPUT_WRAPPER,
    process_group=_compat.PROCESS_GROUP,
    shell_output=_compat.LEGACY_SHELL_OUTPUT,
    empty=_compat.LEGACY_EMPTY,
)
is_context = _PARTS.is_context
"""Whether a user text part is Gemini CLI's own context (``<session_context>``)."""
texts = _PARTS.texts
tool_output = _PARTS.tool_output
"""A call's ``result`` text: unwrapped, 0.20.2's field-laid shell result read as well."""
attachments = genai_attachments


def thinking(record: dict[str, Any]) -> list[str]:
    r"""The reasoning a model response carries, one text per thought, before its answer.

    Gemini CLI keeps a response's thoughts as ``thoughts`` (``subject`` and ``description``,
    parsed from the thought's ``**subject**`` heading); a thought part left in ``content``
    counts too. Reasoning it kept no text of (a thought part without text, or thought
    tokens billed without any thought) is hidden reasoning: an empty text, shown as hidden,
    never dropped.

    Examples
    --------
    >>> thinking({"thoughts": [{"subject": "Plan", "description": "Run ls."}]})
    ['**Plan**\n\nRun ls.']
    >>> thinking({"content": [{"thought": True, "thoughtSignature": "c2ln"}, {"text": "hi"}]})
    ['']
    >>> thinking({"content": "hi", "thoughts": [], "tokens": {"thoughts": 4}})
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
    tokens = record.get("tokens")
    if not found and isinstance(tokens, dict) and _count(tokens.get("thoughts")):
        # The model reasoned (and was billed for it) but sent only a signature: Gemini CLI
        # keeps no thought. Hidden reasoning, shown as such.
        found.append("")
    return found


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def record_usage(tokens: Any) -> Usage | None:
    """A record's ``tokens`` as billed: cached tokens apart from the rest of the input, the
    tool-use prompt as input, thoughts as output.

    Examples
    --------
    >>> u = record_usage({"input": 1000, "output": 50, "cached": 400, "thoughts": 20, "tool": 7})
    >>> (u.input_tokens, u.output_tokens, u.reasoning_tokens, u.cache_read_tokens, u.total)
    (607, 70, 20, 400, 1077)
    """
    if not isinstance(tokens, dict):
        return None
    cached = _count(tokens.get("cached"))
    return Usage(
        # Gemini counts cached tokens inside the prompt's; the schema keeps them apart.
        input_tokens=max(0, _count(tokens.get("input")) - cached) + _count(tokens.get("tool")),
        output_tokens=_count(tokens.get("output")) + _count(tokens.get("thoughts")),
        reasoning_tokens=_count(tokens.get("thoughts")),
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


def is_user_prompt(record: dict[str, Any]) -> bool:
    return record.get("type") == "user" and bool(texts(record.get("content")))


def has_function_response(record: dict[str, Any]) -> bool:
    content = record.get("content")
    return isinstance(content, list) and any(
        isinstance(p, dict) and "functionResponse" in p for p in content
    )


def tool_message(
    call: dict[str, Any], native: str, stamp: datetime | None, model: str | None
) -> Message:
    """One call of a response as a tool message: its status and result (a non-zero exit
    code fails it, a cancelled call is rejected), its sub-agent, the images it returned.
    """
    status = str(call.get("status") or "")
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
    agent_id = call.get("agentId")
    tool = genai_call(
        call,
        _compat.SHELL_TOOLS,
        status=final or "running",
        output=output,
        agent_id=agent_id if isinstance(agent_id, str) and agent_id else None,
    )
    return Message(
        seq=0,
        kind="tool",
        role="assistant",
        tool=tool,
        native_id=native,
        timestamp=timestamp(call.get("timestamp")) or stamp,
        model=model,
        attachments=attachments(call.get("result")),
    )


def user_text(record: dict[str, Any]) -> str:
    """What the user typed: ``displayContent`` where the CLI kept it apart from the
    ``content`` it sent (an ``@file`` prompt's content carries the file between markers).

    Examples
    --------
    >>> user_text({"content": [{"text": "see @a.png"}, {"text": "--- Content from"}],
    ...            "displayContent": [{"text": "see @a.png"}]})
    'see @a.png'
    """
    return texts(record.get("displayContent")) or texts(record.get("content"))
