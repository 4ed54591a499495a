"""The OpenAI Responses API as Codex CLI uses it: ``POST /v1/responses``, streamed SSE.

A request carries the whole conversation as ``input`` items (messages, function calls and
their outputs). The agent's own context (environment, instructions, permissions) rides
along as user or developer messages wrapped in known tags; it is never the user's text.

A script's :class:`~lab_widget.scripted.ToolUse` names the tool as any agent knows it:
when the request offers a tool by that name it is called as written; a portable name
(``"Bash"``, ``"Task"``) is translated to the tool the request offers, keeping only the
arguments that tool declares. Tools may come grouped in a ``namespace`` tool; a call of one
of them names its namespace (Codex's sub-agent tools are ``spawn_agent``, ``wait_agent``,
``send_input``, ``close_agent`` in ``multi_agent_v1``). A script may also name such a tool
``<namespace>__<name>``, as Codex's hooks name an MCP server's tool
(``mcp__kernel__run_python`` is ``run_python`` in ``mcp__kernel``).

A streamed response is what the real API sends: ``response.created`` and
``response.in_progress`` (usage ``null``), then each output item (``output_item.added``,
its parts and deltas, ``output_item.done``), then ``response.completed``, the only event
with usage. Reasoning is a ``reasoning`` item: its summary streams as
``reasoning_summary_part.added``, ``reasoning_summary_text.delta``/``.done`` and
``reasoning_summary_part.done`` when the request asks for a summary (``reasoning.summary``),
and it carries ``encrypted_content`` when the request includes
``reasoning.encrypted_content``; its tokens count in ``output_tokens`` and in
``output_tokens_details.reasoning_tokens``.

The tags the agent's own messages begin with are the pinned CLI's, which its reader leaves
out too (:data:`lab_widget.compat.CODEX_CONTEXT_PREFIXES`); they come as ``context``.

Sub-agents: a Codex sub-agent's requests carry ``x-openai-subagent`` in their
``client_metadata``, the parent's ``prompt_cache_key`` and the spawn message as their user
text; its report comes back to the parent as a ``<subagent_notification>`` user message,
which is the agent's, never the user's.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator, Sequence
from typing import Any

from . import _wire
from ._script import Reply, Thinking, ToolUse
from ._wire import BURST, Conversation, Pace, SseEvent, WireResponse, opaque, text_chunks, tokens

__all__ = ["conversation", "function_call", "is_side_query", "respond", "side_reply"]

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

_TOOL_ALIASES: dict[str, tuple[str, ...]] = {
    "Bash": ("exec_command", "shell", "shell_command"),
    "Task": ("spawn_agent",),
}
"""Portable tool names and the agent tools that play them, most preferred first
(``shell_command`` is the shell offered when unified exec is off)."""

_ARGUMENT_ALIASES: dict[str, dict[str, str]] = {
    "exec_command": {"command": "cmd"},
    "spawn_agent": {"prompt": "message"},
}
"""Argument renames from the portable tool's shape to the agent tool's."""

# The ``client_metadata`` key that marks a sub-agent's request is ``x-<vendor>-subagent``.
_SUBAGENT_METADATA = "-subagent"

_SUMMARIES = frozenset({"auto", "concise", "detailed"})
_ENCRYPTED = "reasoning.encrypted_content"


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


def _user_text(item: Any, context: tuple[str, ...]) -> str | None:
    if not isinstance(item, dict) or item.get("role") != "user":
        return None
    if item.get("type", "message") != "message":
        return None
    texts = [t for t in _texts(item.get("content")) if not t.lstrip().startswith(context)]
    return "\n".join(texts) if texts else None


def _is_model_item(item: Any) -> bool:
    if not isinstance(item, dict):
        return False
    kind = item.get("type", "message")
    if kind == "message":
        return item.get("role") == "assistant"
    return kind in _MODEL_ITEMS


def _model_steps(items: Sequence[Any]) -> int:
    # One model response may add several items: consecutive model items are one step.
    steps, previous_was_model = 0, False
    for item in items:
        is_model = _is_model_item(item)
        if is_model and not previous_was_model:
            steps += 1
        previous_was_model = is_model
    return steps


def conversation(body: dict[str, Any], context: tuple[str, ...]) -> Conversation:
    """The latest user text of the request's ``input`` items (the agent's own messages, those
    that begin with a ``context`` prefix, left out), and how many model responses answered it
    so far.

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
    >>> c = conversation({"input": items}, context=("<environment_context>",))
    >>> c.user_text, c.step
    ('hi', 1)
    """
    # The user texts so far and the agent's thread id identify one turn of one
    # conversation, whatever context the agent re-sends around them.
    thread = body.get("prompt_cache_key")
    return _wire.conversation_in(
        body.get("input"),
        lambda item: _user_text(item, context),
        _model_steps,
        key=lambda turn: json.dumps([thread, turn.history]),
        subagent=_is_subagent(body),
    )


def _is_subagent(body: dict[str, Any]) -> bool:
    meta = body.get("client_metadata")
    return isinstance(meta, dict) and any(str(k).endswith(_SUBAGENT_METADATA) for k in meta)


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


def _offered(body: dict[str, Any]) -> dict[str, tuple[str | None, dict[str, Any]]]:
    """Every function the request offers: its namespace (``None`` at top level) and spec."""
    offered: dict[str, tuple[str | None, dict[str, Any]]] = {}

    def walk(tools: Any, namespace: str | None) -> None:
        for tool in tools if isinstance(tools, list) else []:
            if not isinstance(tool, dict) or not tool.get("name"):
                continue
            if tool.get("type") == "namespace":
                walk(tool.get("tools"), str(tool["name"]))
            elif tool.get("type") == "function":
                offered.setdefault(str(tool["name"]), (namespace, tool))

    walk(body.get("tools"), None)
    return offered


def _call(tool: ToolUse, body: dict[str, Any]) -> tuple[str, str | None, dict[str, Any]]:
    offered = _offered(body)
    if tool.name in offered:
        return tool.name, offered[tool.name][0], dict(tool.input)
    for function, (space, _) in offered.items():
        # A namespaced tool named as the agent's hooks name it: ``mcp__kernel__run_python``.
        if space and tool.name == f"{space}__{function}":
            return function, space, dict(tool.input)
    name = next((n for n in _TOOL_ALIASES.get(tool.name, ()) if n in offered), None)
    if name is None:
        return tool.name, None, dict(tool.input)
    namespace, spec = offered[name]
    renames = _ARGUMENT_ALIASES.get(name, {})
    arguments = {renames.get(k, k): v for k, v in tool.input.items()}
    if name == "shell" and isinstance(arguments.get("command"), str):
        arguments["command"] = ["bash", "-lc", arguments["command"]]
    params = spec.get("parameters") or {}
    known = params.get("properties") if isinstance(params, dict) else None
    if isinstance(known, dict):
        arguments = {k: v for k, v in arguments.items() if k in known}
    return name, namespace, arguments


def function_call(tool: ToolUse, body: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The function name and arguments that play ``tool`` for this request's agent.

    Examples
    --------
    >>> tools = [{"type": "function", "name": "exec_command", "parameters": {
    ...     "properties": {"cmd": {}, "justification": {}}}}]
    >>> function_call(ToolUse("Bash", {"command": "ls", "description": "list"}),
    ...               {"tools": tools})
    ('exec_command', {'cmd': 'ls'})
    >>> shell = [{"type": "function", "name": "shell_command", "parameters": {
    ...     "properties": {"command": {}, "workdir": {}}}}]
    >>> function_call(ToolUse("Bash", {"command": "ls", "description": "list"}),
    ...               {"tools": shell})
    ('shell_command', {'command': 'ls'})
    >>> function_call(ToolUse("custom", {"a": 1}), {"tools": tools})
    ('custom', {'a': 1})
    >>> spawn = {"type": "function", "name": "spawn_agent", "parameters": {
    ...     "properties": {"message": {}, "model": {}}}}
    >>> agents = {"type": "namespace", "name": "multi_agent_v1", "tools": [spawn]}
    >>> function_call(ToolUse("Task", {"description": "d", "prompt": "count"}),
    ...               {"tools": [agents]})
    ('spawn_agent', {'message': 'count'})
    """
    name, _, arguments = _call(tool, body)
    return name, arguments


