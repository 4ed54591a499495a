"""The Gemini API as Gemini CLI uses it: ``models/<model>:generateContent`` and
``models/<model>:streamGenerateContent?alt=sse``.

A request carries the whole conversation as ``contents`` (``role`` ``user`` or ``model``,
each a list of ``parts``: ``text``, ``functionCall``, ``functionResponse``). The agent's
own context rides along as a user text part wrapped in ``<session_context>``; it is never
the user's text (the pinned CLI's prefixes, which its reader leaves out too, come as
``context``: :data:`lab_widget.compat.GEMINI_CONTEXT_PREFIXES`). Tools are
``functionDeclarations`` with a ``parametersJsonSchema``.

A request without tools (Gemini CLI's model-routing classifier, which asks for JSON) is a
side query: answered with JSON shaped by its ``responseJsonSchema``, never consuming the
script. A portable :class:`~lab_widget.scripted.ToolUse` name is translated to the tool the
request offers, keeping only the arguments that tool declares: ``"Bash"`` to
``run_shell_command``, ``"Task"`` to Gemini CLI's ``invoke_agent`` (``agent_name`` from
``subagent_type``, ``generalist`` unless the script names another; ``prompt``).

A streamed response is a chunk per part, as the real API sends it: reasoning as thought
parts (``{"text": ..., "thought": true}``, one per ``**Subject**`` summary, as the API
sends thought summaries) when the request asks for them
(``thinkingConfig.includeThoughts``), then text parts and one chunk per ``functionCall``.
The part after the thoughts carries the ``thoughtSignature`` (the first function call when
the response makes any, as Gemini 3 does, else the first text part); redacted reasoning, or
thoughts not asked for, leave only the signature. Every chunk carries ``usageMetadata``,
cumulative so far (the prompt, and the candidates and thoughts streamed up to that chunk);
the last one, with the ``finishReason``, has the final figures. ``thoughtsTokenCount`` is
reported apart from ``candidatesTokenCount`` and both count in ``totalTokenCount``.

Sub-agents: Gemini CLI's sub-agent (``invoke_agent``) sends its own requests with its task
as the first user text and a ``complete_task`` tool, the only way it can finish; a
sub-agent step that answers in text is played as ``complete_task`` with that text as its
``result.response``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from . import _wire
from ._script import Reply, Thinking, ToolUse
from ._wire import BURST, Conversation, Pace, SseEvent, Tokens, WireResponse, opaque, text_chunks
from ._wire import tokens as estimate

__all__ = ["conversation", "function_call", "is_side_query", "respond", "side_json"]

_TOOL_ALIASES: dict[str, tuple[str, ...]] = {
    "Bash": ("run_shell_command",),
    "Task": ("invoke_agent",),
}
"""Portable tool names and the agent tools that play them, most preferred first."""

_ARGUMENT_ALIASES: dict[str, dict[str, str]] = {"invoke_agent": {"subagent_type": "agent_name"}}
"""Argument renames from the portable tool's shape to the agent tool's."""

_DEFAULT_ARGUMENTS: dict[str, dict[str, Any]] = {"invoke_agent": {"agent_name": "generalist"}}
"""Arguments an agent tool requires that a portable call may leave out."""

_FINISH_TOOL = "complete_task"
"""The tool a sub-agent must call to hand in its answer, offered only to one."""

_SUMMARY_BREAK = re.compile(r"\n\n(?=\*\*)")

_CALL_WEIGHT = 40
"""How much a function call weighs against a character of text in the running usage."""


def _user_text(content: Any, context: tuple[str, ...]) -> str | None:
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
        and not str(p["text"]).lstrip().startswith(context)
    ]
    return "\n".join(texts) if texts else None


def conversation(body: dict[str, Any], context: tuple[str, ...]) -> Conversation:
    """The latest user text of the request's ``contents`` (the CLI's own parts, those that
    begin with a ``context`` prefix, left out), and how many ``model`` entries answered it so
    far.

    Examples
    --------
    >>> contents = [
    ...     {"role": "user", "parts": [{"text": "<session_context>x"}, {"text": "hi"}]},
    ...     {"role": "model", "parts": [{"functionCall": {"name": "run_shell_command"}}]},
    ...     {"role": "user", "parts": [{"functionResponse": {"name": "run_shell_command"}}]},
    ... ]
    >>> c = conversation({"contents": contents}, context=("<session_context>",))
    >>> c.user_text, c.step
    ('hi', 1)
    """
    subagent = _FINISH_TOOL in _declarations(body)
    return _wire.conversation_in(
        body.get("contents"),
        lambda content: _user_text(content, context),
        _wire.count_role("model"),
        subagent=subagent,
    )


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
    >>> agent = {"name": "invoke_agent", "parametersJsonSchema": {
    ...     "properties": {"agent_name": {}, "prompt": {}}}}
    >>> body = {"tools": [{"functionDeclarations": [agent]}]}
    >>> function_call(ToolUse("Task", {"description": "d", "prompt": "count"}), body)
    ('invoke_agent', {'agent_name': 'generalist', 'prompt': 'count'})
    """
    offered = _declarations(body)
    if tool.name in offered:
        return tool.name, dict(tool.input)
    for name in _TOOL_ALIASES.get(tool.name, ()):
        decl = offered.get(name)
        if decl is None:
            continue
        renames = _ARGUMENT_ALIASES.get(name, {})
        arguments = _DEFAULT_ARGUMENTS.get(name, {}) | {
            renames.get(k, k): v for k, v in tool.input.items()
        }
        schema = decl.get("parametersJsonSchema") or decl.get("parameters") or {}
        props = schema.get("properties") if isinstance(schema, dict) else None
        if isinstance(props, dict):
            return name, {k: v for k, v in arguments.items() if k in props}
        return name, arguments
    return tool.name, dict(tool.input)


