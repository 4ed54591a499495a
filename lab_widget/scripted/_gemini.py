"""The Gemini API as Gemini CLI uses it: ``models/<model>:generateContent`` and
``models/<model>:streamGenerateContent?alt=sse``.

A request carries the whole conversation as ``contents`` (``role`` ``user`` or ``model``,
each a list of ``parts``: ``text``, ``functionCall``, ``functionResponse``). The agent's
own context rides along as a user text part wrapped in ``<session_context>``; it is never
the user's text. Tools are ``functionDeclarations`` with a ``parametersJsonSchema``.

A request without tools (Gemini CLI's model-routing classifier, which asks for JSON) is a
side query: answered with JSON shaped by its ``responseJsonSchema``, never consuming the
script. A portable :class:`~lab_widget.scripted.ToolUse` name (``"Bash"``) is translated to
the shell tool the request offers, keeping only the arguments that tool declares.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from ._script import Reply, ToolUse
from ._wire import Conversation, SseEvent, WireResponse, estimate_tokens, text_chunks

__all__ = ["conversation", "function_call", "is_side_query", "respond", "side_json"]

_CONTEXT_PREFIXES = ("<session_context>",)
"""User text parts the agent writes itself."""

_SHELL_ALIASES: dict[str, tuple[str, ...]] = {"Bash": ("run_shell_command",)}
"""Portable tool names and the agent tools that play them, most preferred first."""


def _user_text(content: Any) -> str | None:
    """The user's own text in one ``contents`` entry, or ``None`` when it has none."""
    if not isinstance(content, dict) or content.get("role") != "user":
        return None
    parts = content.get("parts")
    texts = [
        str(p["text"])
        for p in (parts if isinstance(parts, list) else [])
        if isinstance(p, dict)
        and isinstance(p.get("text"), str)
        and not p.get("thought")
        and not str(p["text"]).lstrip().startswith(_CONTEXT_PREFIXES)
    ]
    return "\n".join(texts) if texts else None


def conversation(body: dict[str, Any]) -> Conversation:
    """Find the latest user text and how many model responses answered it so far.

    Examples
    --------
    >>> contents = [
    ...     {"role": "user", "parts": [{"text": "<session_context>x"}, {"text": "hi"}]},
    ...     {"role": "model", "parts": [{"functionCall": {"name": "run_shell_command"}}]},
    ...     {"role": "user", "parts": [{"functionResponse": {"name": "run_shell_command"}}]},
    ... ]
    >>> c = conversation({"contents": contents})
    >>> c.user_text, c.step
    ('hi', 1)
    """
    contents = body.get("contents") or []
    if not isinstance(contents, list):
        return Conversation(user_text="", step=0, key="")
    for index in range(len(contents) - 1, -1, -1):
        text = _user_text(contents[index])
        if text is None:
            continue
        steps = sum(
            1 for c in contents[index + 1 :] if isinstance(c, dict) and c.get("role") == "model"
        )
        history = [t for t in (_user_text(c) for c in contents[: index + 1]) if t is not None]
        return Conversation(user_text=text, step=steps, key=json.dumps(history))
    return Conversation(user_text="", step=0, key="")


def _declarations(body: dict[str, Any]) -> dict[str, dict[str, Any]]:
    found: dict[str, dict[str, Any]] = {}
    tools = body.get("tools")
    for tool in tools if isinstance(tools, list) else []:
        decls = tool.get("functionDeclarations") if isinstance(tool, dict) else None
        for decl in decls if isinstance(decls, list) else []:
            if isinstance(decl, dict) and decl.get("name"):
                found[str(decl["name"])] = decl
    return found


def is_side_query(body: dict[str, Any]) -> bool:
    """Whether the request is a side query (no tools: the routing classifier and the like).

    Examples
    --------
    >>> is_side_query({"contents": []})
    True
    >>> is_side_query({"tools": [{"functionDeclarations": [{"name": "read_file"}]}]})
    False
    """
    return not _declarations(body)


def _sample(schema: Any, text: str) -> Any:
    """A value that satisfies a (Gemini-style, upper-case typed) JSON schema."""
    if not isinstance(schema, dict):
        return text
    kind = str(schema.get("type") or "").lower()
    if schema.get("enum"):
        return schema["enum"][0]
    if kind == "object":
        props = schema.get("properties")
        return {k: _sample(v, text) for k, v in (props.items() if isinstance(props, dict) else [])}
    if kind == "array":
        return []
    if kind in ("integer", "number"):
        return 1
    if kind == "boolean":
        return False
    return text