def _usage(reply: Reply, body: dict[str, Any]) -> dict[str, Any]:
    figures = tokens(reply, json.dumps(body.get("input", [])))
    # Responses count cached tokens inside input_tokens and reasoning inside output_tokens.
    total_input = figures.input + figures.cache_read
    reasoning = figures.reasoning if any(isinstance(b, Thinking) for b in reply.content) else 0
    output = figures.output + reasoning
    return {
        "input_tokens": total_input,
        "input_tokens_details": {"cached_tokens": figures.cache_read},
        "output_tokens": output,
        "output_tokens_details": {"reasoning_tokens": reasoning},
        "total_tokens": total_input + output,
    }


def _summarises(body: dict[str, Any]) -> bool:
    reasoning = body.get("reasoning")
    return isinstance(reasoning, dict) and reasoning.get("summary") in _SUMMARIES


def _encrypts(body: dict[str, Any]) -> bool:
    include = body.get("include")
    return isinstance(include, list) and _ENCRYPTED in include


def _items(
    reply: Reply, body: dict[str, Any], ids: Iterator[str], call_ids: list[str]
) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    calls = iter(call_ids)
    for block in reply.content:
        if isinstance(block, Thinking):
            summary = block.text if _summarises(body) and not block.redacted else ""
            item: dict[str, Any] = {
                "type": "reasoning",
                "id": next(ids),
                "summary": [{"type": "summary_text", "text": summary}] if summary else [],
            }
            if _encrypts(body):
                item["encrypted_content"] = opaque("reasoning", block.text)
            items.append(item)
        elif isinstance(block, str):
            items.append(
                {
                    "type": "message",
                    "id": next(ids),
                    "role": "assistant",
                    "status": "completed",
                    "content": [{"type": "output_text", "text": block, "annotations": []}],
                }
            )
        else:
            name, namespace, arguments = _call(block, body)
            call: dict[str, Any] = {
                "type": "function_call",
                "id": next(ids),
                "call_id": next(calls),
                "name": name,
                "arguments": json.dumps(arguments),
                "status": "completed",
            }
            if namespace is not None:
                call["namespace"] = namespace
            items.append(call)
    return items