def _usage(figures: Tokens, candidates: int, thoughts: int) -> dict[str, int]:
    # Gemini counts cached tokens inside promptTokenCount, thoughts apart from candidates.
    prompt = figures.input + figures.cache_read
    usage = {"promptTokenCount": prompt}
    if figures.cache_read:
        usage["cachedContentTokenCount"] = figures.cache_read
    if candidates:
        usage["candidatesTokenCount"] = candidates
    if thoughts:
        usage["thoughtsTokenCount"] = thoughts
    usage["totalTokenCount"] = prompt + candidates + thoughts
    return usage


def _final_usage(reply: Reply, body: dict[str, Any]) -> dict[str, int]:
    figures = _figures(reply, body)
    thought = any(isinstance(b, Thinking) for b in reply.content)
    return _usage(figures, figures.output, figures.reasoning if thought else 0)


def _figures(reply: Reply, body: dict[str, Any]) -> Tokens:
    return estimate(reply, json.dumps(body.get("contents", [])))


def _chunk(parts: list[dict[str, Any]], model: str, **extra: Any) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
    if "finishReason" in extra:
        candidate["finishReason"] = extra.pop("finishReason")
    return {"candidates": [candidate], "modelVersion": model, **extra}


def _model(path_model: str, body: dict[str, Any]) -> str:
    return path_model or str(body.get("model") or "scripted")


def _shows_thoughts(body: dict[str, Any]) -> bool:
    config = body.get("generationConfig")
    thinking = config.get("thinkingConfig") if isinstance(config, dict) else None
    return isinstance(thinking, dict) and thinking.get("includeThoughts") is True


def _summaries(block: Thinking) -> list[str]:
    r"""The thought parts of a reasoning block: one per summary.

    The API sends thought summaries whole, each opening with its subject in bold, and the
    CLI keeps each part as one thought; a bold line after a blank line starts the next.

    Examples
    --------
    >>> _summaries(Thinking("**Plan**\n\nCount.\n\n**Check**\n\nVerify."))
    ['**Plan**\n\nCount.', '**Check**\n\nVerify.']
    >>> _summaries(Thinking("One thought.\n\nStill the same one."))
    ['One thought.\n\nStill the same one.']
    """
    return [t for t in _SUMMARY_BREAK.split(block.text.strip()) if t]


def _content(reply: Reply, body: dict[str, Any]) -> tuple[Thinking | str | ToolUse, ...]:
    """The blocks to send; a sub-agent's final answer becomes the call that hands it in.

    A Gemini CLI sub-agent finishes only by calling ``complete_task``, so a scripted
    sub-agent step that just answers in text plays that call with the text as its result.

    Examples
    --------
    >>> finish = {"tools": [{"functionDeclarations": [{"name": "complete_task"}]}]}
    >>> _content(Reply("3 files"), finish)
    (ToolUse(name='complete_task', input={'result': {'response': '3 files'}}),)
    >>> _content(Reply("3 files"), {})
    ('3 files',)
    """
    content = reply.content
    if reply.calls or _FINISH_TOOL not in _declarations(body):
        return content
    text = "\n\n".join(b for b in content if isinstance(b, str))
    finish = ToolUse(_FINISH_TOOL, {"result": {"response": text}})
    return (*(b for b in content if isinstance(b, Thinking)), finish)


