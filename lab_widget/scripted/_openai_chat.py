"""The OpenAI Chat Completions API as OpenCode, Copilot CLI and Qwen Code use it:
``POST /v1/chat/completions``, SSE.

Copilot CLI puts its context (the time) before the user's words in the same text
(:func:`without_context` takes it off); Qwen Code puts its own in text parts of their own
before the user's (:data:`lab_widget.compat.QWEN_CONTEXT_PREFIXES`), left out.

A request carries the whole conversation as ``messages`` (``system``, ``user``,
``assistant`` with ``tool_calls``, ``tool`` results). A streamed response is a chunk per
delta: reasoning as ``reasoning_content`` deltas (the field ``@ai-sdk/openai-compatible``
reads first, before ``reasoning``; the API has no redacted form, so redacted reasoning is
left out), text as ``content`` deltas, tool calls as ``tool_calls`` deltas, then a chunk
with the ``finish_reason``. Usage comes only when the request asks for it with
``stream_options.include_usage``: every chunk then carries ``"usage": null`` and a last
chunk without choices carries the figures (reasoning counted in ``completion_tokens`` and
in ``completion_tokens_details.reasoning_tokens``), before ``data: [DONE]``.

A script's :class:`~lab_widget.scripted.ToolUse` names the tool as any agent knows it:
when the request offers a function by that name it is called as written; a portable name
(``"Bash"``, ``"Task"``) is translated to the function the request offers, keeping only
the arguments that function declares (OpenCode's sub-agent tool is ``task``, with
``description``, ``prompt`` and ``subagent_type``, ``general`` unless the script names
another). The sub-agent's session sends requests like the main one's, with its own tool
list (no ``task``, no ``question``) and no other mark: its prompt, the one the script
handed over, is what tells it apart.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from ..compat import COPILOT_CONTEXT_TAGS, KILO_CONTEXT_TAGS, QWEN_CONTEXT_PREFIXES
from . import _wire
from ._script import Reply, Thinking, ToolUse
from ._wire import BURST, Conversation, Pace, SseEvent, WireResponse, text_chunks, tokens

__all__ = ["conversation", "function_call", "is_side_query", "respond"]

_TOOL_ALIASES: dict[str, tuple[str, ...]] = {
    "Bash": ("bash", "shell", "run_shell_command"),
    "Task": ("task",),
}
"""Portable tool names and the agent functions that play them, most preferred first."""

_DEFAULT_ARGUMENTS: dict[str, dict[str, Any]] = {"task": {"subagent_type": "general"}}
"""Arguments an agent function requires that a portable call may leave out."""


def _texts(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content] if content else []
    if not isinstance(content, list):
        return []
    return [
        str(part.get("text", ""))
        for part in content
        if isinstance(part, dict)
        and part.get("type") == "text"
        and part.get("text")
        and not str(part["text"]).startswith(QWEN_CONTEXT_PREFIXES)
    ]


def without_context(text: str) -> str:
    r"""The user's words without the context elements an agent put before them
    (:data:`lab_widget.compat.COPILOT_CONTEXT_TAGS`) or after them
    (:data:`lab_widget.compat.KILO_CONTEXT_TAGS`).

    Examples
    --------
    >>> without_context("<current_datetime>2026-12-03</current_datetime>\n\nhello")
    'hello'
    >>> without_context("hello\n\n\n<environment_details>\nat: /w\n</environment_details>")
    'hello'
    >>> without_context("<other>x</other> hi")
    '<other>x</other> hi'
    >>> without_context("<mode_changed_notice>\nPlan mode is off.\n</mode_changed_notice>")
    ''
    """
    for tag in COPILOT_CONTEXT_TAGS:
        opening, closing = f"<{tag}>", f"</{tag}>"
        if text.lstrip().startswith(opening) and closing in text:
            text = text.split(closing, 1)[1].lstrip()
    for tag in KILO_CONTEXT_TAGS:
        opening, closing = f"<{tag}>", f"</{tag}>"
        if text.rstrip().endswith(closing) and opening in text:
            text = text.rsplit(opening, 1)[0].rstrip()
    return text


def _user_text(message: Any) -> str | None:
    if not isinstance(message, dict) or message.get("role") != "user":
        return None
    # A message of the agent's context alone is not a user turn.
    words = without_context("\n".join(_texts(message.get("content"))))
    return words or None


def conversation(body: dict[str, Any]) -> Conversation:
    """The latest user text of the request's ``messages``, and how many assistant messages
    answered it so far.

    Examples
    --------
    >>> msgs = [
    ...     {"role": "system", "content": "be brief"},
    ...     {"role": "user", "content": [{"type": "text", "text": "hi"}]},
    ...     {"role": "assistant", "content": "", "tool_calls": [{"id": "c"}]},
    ...     {"role": "tool", "tool_call_id": "c", "content": "ok"},
    ... ]
    >>> c = conversation({"messages": msgs})
    >>> c.user_text, c.step
    ('hi', 1)
    >>> reminder = {"type": "text", "text": "<system-reminder>skills</system-reminder>"}
    >>> first = {"role": "user", "content": [reminder, {"type": "text", "text": "hello"}]}
    >>> conversation({"messages": [first]}).user_text
    'hello'
    """
    # The user texts so far identify one turn of one conversation, whatever system
    # prompt and tool results the agent re-sends around them.
    return _wire.conversation_in(body.get("messages"), _user_text, _wire.count_role("assistant"))


def is_side_query(body: dict[str, Any]) -> bool:
    """Whether the request is one of the agent's side queries (a session title).

    OpenCode asks for a title with no tools; every turn of the conversation offers tools.

    Examples
    --------
    >>> is_side_query({"messages": []}), is_side_query({"tools": [{"type": "function"}]})
    (True, False)
    """
    return not body.get("tools")


def _offered(body: dict[str, Any]) -> dict[str, dict[str, Any]]:
    offered: dict[str, dict[str, Any]] = {}
    for tool in body.get("tools") or []:
        function = tool.get("function") if isinstance(tool, dict) else None
        if isinstance(function, dict) and function.get("name"):
            offered[str(function["name"])] = function
    return offered


def function_call(tool: ToolUse, body: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The function name and arguments that play ``tool`` for this request's agent.

    Examples
    --------
    >>> tools = [{"type": "function", "function": {"name": "bash", "parameters": {
    ...     "properties": {"command": {}, "timeout": {}}}}}]
    >>> function_call(ToolUse("Bash", {"command": "ls", "description": "list"}),
    ...               {"tools": tools})
    ('bash', {'command': 'ls'})
    >>> function_call(ToolUse("custom", {"a": 1}), {"tools": tools})
    ('custom', {'a': 1})
    >>> task = {"type": "function", "function": {"name": "task", "parameters": {
    ...     "properties": {"description": {}, "prompt": {}, "subagent_type": {}}}}}
    >>> function_call(ToolUse("Task", {"description": "d", "prompt": "p"}), {"tools": [task]})
    ('task', {'subagent_type': 'general', 'description': 'd', 'prompt': 'p'})
    """
    offered = _offered(body)
    if tool.name in offered or tool.name not in _TOOL_ALIASES:
        return tool.name, dict(tool.input)
    name = next((n for n in _TOOL_ALIASES[tool.name] if n in offered), None)
    if name is None:
        return tool.name, dict(tool.input)
    arguments = _DEFAULT_ARGUMENTS.get(name, {}) | dict(tool.input)
    params = offered[name].get("parameters") or {}
    known = params.get("properties") if isinstance(params, dict) else None
    if isinstance(known, dict):
        arguments = {k: v for k, v in arguments.items() if k in known}
    return name, arguments