def _in_progress(item: dict[str, Any]) -> dict[str, Any]:
    if item["type"] == "message":
        return dict(item, status="in_progress", content=[])
    if item["type"] == "function_call":
        return dict(item, status="in_progress", arguments="")
    return {k: v for k, v in item.items() if k != "encrypted_content"} | {"summary": []}


def _item_events(item: dict[str, Any], index: int) -> Iterator[dict[str, Any]]:
    """The events between an item's ``output_item.added`` and ``output_item.done``."""
    where = {"item_id": item["id"], "output_index": index}
    if item["type"] == "reasoning":
        for number, part in enumerate(item["summary"]):
            at = dict(where, summary_index=number)
            empty = {"type": "summary_text", "text": ""}
            yield {"type": "response.reasoning_summary_part.added", **at, "part": empty}
            for piece in text_chunks(part["text"]):
                yield {"type": "response.reasoning_summary_text.delta", **at, "delta": piece}
            yield {"type": "response.reasoning_summary_text.done", **at, "text": part["text"]}
            yield {"type": "response.reasoning_summary_part.done", **at, "part": part}
    elif item["type"] == "message":
        part = item["content"][0]
        at = dict(where, content_index=0)
        yield {"type": "response.content_part.added", **at, "part": dict(part, text="")}
        for piece in text_chunks(part["text"]):
            yield {"type": "response.output_text.delta", **at, "delta": piece}
        yield {"type": "response.output_text.done", **at, "text": part["text"]}
        yield {"type": "response.content_part.done", **at, "part": part}
    elif item["type"] == "function_call":
        for piece in text_chunks(item["arguments"]):
            yield {"type": "response.function_call_arguments.delta", **where, "delta": piece}
        yield {
            "type": "response.function_call_arguments.done",
            **where,
            "arguments": item["arguments"],
        }


def _stream(
    body: dict[str, Any],
    response: dict[str, Any],
    items: list[dict[str, Any]],
    usage: dict[str, Any],
    pace: Pace,
) -> Iterator[SseEvent]:
    sequence = iter(range(1_000_000))

    def event(data: dict[str, Any], delay: float = 0.0) -> SseEvent:
        data = dict(data, sequence_number=next(sequence))
        return SseEvent(str(data["type"]), data, delay=delay)

    yield event({"type": "response.created", "response": dict(response, output=[])})
    yield event({"type": "response.in_progress", "response": dict(response, output=[])})
    pause = 0.0  # the pause after an item falls before whatever comes next
    for index, item in enumerate(items):
        added = {"type": "response.output_item.added", "output_index": index}
        yield event(dict(added, item=_in_progress(item)), pause)
        for data in _item_events(item, index):
            chunky = data["type"].endswith(".delta")
            yield event(data, pace.chunk if chunky else 0.0)
        yield event({"type": "response.output_item.done", "output_index": index, "item": item})
        pause = pace.block
    done = dict(response, status="completed", output=items, usage=usage)
    yield event({"type": "response.completed", "response": done}, pause)


def respond(
    reply: Reply,
    body: dict[str, Any],
    response_id: str,
    ids: Iterator[str],
    call_ids: list[str],
    pace: Pace = BURST,
) -> WireResponse:
    """Answer one ``POST /v1/responses`` with ``reply``, streamed when the request asks.

    ``ids`` supplies item ids; ``call_ids`` one call id per tool call of ``reply``.
    """
    items = _items(reply, body, ids, call_ids)
    response = {
        "id": response_id,
        "object": "response",
        "created_at": int(time.time()),
        "model": body.get("model", "scripted"),
        "status": "in_progress",
        "usage": None,
    }
    usage = _usage(reply, body)
    if body.get("stream"):
        return WireResponse(events=_stream(body, response, items, usage, pace), delay=reply.delay)
    return WireResponse(
        json_body=dict(response, status="completed", output=items, usage=usage), delay=reply.delay
    )