def _parts(
    reply: Reply, body: dict[str, Any], call_ids: list[str]
) -> list[tuple[bool, list[dict[str, Any]]]]:
    """The response's parts grouped by block, each group flagged as thought or not.

    A block streams as several parts (text in small pieces); the signature of a thought
    run goes on the part that plays its role in the real API.
    """
    groups: list[tuple[bool, list[dict[str, Any]]]] = []
    ids = iter(call_ids)
    signature: str | None = None
    shows = _shows_thoughts(body)
    content = _content(reply, body)
    has_calls = any(isinstance(b, ToolUse) for b in content)
    for block in content:
        if isinstance(block, Thinking):
            signature = opaque("thought", block.text)
            if shows and not block.redacted and block.text:
                groups.append((True, [{"text": t, "thought": True} for t in _summaries(block)]))
            continue
        if isinstance(block, str):
            parts: list[dict[str, Any]] = [{"text": t} for t in text_chunks(block)]
        else:
            name, args = function_call(block, body)
            call: dict[str, Any] = {"name": name, "args": args}
            call_id = next(ids, None)
            if call_id is not None:
                call = {"id": call_id, **call}
            parts = [{"functionCall": call}]
        if signature is not None and (not has_calls or isinstance(block, ToolUse)):
            parts[0]["thoughtSignature"] = signature
            signature = None
        groups.append((False, parts))
    if signature is not None:  # nothing came after the thoughts: an empty part carries it
        groups.append((False, [{"text": "", "thoughtSignature": signature}]))
    return groups


def _weight(part: dict[str, Any]) -> int:
    return len(part["text"]) if "text" in part else _CALL_WEIGHT


def _stream(
    reply: Reply, body: dict[str, Any], model: str, call_ids: list[str], pace: Pace
) -> Iterator[SseEvent]:
    figures = _figures(reply, body)
    groups = _parts(reply, body, call_ids)
    thought = any(isinstance(b, Thinking) for b in reply.content)
    thoughts_total = figures.reasoning if thought else 0
    weights = {True: 0, False: 0}
    for is_thought, parts in groups:
        weights[is_thought] += sum(_weight(p) for p in parts)
    done = {True: 0, False: 0}
    pause = 0.0  # the pause after a block falls before whatever comes next
    for is_thought, parts in groups:
        for number, part in enumerate(parts):
            done[is_thought] += _weight(part)
            # A running usage: the candidates and thoughts streamed so far, never the
            # final figures before the end.
            candidates = figures.output * done[False] // max(1, weights[False])
            thoughts = thoughts_total * done[True] // max(1, weights[True])
            usage = _usage(figures, max(0, min(candidates, figures.output - 1)), thoughts)
            delay = pause if number == 0 else pace.chunk
            yield SseEvent(None, _chunk([part], model, usageMetadata=usage), delay=delay)
        pause = pace.block
    final = _chunk([], model, finishReason="STOP", usageMetadata=_final_usage(reply, body))
    yield SseEvent(None, final, delay=pause)


def respond(
    reply: Reply,
    body: dict[str, Any],
    path_model: str,
    call_ids: list[str],
    stream: bool,
    pace: Pace = BURST,
) -> WireResponse:
    """Answer one ``generateContent`` (JSON) or ``streamGenerateContent`` (SSE) request."""
    model = _model(path_model, body)
    if stream:
        return WireResponse(events=_stream(reply, body, model, call_ids, pace), delay=reply.delay)
    parts: list[dict[str, Any]] = []
    for is_thought, group in _parts(reply, body, call_ids):
        if is_thought:
            parts.append({"text": "".join(p["text"] for p in group), "thought": True})
        elif "text" in group[0]:
            whole = dict(group[0], text="".join(p["text"] for p in group))
            parts.append(whole)
        else:
            parts += group
    payload = _chunk(parts, model, finishReason="STOP", usageMetadata=_final_usage(reply, body))
    return WireResponse(json_body=payload, delay=reply.delay)