def _usage(reply: Reply, body: dict[str, Any]) -> dict[str, Any]:
    figures = tokens(reply, json.dumps(body.get("messages", [])))
    reasoning = figures.reasoning if _reasoning(reply) else 0
    # Chat completions count cached tokens inside prompt_tokens, reasoning inside
    # completion_tokens.
    prompt = figures.input + figures.cache_read
    completion = figures.output + reasoning
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "prompt_tokens_details": {"cached_tokens": figures.cache_read},
        "completion_tokens_details": {"reasoning_tokens": reasoning},
    }


def _reasoning(reply: Reply) -> str:
    """The reasoning the wire can carry: every block that is not redacted."""
    return "\n\n".join(
        b.text for b in reply.content if isinstance(b, Thinking) and not b.redacted and b.text
    )


def _calls(reply: Reply, body: dict[str, Any], call_ids: list[str]) -> list[dict[str, Any]]:
    calls = []
    for index, (tool, call_id) in enumerate(zip(reply.calls, call_ids, strict=True)):
        name, arguments = function_call(tool, body)
        calls.append(
            {
                "index": index,
                "id": call_id,
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(arguments)},
            }
        )
    return calls


def _stream(
    reply: Reply,
    body: dict[str, Any],
    base: dict[str, Any],
    calls: list[dict[str, Any]],
    pace: Pace,
) -> Iterator[SseEvent]:
    usage_asked = bool((body.get("stream_options") or {}).get("include_usage"))
    # Asked for usage, the API puts a null usage on every chunk before the last one.
    extra: dict[str, Any] = {"usage": None} if usage_asked else {}

    def chunk(delta: dict[str, Any], finish: str | None = None, delay: float = 0.0) -> SseEvent:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        return SseEvent(None, dict(base, choices=[choice], **extra), delay=delay)

    yield chunk({"role": "assistant", "content": ""})
    pending = iter(calls)
    pause = 0.0  # the pause after a block falls before whatever comes next
    for block in reply.content:
        if isinstance(block, Thinking):
            if block.redacted or not block.text:
                continue
            for number, piece in enumerate(text_chunks(block.text)):
                yield chunk(
                    {"reasoning_content": piece}, delay=pause if number == 0 else pace.chunk
                )
        elif isinstance(block, str):
            for number, piece in enumerate(text_chunks(block)):
                yield chunk({"content": piece}, delay=pause if number == 0 else pace.chunk)
        else:
            call = next(pending)
            # The name and id open a call; its arguments follow as separate deltas.
            head = dict(call, function={"name": call["function"]["name"], "arguments": ""})
            yield chunk({"tool_calls": [head]}, delay=pause)
            for piece in text_chunks(call["function"]["arguments"]):
                arguments = {"index": call["index"], "function": {"arguments": piece}}
                yield chunk({"tool_calls": [arguments]}, delay=pace.chunk)
        pause = pace.block
    yield chunk({}, finish="tool_calls" if calls else "stop", delay=pause)
    if usage_asked:
        yield SseEvent(None, dict(base, choices=[], usage=_usage(reply, body)))
    yield SseEvent(None, "[DONE]")


def respond(
    reply: Reply,
    body: dict[str, Any],
    completion_id: str,
    call_ids: list[str],
    created: int,
    pace: Pace = BURST,
) -> WireResponse:
    """Answer one ``POST /v1/chat/completions`` with ``reply``, streamed when asked.

    ``call_ids`` supplies one id per tool call of ``reply``.
    """
    calls = _calls(reply, body, call_ids)
    base = {
        "id": completion_id,
        "object": "chat.completion.chunk",
        "created": created,
        "model": body.get("model", "scripted"),
    }
    if body.get("stream"):
        return WireResponse(events=_stream(reply, body, base, calls, pace), delay=reply.delay)
    text = "".join(b for b in reply.content if isinstance(b, str))
    message: dict[str, Any] = {"role": "assistant", "content": text or None}
    if _reasoning(reply):
        message["reasoning_content"] = _reasoning(reply)
    if calls:
        message["tool_calls"] = [{k: v for k, v in c.items() if k != "index"} for c in calls]
    choice = {
        "index": 0,
        "message": message,
        "finish_reason": "tool_calls" if calls else "stop",
    }
    return WireResponse(
        json_body=dict(base, object="chat.completion", choices=[choice], usage=_usage(reply, body)),
        delay=reply.delay,
    )
