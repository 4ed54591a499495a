"""The OpenAI Responses API as Codex CLI uses it: ``POST /v1/responses``, streamed SSE.

A request carries the whole conversation as ``input`` items (messages, function calls and
their outputs). The agent's own context (environment, instructions, permissions) rides
along as user or developer messages wrapped in known tags; it is never the user's text.

A script's :class:`~lab_widget.scripted.ToolUse` names the tool as any agent knows it:
when the request offers a tool by that name it is called as written; a portable name
(``"Bash"``) is translated to the shell tool the request offers, keeping only the
arguments that tool declares.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from ._script import Reply, ToolUse
from ._wire import Conversation, SseEvent, WireResponse, estimate_tokens, text_chunks

__all__ = ["conversation", "function_call", "is_side_query", "respond", "side_reply"]

_CONTEXT_PREFIXES = (
    "<environment_context>",
    "<user_instructions>",
    "<permissions instructions>",
    "<skills_instructions>",
    "<turn_aborted>",
    "<user_shell_command>",
    "# AGENTS.md instructions",
)
"""User-role messages the agent writes itself; never what the user typed."""

_MODEL_ITEMS = frozenset(
    {
        "message",  # role assistant only; checked below
        "reasoning",
        "function_call",
        "custom_tool_call",
        "local_shell_call",
        "web_search_call",
    }
)

_SHELL_ALIASES: dict[str, tuple[str, ...]] = {"Bash": ("exec_command", "shell")}
"""Portable tool names and the agent tools that play them, most preferred first."""

_ARGUMENT_ALIASES: dict[str, dict[str, str]] = {"exec_command": {"command": "cmd"}}
"""Argument renames from the portable tool's shape to the agent tool's."""


def _texts(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content]
    if not isinstance(content, list):
        return []
    return [
        str(part.get("text", ""))
        for part in content
        if isinstance(part, dict) and part.get("type") in ("input_text", "output_text", "text")
    ]


def _user_text(item: Any) -> str | None:
    if not isinstance(item, dict) or item.get("role") != "user":
        return None
    if item.get("type", "message") != "message":
        return None
    texts = [t for t in _texts(item.get("content")) if not t.lstrip().startswith(_CONTEXT_PREFIXES)]
    return "\n".join(texts) if texts else None


def _is_model_item(item: Any) -> bool:
    if not isinstance(item, dict):
        return False
    kind = item.get("type", "message")
    if kind == "message":
        return item.get("role") == "assistant"
    return kind in _MODEL_ITEMS


def conversation(body: dict[str, Any]) -> Conversation:
    """Find the latest user text and how many model responses answered it so far.

    One model response may add several items (reasoning, text, calls); consecutive model
    items count as one step.

    Examples
    --------
    >>> items = [
    ...     {"type": "message", "role": "user",
    ...      "content": [{"type": "input_text", "text": "<environment_context>x"}]},
    ...     {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]},
    ...     {"type": "function_call", "name": "exec_command", "call_id": "c", "arguments": "{}"},
    ...     {"type": "function_call_output", "call_id": "c", "output": "ok"},
    ... ]
    >>> c = conversation({"input": items})
    >>> c.user_text, c.step
    ('hi', 1)
    """
    items = body.get("input") or []
    if not isinstance(items, list):
        return Conversation(user_text="", step=0, key="")
    for index in range(len(items) - 1, -1, -1):
        text = _user_text(items[index])
        if text is None:
            continue
        steps, previous_was_model = 0, False
        for item in items[index + 1 :]:
            is_model = _is_model_item(item)
            if is_model and not previous_was_model:
                steps += 1
            previous_was_model = is_model
        # The user texts so far and the agent's thread id identify one turn of one
        # conversation, whatever context the agent re-sends around them.
        history = [t for t in (_user_text(i) for i in items[: index + 1]) if t is not None]
        key = json.dumps([body.get("prompt_cache_key"), history])
        return Conversation(user_text=text, step=steps, key=key)
    return Conversation(user_text="", step=0, key="")


def _turn_metadata(body: dict[str, Any]) -> dict[str, Any]:
    """Find the agent's per-request metadata.

    It is a JSON object carried as a ``client_metadata`` string value, the one that says
    which thread source the request serves.
    """
    meta = body.get("client_metadata")
    for raw in meta.values() if isinstance(meta, dict) else ():
        if not isinstance(raw, str) or "thread_source" not in raw:
            continue
        try:
            value = json.loads(raw)
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    return {}


def is_side_query(body: dict[str, Any]) -> bool:
    """Whether the request is one of the agent's side queries (e.g. a thread title).

    Codex marks its per-turn title request ``thread_source: "thread_title"`` in the turn
    metadata it sends in ``client_metadata``; without that mark, a request with no tools
    that asks for a JSON schema is taken as one (some models get no tools at all, so "no
    tools" alone is not enough).

    Examples
    --------
    >>> meta = {"turn-metadata": '{"thread_source": "thread_title"}'}
    >>> is_side_query({"tools": [], "client_metadata": meta}), is_side_query({"tools": []})
    (True, False)
    """
    source = _turn_metadata(body).get("thread_source")
    if source is not None:
        return bool(source == "thread_title")
    fmt = body.get("text", {}).get("format") if isinstance(body.get("text"), dict) else None
    return bool(
        not body.get("tools") and isinstance(fmt, dict) and fmt.get("type") == "json_schema"
    )


def side_reply(body: dict[str, Any], text: str) -> Reply:
    """The answer to a side query: JSON when the request asks for a JSON schema.

    Examples
    --------
    >>> schema = {"type": "object", "properties": {"title": {"type": "string"}}}
    >>> side_reply({"text": {"format": {"type": "json_schema", "schema": schema}}}, "T").text
    '{"title": "T"}'
    """
    fmt = (body.get("text") or {}).get("format") if isinstance(body.get("text"), dict) else None
    if isinstance(fmt, dict) and fmt.get("type") == "json_schema":
        schema = fmt.get("schema") or {}
        properties = schema.get("properties") if isinstance(schema, dict) else None
        if isinstance(properties, dict):
            return Reply(json.dumps({name: text for name in properties}))
    return Reply(text)


def _offered(body: dict[str, Any]) -> dict[str, dict[str, Any]]:
    tools = body.get("tools") or []
    return {
        str(t.get("name")): t
        for t in tools
        if isinstance(t, dict) and t.get("type") == "function" and t.get("name")
    }


def function_call(tool: ToolUse, body: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The function name and arguments that play ``tool`` for this request's agent.

    Examples
    --------
    >>> tools = [{"type": "function", "name": "exec_command", "parameters": {
    ...     "properties": {"cmd": {}, "justification": {}}}}]
    >>> function_call(ToolUse("Bash", {"command": "ls", "description": "list"}),
    ...               {"tools": tools})
    ('exec_command', {'cmd': 'ls'})
    >>> function_call(ToolUse("custom", {"a": 1}), {"tools": tools})
    ('custom', {'a': 1})
    """
    offered = _offered(body)
    if tool.name in offered or tool.name not in _SHELL_ALIASES:
        return tool.name, dict(tool.input)
    name = next((n for n in _SHELL_ALIASES[tool.name] if n in offered), None)
    if name is None:
        return tool.name, dict(tool.input)
    renames = _ARGUMENT_ALIASES.get(name, {})
    arguments = {renames.get(k, k): v for k, v in tool.input.items()}
    if name == "shell" and isinstance(arguments.get("command"), str):
        arguments["command"] = ["bash", "-lc", arguments["command"]]
    params = offered[name].get("parameters") or {}
    known = params.get("properties") if isinstance(params, dict) else None
    if isinstance(known, dict):
        arguments = {k: v for k, v in arguments.items() if k in known}
    return name, arguments


def _usage(reply: Reply, body: dict[str, Any]) -> dict[str, Any]:
    input_tokens = (
        reply.input_tokens
        if reply.input_tokens is not None
        else estimate_tokens(json.dumps(body.get("input", [])))
    )
    output_tokens = (
        reply.output_tokens
        if reply.output_tokens is not None
        else estimate_tokens(reply.text) + 10 * len(reply.tools)
    )
    # Responses count cached tokens inside input_tokens.
    total_input = input_tokens + reply.cache_read_tokens
    reasoning = estimate_tokens(reply.reasoning) if reply.reasoning else 0
    return {
        "input_tokens": total_input,
        "input_tokens_details": {"cached_tokens": reply.cache_read_tokens},
        "output_tokens": output_tokens,
        "output_tokens_details": {"reasoning_tokens": reasoning},
        "total_tokens": total_input + output_tokens,
    }


def _items(
    reply: Reply, body: dict[str, Any], ids: Iterator[str], call_ids: list[str]
) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    if reply.reasoning:
        items.append(
            {
                "type": "reasoning",
                "id": next(ids),
                "summary": [{"type": "summary_text", "text": reply.reasoning}],
            }
        )
    if reply.text:
        items.append(
            {
                "type": "message",
                "id": next(ids),
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": reply.text, "annotations": []}],
            }
        )
    for tool, call_id in zip(reply.tools, call_ids, strict=True):
        name, arguments = function_call(tool, body)
        items.append(
            {
                "type": "function_call",
                "id": next(ids),
                "call_id": call_id,
                "name": name,
                "arguments": json.dumps(arguments),
                "status": "completed",
            }
        )
    return items


def _in_progress(item: dict[str, Any]) -> dict[str, Any]:
    if item["type"] == "message":
        return dict(item, status="in_progress", content=[])
    if item["type"] == "function_call":
        return dict(item, status="in_progress", arguments="")
    return dict(item, summary=[])


def _stream(
    reply: Reply, body: dict[str, Any], response: dict[str, Any], items: list[dict[str, Any]]
) -> Iterator[SseEvent]:
    def event(data: dict[str, Any], delay: float = 0.0) -> SseEvent:
        return SseEvent(str(data["type"]), data, delay=delay)

    yield event({"type": "response.created", "response": dict(response, output=[])})
    for index, item in enumerate(items):
        yield event(
            {
                "type": "response.output_item.added",
                "output_index": index,
                "item": _in_progress(item),
            }
        )
        if item["type"] == "message":
            for chunk in text_chunks(reply.text):
                yield event(
                    {
                        "type": "response.output_text.delta",
                        "item_id": item["id"],
                        "output_index": index,
                        "content_index": 0,
                        "delta": chunk,
                    },
                    delay=reply.chunk_delay or 0.0,
                )
            yield event(
                {
                    "type": "response.output_text.done",
                    "item_id": item["id"],
                    "output_index": index,
                    "content_index": 0,
                    "text": reply.text,
                }
            )
        elif item["type"] == "function_call":
            yield event(
                {
                    "type": "response.function_call_arguments.delta",
                    "item_id": item["id"],
                    "output_index": index,
                    "delta": item["arguments"],
                }
            )
            yield event(
                {
                    "type": "response.function_call_arguments.done",
                    "item_id": item["id"],
                    "output_index": index,
                    "arguments": item["arguments"],
                }
            )
        elif item["type"] == "reasoning":
            yield event(
                {
                    "type": "response.reasoning_summary_text.delta",
                    "item_id": item["id"],
                    "output_index": index,
                    "summary_index": 0,
                    "delta": reply.reasoning,
                }
            )
        yield event({"type": "response.output_item.done", "output_index": index, "item": item})
    yield event(
        {
            "type": "response.completed",
            "response": dict(response, status="completed", output=items),
        }
    )


def respond(
    reply: Reply, body: dict[str, Any], response_id: str, ids: Iterator[str], call_ids: list[str]
) -> WireResponse:
    """Answer one ``POST /v1/responses`` with ``reply``, streamed when the request asks.

    ``ids`` supplies item ids; ``call_ids`` one call id per tool call of ``reply``.
    """
    items = _items(reply, body, ids, call_ids)
    response = {
        "id": response_id,
        "object": "response",
        "model": body.get("model", "scripted"),
        "status": "in_progress",
        "usage": _usage(reply, body),
    }
    if body.get("stream"):
        return WireResponse(events=_stream(reply, body, response, items), delay=reply.delay)
    return WireResponse(
        json_body=dict(response, status="completed", output=items), delay=reply.delay
    )