def side_json(body: dict[str, Any], text: str) -> str:
    """The answer text to a side query: JSON when the request asks for it.

    Examples
    --------
    >>> cfg = {"responseMimeType": "application/json", "responseJsonSchema": {
    ...     "type": "OBJECT", "properties": {"why": {"type": "STRING"},
    ...     "score": {"type": "INTEGER"}}}}
    >>> side_json({"generationConfig": cfg}, "T")
    '{"why": "T", "score": 1}'
    """
    config = body.get("generationConfig")
    config = config if isinstance(config, dict) else {}
    if config.get("responseMimeType") == "application/json":
        schema = config.get("responseJsonSchema") or config.get("responseSchema")
        return json.dumps(_sample(schema, text) if schema else {})
    return text


def function_call(tool: ToolUse, body: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The function name and arguments that play ``tool`` for this request's agent.

    Examples
    --------
    >>> decl = {"name": "run_shell_command", "parametersJsonSchema": {
    ...     "properties": {"command": {}, "description": {}}}}
    >>> body = {"tools": [{"functionDeclarations": [decl]}]}
    >>> function_call(ToolUse("Bash", {"command": "ls", "timeout": 5}), body)
    ('run_shell_command', {'command': 'ls'})
    """
    offered = _declarations(body)
    if tool.name in offered:
        return tool.name, dict(tool.input)
    for name in _SHELL_ALIASES.get(tool.name, ()):
        decl = offered.get(name)
        if decl is None:
            continue
        schema = decl.get("parametersJsonSchema") or decl.get("parameters") or {}
        props = schema.get("properties") if isinstance(schema, dict) else None
        if isinstance(props, dict):
            return name, {k: v for k, v in tool.input.items() if k in props}
        return name, dict(tool.input)
    return tool.name, dict(tool.input)


def _usage(reply: Reply, body: dict[str, Any]) -> dict[str, int]:
    prompt = (
        reply.input_tokens
        if reply.input_tokens is not None
        else estimate_tokens(json.dumps(body.get("contents", [])))
    )
    output = (
        reply.output_tokens
        if reply.output_tokens is not None
        else estimate_tokens(reply.text) + 10 * len(reply.tools)
    )
    return {
        # Gemini counts cached tokens inside promptTokenCount.
        "promptTokenCount": prompt + reply.cache_read_tokens,
        "cachedContentTokenCount": reply.cache_read_tokens,
        "candidatesTokenCount": output,
        "totalTokenCount": prompt + reply.cache_read_tokens + output,
    }


def _chunk(parts: list[dict[str, Any]], model: str, **extra: Any) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
    if "finishReason" in extra:
        candidate["finishReason"] = extra.pop("finishReason")
    return {"candidates": [candidate], "modelVersion": model, **extra}


def _model(path_model: str, body: dict[str, Any]) -> str:
    return path_model or str(body.get("model") or "scripted")


def _calls(reply: Reply, body: dict[str, Any], call_ids: list[str]) -> list[dict[str, Any]]:
    parts = []
    for tool, call_id in zip(reply.tools, call_ids, strict=True):
        name, args = function_call(tool, body)
        parts.append({"functionCall": {"id": call_id, "name": name, "args": args}})
    return parts


def _stream(
    reply: Reply, body: dict[str, Any], model: str, call_ids: list[str]
) -> Iterator[SseEvent]:
    if reply.reasoning:
        yield SseEvent(None, _chunk([{"text": reply.reasoning, "thought": True}], model))
    for piece in text_chunks(reply.text):
        yield SseEvent(None, _chunk([{"text": piece}], model), delay=reply.chunk_delay or 0.0)
    yield SseEvent(
        None,
        _chunk(
            _calls(reply, body, call_ids),
            model,
            finishReason="STOP",
            usageMetadata=_usage(reply, body),
        ),
    )


def respond(
    reply: Reply, body: dict[str, Any], path_model: str, call_ids: list[str], stream: bool
) -> WireResponse:
    """Answer one ``generateContent`` (JSON) or ``streamGenerateContent`` (SSE) request."""
    model = _model(path_model, body)
    if stream:
        return WireResponse(events=_stream(reply, body, model, call_ids), delay=reply.delay)
    parts: list[dict[str, Any]] = []
    if reply.text:
        parts.append({"text": reply.text})
    parts += _calls(reply, body, call_ids)
    payload = _chunk(parts, model, finishReason="STOP", usageMetadata=_usage(reply, body))
    return WireResponse(json_body=payload, delay=reply.delay)
