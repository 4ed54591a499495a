"""The Anthropic Messages API as agent CLIs use it: a JSON probe and streaming SSE turns.

A streamed response is what the real API sends: ``message_start`` (the input and cache
figures, and a small partial ``output_tokens``), a ``ping``, then one content block after
the other (``content_block_start``, its deltas, ``content_block_stop``), then
``message_delta`` with the stop reason and the final, cumulative usage, then
``message_stop``. Reasoning is a ``thinking`` block (``thinking_delta`` deltas, then one
``signature_delta``) or, redacted, a ``redacted_thinking`` block whose ``data`` comes whole
in its start event; it is sent only when the request enables thinking (``thinking.type``
``enabled`` or ``adaptive``) and its tokens count inside ``output_tokens``. A request that
lists the ``thinking-token-count`` beta also gets ``output_tokens_details.thinking_tokens``.

Sub-agents: Claude Code's ``Agent`` tool (``Task`` is its alias) makes the CLI send the
sub-agent's own requests here. They carry the sub-agent prompt as their first user text
and ``cc_is_subagent=true`` in the billing line at the top of the system prompt; the
sub-agent gets its own tool list (no ``AskUserQuestion``). A portable
``ToolUse("Task", ...)`` is called as ``Agent`` when the request offers that name.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Collection, Iterator, Mapping
from typing import Any

from ._script import Reply, Thinking, ToolUse
from ._wire import (
    BURST,
    Conversation,
    Pace,
    SseEvent,
    Tokens,
    WireResponse,
    conversation_in,
    count_role,
    opaque,
    partial_output,
    text_chunks,
    tokens,
)

__all__ = ["betas", "conversation", "respond", "tool_name"]

_REMINDER = "<system-reminder>"
# The agent's mark of a sub-agent's request, in the first system block.
_SUBAGENT_MARK = "cc_is_subagent=true"

_TOOL_ALIASES: dict[str, tuple[str, ...]] = {"Task": ("Agent",)}
"""Portable tool names and the agent tools that play them, when the portable name itself
is not offered."""

_THINKING_BETA = "thinking-token-count"


def _user_texts(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content]
    texts: list[str] = []
    if isinstance(content, list):
        for block in content:
            if isinstance(block, dict) and block.get("type") == "text":
                text = str(block.get("text", ""))
                # Agent CLIs inject reminders as extra text blocks; they are not the user's.
                if not text.lstrip().startswith(_REMINDER) and not _reports_back(text):
                    texts.append(text)
    return texts


_REPORTS = ("<task-notification>", "<agent-message ")
# How a background sub-agent's report reaches the main thread in the pinned Claude Code: a
# task notification, or a message from the sub-agent as a peer ("... <agent-message
# from=...>[Subagent hand-back] ...").


def _reports_back(text: str) -> bool:
    """Whether a user-role text is a sub-agent reporting back, not the user.

    The report continues the turn that started the sub-agent: the model answers it as the
    next step of that turn.

    Examples
    --------
    >>> _reports_back('Another Claude session sent a message: <agent-message from="a1">')
    True
    >>> _reports_back("count the files")
    False
    """
    head = text.lstrip()[:200]
    return any(mark in head for mark in _REPORTS)


def _is_subagent(body: dict[str, Any]) -> bool:
    system = body.get("system")
    blocks = system if isinstance(system, list) else [system]
    return any(
        _SUBAGENT_MARK in str(b.get("text", "") if isinstance(b, dict) else b) for b in blocks[:2]
    )


def _canonical(value: Any) -> Any:
    """``value`` as the same conversation always reads, whatever request re-sent it.

    The CLI moves its ``cache_control`` marks to the newest messages on every request, and
    sends a message's text as a block list once and as a plain string later: one
    conversation must keep one key.

    Examples
    --------
    >>> _canonical([{"role": "user", "content": [
    ...     {"type": "text", "text": "hi", "cache_control": {"type": "ephemeral"}}]}])
    [{'role': 'user', 'content': [{'type': 'text', 'text': 'hi'}]}]
    >>> _canonical([{"role": "user", "content": "hi"}])
    [{'role': 'user', 'content': [{'type': 'text', 'text': 'hi'}]}]
    """
    if isinstance(value, dict):
        out = {k: _canonical(v) for k, v in value.items() if k != "cache_control"}
        if "role" in out and isinstance(out.get("content"), str):
            out["content"] = [{"type": "text", "text": out["content"]}]
        return out
    if isinstance(value, list):
        return [_canonical(v) for v in value]
    return value


def _user_text(message: Any) -> str | None:
    # Agents may append role "system" context after the prompt: only a user's words count.
    if message.get("role") != "user":
        return None
    texts = _user_texts(message.get("content"))
    return "\n".join(texts) if texts else None


def conversation(body: dict[str, Any]) -> Conversation:
    """Find the latest user text and how many model steps answered it so far.

    Examples
    --------
    >>> c = conversation({"messages": [{"role": "user", "content": "hi"}]})
    >>> c.user_text, c.step, c.subagent
    ('hi', 0, False)
    >>> system = [{"type": "text", "text": "x-anthropic-billing-header: cc_is_subagent=true;"}]
    >>> conversation({"system": system, "messages": []}).subagent
    True
    """
    return conversation_in(
        body.get("messages"),
        _user_text,
        count_role("assistant"),
        key=lambda turn: json.dumps(_canonical(turn.asked), sort_keys=True, default=str),
        subagent=_is_subagent(body),
    )


def betas(headers: Mapping[str, str]) -> frozenset[str]:
    """The beta features a request lists in its ``anthropic-beta`` header.

    Examples
    --------
    >>> sorted(betas({"anthropic-beta": "a-1, b-2"}))
    ['a-1', 'b-2']
    """
    # The Messages API has one header that ends so; its name is the vendor's.
    raw = next((v for k, v in headers.items() if k.lower().endswith("-beta")), "")
    return frozenset(b.strip() for b in raw.split(",") if b.strip())


def tool_name(tool: ToolUse, body: dict[str, Any]) -> str:
    """The tool name that plays ``tool`` for this request's agent.

    Examples
    --------
    >>> tool_name(ToolUse("Task"), {"tools": [{"name": "Agent"}]})
    'Agent'
    >>> tool_name(ToolUse("Task"), {"tools": [{"name": "Task"}]})
    'Task'
    """
    offered = {str(t.get("name")) for t in body.get("tools") or [] if isinstance(t, dict)}
    if tool.name in offered:
        return tool.name
    return next((n for n in _TOOL_ALIASES.get(tool.name, ()) if n in offered), tool.name)


_HANDBACK = "SubagentHandback"


def delivered(reply: Reply, body: dict[str, Any]) -> Reply:
    """``reply`` as a model answering this request plays it.

    Claude Code's sub-agents hand their report back only through the ``SubagentHandback``
    tool their requests offer (plain final text is not delivered, and the CLI asks again):
    a model follows that instruction, so a scripted final answer in text becomes that call.

    Examples
    --------
    >>> body = {"tools": [{"name": "Bash"}, {"name": "SubagentHandback"}]}
    >>> delivered(Reply("3 files"), body).calls
    (ToolUse(name='SubagentHandback', input={'message': '3 files'}),)
    >>> delivered(Reply("3 files"), {"tools": [{"name": "Bash"}]}).calls
    ()
    """
    offered = {t.get("name") for t in body.get("tools") or [] if isinstance(t, dict)}
    if reply.calls or _HANDBACK not in offered:
        return reply
    report = "\n\n".join(b for b in reply.content if isinstance(b, str))
    thoughts = tuple(b for b in reply.blocks if isinstance(b, Thinking))
    handback = ToolUse(_HANDBACK, {"message": report})
    return dataclasses.replace(reply, text="", tools=(), blocks=(*thoughts, handback))


def _thinks(body: dict[str, Any]) -> bool:
    thinking = body.get("thinking")
    return isinstance(thinking, dict) and thinking.get("type") in ("enabled", "adaptive")


def _blocks(reply: Reply, body: dict[str, Any]) -> list[Thinking | str | ToolUse]:
    return [b for b in reply.content if not isinstance(b, Thinking) or _thinks(body)]


def _usage(figures: Tokens, output: int, beta: Collection[str]) -> dict[str, Any]:
    usage: dict[str, Any] = {
        "input_tokens": figures.input,
        "cache_creation_input_tokens": figures.cache_write,
        "cache_read_input_tokens": figures.cache_read,
        "output_tokens": output,
    }
    if any(b.startswith(_THINKING_BETA) for b in beta):
        usage["output_tokens_details"] = {"thinking_tokens": figures.reasoning}
    return usage


def _full_usage(figures: Tokens, output: int, beta: Collection[str]) -> dict[str, Any]:
    usage = _usage(figures, output, beta)
    usage["cache_creation"] = {
        "ephemeral_5m_input_tokens": figures.cache_write - figures.cache_write_1h,
        "ephemeral_1h_input_tokens": figures.cache_write_1h,
    }
    usage["service_tier"] = "standard"
    return usage


def _final(reply: Reply, body: dict[str, Any], figures: Tokens) -> int:
    thought = any(isinstance(b, Thinking) for b in _blocks(reply, body))
    return figures.output + (figures.reasoning if thought else 0)


def _content(reply: Reply, body: dict[str, Any], tool_ids: list[str]) -> list[dict[str, Any]]:
    content: list[dict[str, Any]] = []
    ids = iter(tool_ids)
    for block in _blocks(reply, body):
        if isinstance(block, Thinking):
            content.append(_thinking_block(block))
        elif isinstance(block, str):
            content.append({"type": "text", "text": block})
        else:
            content.append(
                {
                    "type": "tool_use",
                    "id": next(ids),
                    "name": tool_name(block, body),
                    "input": block.input,
                }
            )
    return content


def _thinking_block(block: Thinking) -> dict[str, Any]:
    if block.redacted:
        return {"type": "redacted_thinking", "data": opaque("redacted", block.text)}
    return {"type": "thinking", "thinking": block.text, "signature": opaque("sig", block.text)}


def _safeguard_results(body: dict[str, Any], tool_ids: list[str]) -> list[dict[str, Any]]:
    """The server-side checks a request asks for, answered: every tool call is fine.

    Claude Code asks the API to judge its tool calls (``safeguards``, type
    ``dangerous_tool_use``) and, in its ``auto`` permission mode, holds a call it cannot get a
    verdict for. A real API sends the verdicts in ``message_delta``; so does this one.

    Examples
    --------
    >>> verdicts = _safeguard_results({"safeguards": [{"type": "dangerous_tool_use"}]}, ["t1"])
    >>> verdicts[0]["status"]["tool_uses"]
    {'t1': {'type': 'evaluated', 'outcome': 'not_flagged'}}
    >>> _safeguard_results({}, ["t1"])
    []
    """
    asked = body.get("safeguards")
    if not isinstance(asked, list) or not tool_ids:
        return []
    verdict = {"type": "evaluated", "outcome": "not_flagged"}
    return [
        {
            "type": "dangerous_tool_use",
            "status": {"type": "available", "tool_uses": {t: dict(verdict) for t in tool_ids}},
        }
        for check in asked
        if isinstance(check, dict) and check.get("type") == "dangerous_tool_use"
    ]


def _stream(
    reply: Reply,
    body: dict[str, Any],
    message_id: str,
    tool_ids: list[str],
    pace: Pace,
    beta: Collection[str],
) -> Iterator[SseEvent]:
    figures = tokens(reply, json.dumps(body.get("messages", [])))
    final = _final(reply, body, figures)

    def event(data: dict[str, Any], delay: float = 0.0) -> SseEvent:
        return SseEvent(str(data["type"]), data, delay=delay)

    def delta(index: int, payload: dict[str, Any], delay: float = 0.0) -> SseEvent:
        return event({"type": "content_block_delta", "index": index, "delta": payload}, delay)

    yield event(
        {
            "type": "message_start",
            "message": {
                "id": message_id,
                "type": "message",
                "role": "assistant",
                "model": body.get("model", "scripted"),
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": _full_usage(figures, partial_output(final), ()),
            },
        }
    )
    yield event({"type": "ping"})
    pause = 0.0  # the pause after a block falls before whatever comes next
    for index, block in enumerate(_content(reply, body, tool_ids)):
        kind = block["type"]
        if kind == "thinking":
            opening: dict[str, Any] = {"type": "thinking", "thinking": "", "signature": ""}
        elif kind == "text":
            opening = {"type": "text", "text": ""}
        elif kind == "tool_use":
            opening = dict(block, input={})
        else:
            opening = block  # redacted_thinking comes whole in its start event
        yield event(
            {"type": "content_block_start", "index": index, "content_block": opening}, pause
        )
        if kind == "thinking":
            for piece in text_chunks(block["thinking"]):
                yield delta(index, {"type": "thinking_delta", "thinking": piece}, pace.chunk)
            yield delta(index, {"type": "signature_delta", "signature": block["signature"]})
        elif kind == "text":
            for piece in text_chunks(block["text"]):
                yield delta(index, {"type": "text_delta", "text": piece}, pace.chunk)
        elif kind == "tool_use":
            yield delta(index, {"type": "input_json_delta", "partial_json": ""})
            for piece in text_chunks(json.dumps(block["input"])):
                yield delta(index, {"type": "input_json_delta", "partial_json": piece}, pace.chunk)
        yield event({"type": "content_block_stop", "index": index})
        pause = pace.block
    closing: dict[str, Any] = {"stop_reason": reply.stop_reason, "stop_sequence": None}
    verdicts = _safeguard_results(body, tool_ids)
    if verdicts:
        closing["safeguard_results"] = verdicts
    yield event(
        {"type": "message_delta", "delta": closing, "usage": _usage(figures, final, beta)},
        pause,
    )
    yield event({"type": "message_stop"})


def respond(
    reply: Reply,
    body: dict[str, Any],
    message_id: str,
    tool_ids: list[str],
    pace: Pace = BURST,
    beta: Collection[str] = (),
) -> WireResponse:
    """Answer one ``POST /v1/messages`` with ``reply``, streamed when the request asks.

    ``tool_ids`` supplies one id per tool call; ``beta`` is what :func:`betas` found.
    """
    if body.get("stream"):
        events = _stream(reply, body, message_id, tool_ids, pace, beta)
        return WireResponse(events=events, delay=reply.delay)
    figures = tokens(reply, json.dumps(body.get("messages", [])))
    payload = {
        "id": message_id,
        "type": "message",
        "role": "assistant",
        "model": body.get("model", "scripted"),
        "content": _content(reply, body, tool_ids),
        "stop_reason": reply.stop_reason,
        "stop_sequence": None,
        "usage": _full_usage(figures, _final(reply, body, figures), beta),
    }
    return WireResponse(json_body=payload, delay=reply.delay)
