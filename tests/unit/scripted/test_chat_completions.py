"""Unit: the scripted model over real HTTP (OpenAI Chat Completions, SSE) as OpenCode uses it."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

from lab_widget import Reply, Rule, ScriptedModel, ToolUse

BASH = {
    "type": "function",
    "function": {
        "name": "bash",
        "parameters": {"type": "object", "properties": {"command": {}, "timeout": {}}},
    },
}


def post(model: ScriptedModel, body: dict[str, Any]) -> bytes:
    request = urllib.request.Request(
        model.base_url + "/v1/chat/completions",
        data=json.dumps(body).encode(),
        headers={"content-type": "application/json", "accept": "text/event-stream"},
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        data: bytes = response.read()
    return data


def chunks(raw: bytes) -> list[dict[str, Any] | str]:
    out: list[dict[str, Any] | str] = []
    for block in raw.decode().strip().split("\n\n"):
        assert block.startswith("data: "), block
        data = block[len("data: ") :]
        out.append(data if data == "[DONE]" else json.loads(data))
    return out


def played(raw: bytes) -> tuple[str, list[dict[str, Any]], str | None, dict[str, Any] | None]:
    """Fold a stream the way a chat-completions client does: text, calls, finish, usage."""
    items = chunks(raw)
    assert items[-1] == "[DONE]"
    text, finish, usage = "", None, None
    calls: dict[int, dict[str, Any]] = {}
    for item in items[:-1]:
        assert isinstance(item, dict)
        assert item["object"] == "chat.completion.chunk"
        if item.get("usage"):
            usage = item["usage"]
        for choice in item["choices"]:
            delta = choice["delta"]
            text += delta.get("content") or ""
            for call in delta.get("tool_calls") or []:
                slot = calls.setdefault(call["index"], {"id": None, "name": "", "arguments": ""})
                slot["id"] = call.get("id") or slot["id"]
                function = call.get("function") or {}
                slot["name"] += function.get("name") or ""
                slot["arguments"] += function.get("arguments") or ""
            finish = choice.get("finish_reason") or finish
    return text, [calls[i] for i in sorted(calls)], finish, usage


def body(*messages: dict[str, Any], tools: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {
        "model": "scripted",
        "stream": True,
        "stream_options": {"include_usage": True},
        "tools": [BASH] if tools is None else tools,
        "messages": [{"role": "system", "content": "You are opencode"}, *messages],
    }


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


def test_text_reply_streams_as_deltas_with_usage_and_done() -> None:
    with ScriptedModel(["Hello from the scripted model, streamed in pieces."], burst=True) as model:
        text, calls, finish, usage = played(post(model, body(user("hi"))))
        assert text == "Hello from the scripted model, streamed in pieces."
        assert calls == [] and finish == "stop"
        assert usage is not None and usage["completion_tokens"] > 0
        assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]
        assert [r.user_text for r in model.scripted_requests] == ["hi"]


def test_portable_bash_becomes_the_bash_function_and_the_turn_continues() -> None:
    turn = [
        Reply("Running it.", tools=[ToolUse("Bash", {"command": "echo hi", "description": "x"})]),
        Reply("It printed hi."),
    ]
    with ScriptedModel(rules=[Rule("run", turn)], burst=True) as model:
        text, calls, finish, _ = played(post(model, body(user("run it"))))
        assert text == "Running it." and finish == "tool_calls"
        assert len(calls) == 1 and calls[0]["name"] == "bash"
        # Only arguments the offered function declares are kept.
        assert json.loads(calls[0]["arguments"]) == {"command": "echo hi"}
        assert calls[0]["id"].startswith("call_")
        follow = body(
            user("run it"),
            {
                "role": "assistant",
                "content": "Running it.",
                "tool_calls": [
                    {
                        "id": calls[0]["id"],
                        "type": "function",
                        "function": {"name": "bash", "arguments": calls[0]["arguments"]},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": calls[0]["id"], "content": "hi\n"},
        )
        text, calls, finish, _ = played(post(model, follow))
        assert (text, calls, finish) == ("It printed hi.", [], "stop")
        assert [r.step for r in model.scripted_requests] == [0, 1]


def test_title_request_without_tools_is_a_side_query() -> None:
    with ScriptedModel(["the real turn"], burst=True) as model:
        side = body(
            {"role": "user", "content": "Generate a title for this conversation:\n"},
            user("hi"),
            tools=[],
        )
        text, _, _, _ = played(post(model, side))
        assert text == "Scripted session"
        assert model.scripted_requests == []
        text, _, _, _ = played(post(model, body(user("hi"))))
        assert text == "the real turn"  # the sequence was not consumed by the title


def test_a_retry_replays_the_same_turn_and_a_new_prompt_the_next() -> None:
    with ScriptedModel(["first", "second"], burst=True) as model:
        assert played(post(model, body(user("a"))))[0] == "first"
        assert played(post(model, body(user("a"))))[0] == "first"
        later = body(user("a"), {"role": "assistant", "content": "first"}, user("b"))
        assert played(post(model, later))[0] == "second"


def test_user_content_as_text_parts_and_no_stream() -> None:
    with ScriptedModel(rules=[Rule("parts", "seen")], burst=True) as model:
        request = body({"role": "user", "content": [{"type": "text", "text": "parts"}]})
        request["stream"] = False
        reply = json.loads(post(model, request))
        assert reply["object"] == "chat.completion"
        assert reply["choices"][0]["message"]["content"] == "seen"
        assert reply["choices"][0]["finish_reason"] == "stop"


def test_reasoning_streams_first_as_reasoning_content_and_counts_in_usage() -> None:
    thought = "Work out what the user wants, then answer briefly. " * 2
    with ScriptedModel([Reply("Answer.", thinking=thought)], burst=True) as model:
        items = chunks(post(model, body(user("q"))))
    deltas = [c["choices"][0]["delta"] for c in items[:-1] if isinstance(c, dict) and c["choices"]]
    reasoning = [d["reasoning_content"] for d in deltas if "reasoning_content" in d]
    assert len(reasoning) > 1 and "".join(reasoning) == thought
    # Reasoning comes before any text, as @ai-sdk/openai-compatible expects.
    first_text = next(i for i, d in enumerate(deltas) if d.get("content"))
    assert all("reasoning_content" not in d for d in deltas[first_text:])
    assert first_text > max(i for i, d in enumerate(deltas) if "reasoning_content" in d)
    final = next(c for c in items if isinstance(c, dict) and c.get("usage"))
    usage = final["usage"]
    assert final["choices"] == []
    tokens = (len(thought) + 3) // 4
    assert usage["completion_tokens_details"] == {"reasoning_tokens": tokens}
    assert usage["completion_tokens"] == 2 + tokens


def test_usage_only_in_the_last_chunk_and_only_when_asked() -> None:
    with ScriptedModel(["one", "two"], burst=True) as model:
        asked = chunks(post(model, body(user("a"))))
        plain = body(user("b"))
        del plain["stream_options"]
        unasked = chunks(post(model, plain))
    dicts = [c for c in asked if isinstance(c, dict)]
    # Asked for, every chunk carries a null usage until the last, choice-less one.
    assert [c["usage"] is None for c in dicts] == [True] * (len(dicts) - 1) + [False]
    assert dicts[-1]["choices"] == []
    assert not any("usage" in c for c in unasked if isinstance(c, dict))


def test_redacted_reasoning_is_left_out_of_the_wire() -> None:
    with ScriptedModel([Reply("Done.", thinking="secret", thinking_redacted=True)]) as model:
        raw = post(model, body(user("q")))
    assert b"reasoning_content" not in raw and b"secret" not in raw


def test_blocks_keep_their_order_in_the_stream() -> None:
    reply = Reply(
        thinking="Plan.", blocks=["Looking.", ToolUse("Bash", {"command": "ls"}), "Started."]
    )
    with ScriptedModel([reply], burst=True) as model:
        items = chunks(post(model, body(user("go"))))
    order: list[str] = []
    for item in items:
        if not isinstance(item, dict) or not item["choices"]:
            continue
        delta = item["choices"][0]["delta"]
        kind = next(
            (k for k in ("reasoning_content", "content", "tool_calls") if delta.get(k)), None
        )
        if kind and (not order or order[-1] != kind):
            order.append(kind)
    assert order == ["reasoning_content", "content", "tool_calls", "content"]


TASK = {
    "type": "function",
    "function": {
        "name": "task",
        "parameters": {
            "type": "object",
            "properties": {"description": {}, "prompt": {}, "subagent_type": {}, "task_id": {}},
        },
    },
}


def test_task_is_opencodes_task_tool_and_the_subagent_session_is_kept_apart() -> None:
    task = ToolUse("Task", {"description": "Count files", "prompt": "count the files"})
    model = ScriptedModel(
        rules=[Rule("count the files", "3 files", subagent=True)],
        sequence=[[Reply(tools=[task]), Reply("It counted 3 files.")], "Next."],
        burst=True,
    )
    with model:
        _, calls, _, _ = played(post(model, body(user("please delegate"), tools=[BASH, TASK])))
        assert [(c["name"], json.loads(c["arguments"])) for c in calls] == [
            (
                "task",
                {
                    "subagent_type": "general",
                    "description": "Count files",
                    "prompt": "count the files",
                },
            )
        ]
        # The sub-agent's session: its own system prompt and tools, the prompt as user text.
        assert played(post(model, body(user("count the files"))))[0] == "3 files"
        assert played(post(model, body(user("a new main prompt"))))[0] == "Next."
    assert [r.subagent for r in model.scripted_requests] == [False, True, False]
