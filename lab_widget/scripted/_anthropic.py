"""The Anthropic Messages API as agent CLIs use it: a JSON probe and streaming SSE turns."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from ._script import Reply
from ._wire import Conversation, SseEvent, WireResponse, estimate_tokens, text_chunks

__all__ = ["conversation", "respond"]

_REMINDER = "<system-reminder>"


def _user_texts(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content]
    texts: list[str] = []
    if isinstance(content, list):
        for block in content:
            if isinstance(block, dict) and block.get("type") == "text":
                text = str(block.get("text", ""))
                # Agent CLIs inject reminders as extra text blocks; they are not the user's.
                if not text.lstrip().startswith(_REMINDER):
                    texts.append(text)
    return texts


def conversation(body: dict[str, Any]) -> Conversation:
    """Find the latest user text and how many model steps answered it so far."""
    messages = body.get("messages") or []
    steps = 0
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if message.get("role") == "assistant":
            steps += 1
            continue
        if message.get("role") != "user":
            continue  # agents may append role "system" context after the prompt
        texts = _user_texts(message.get("content"))
        if texts:
            key = json.dumps(messages[: index + 1], sort_keys=True, default=str)
            return Conversation(user_text="\n".join(texts), step=steps, key=key)
    return Conversation(user_text="", step=steps, key="")


def _usage(reply: Reply, body: dict[str, Any]) -> dict[str, Any]:
    return {
        "input_tokens": reply.input_tokens
        if reply.input_tokens is not None
        else estimate_tokens(json.dumps(body.get("messages", []))),
        "output_tokens": reply.output_tokens
        if reply.output_tokens is not None
        else estimate_tokens(reply.text) + 10 * len(reply.tools),
        "cache_read_input_tokens": reply.cache_read_tokens,
        "cache_creation_input_tokens": reply.cache_write_tokens,
        # The API breaks cache writes down by lifetime beside the total; agents record the
        # breakdown, and readers of their files count from it.
        "cache_creation": {
            "ephemeral_5m_input_tokens": reply.cache_write_tokens,
            "ephemeral_1h_input_tokens": 0,
        },
    }


def _content(reply: Reply, tool_ids: list[str]) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    if reply.text:
        blocks.append({"type": "text", "text": reply.text})
    for tool, tool_id in zip(reply.tools, tool_ids, strict=True):
        blocks.append({"type": "tool_use", "id": tool_id, "name": tool.name, "input": tool.input})
    return blocks


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
    reply: Reply, body: dict[str, Any], message_id: str, tool_ids: list[str]
) -> Iterator[SseEvent]:
    usage = _usage(reply, body)
    start_usage = dict(usage, output_tokens=1)
    yield SseEvent(
        "message_start",
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
                "usage": start_usage,
            },
        },
    )
    index = 0
    if reply.text:
        yield SseEvent(
            "content_block_start",
            {
                "type": "content_block_start",
                "index": index,
                "content_block": {"type": "text", "text": ""},
            },
        )
        for chunk in text_chunks(reply.text):
            yield SseEvent(
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": index,
                    "delta": {"type": "text_delta", "text": chunk},
                },
                delay=reply.chunk_delay,
            )
        yield SseEvent("content_block_stop", {"type": "content_block_stop", "index": index})
        index += 1
    for tool, tool_id in zip(reply.tools, tool_ids, strict=True):
        yield SseEvent(
            "content_block_start",
            {
                "type": "content_block_start",
                "index": index,
                "content_block": {
                    "type": "tool_use",
                    "id": tool_id,
                    "name": tool.name,
                    "input": {},
                },
            },
        )
        yield SseEvent(
            "content_block_delta",
            {
                "type": "content_block_delta",
                "index": index,
                "delta": {"type": "input_json_delta", "partial_json": json.dumps(tool.input)},
            },
        )
        yield SseEvent("content_block_stop", {"type": "content_block_stop", "index": index})
        index += 1
    delta: dict[str, Any] = {"stop_reason": reply.stop_reason, "stop_sequence": None}
    verdicts = _safeguard_results(body, tool_ids)
    if verdicts:
        delta["safeguard_results"] = verdicts
    yield SseEvent(
        "message_delta",
        {
            "type": "message_delta",
            "delta": delta,
            "usage": {"output_tokens": usage["output_tokens"]},
        },
    )
    yield SseEvent("message_stop", {"type": "message_stop"})


def respond(
    reply: Reply, body: dict[str, Any], message_id: str, tool_ids: list[str]
) -> WireResponse:
    """Answer one ``POST /v1/messages`` with ``reply``, streamed when the request asks."""
    if body.get("stream"):
        return WireResponse(events=_stream(reply, body, message_id, tool_ids), delay=reply.delay)
    payload = {
        "id": message_id,
        "type": "message",
        "role": "assistant",
        "model": body.get("model", "scripted"),
        "content": _content(reply, tool_ids),
        "stop_reason": reply.stop_reason,
        "stop_sequence": None,
        "usage": _usage(reply, body),
    }
    return WireResponse(json_body=payload, delay=reply.delay)
