"""Unit: the scripted model over real HTTP (Gemini API, JSON and SSE) as Gemini CLI uses it."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

from lab_widget import Reply, Rule, ScriptedModel, ToolUse

SHELL = {
    "name": "run_shell_command",
    "parametersJsonSchema": {
        "type": "object",
        "properties": {"command": {}, "description": {}, "dir_path": {}},
    },
}
CONTEXT = {"text": "<session_context>\nThis is the Gemini CLI.\n</session_context>"}
STREAM = "/v1beta/models/gemini-test:streamGenerateContent?alt=sse"
ROUTER = "/v1beta/models/gemini-router:generateContent"


def post(model: ScriptedModel, path: str, body: dict[str, Any]) -> bytes:
    request = urllib.request.Request(
        model.base_url + path,
        data=json.dumps(body).encode(),
        headers={"content-type": "application/json", "x-goog-api-key": "k"},
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        data: bytes = response.read()
    return data


def chunks(raw: bytes) -> list[dict[str, Any]]:
    out = []
    for block in raw.decode().strip().split("\n\n"):
        assert block.startswith("data: ")
        out.append(json.loads(block[len("data: ") :]))
    return out


def parts(raw: bytes) -> list[dict[str, Any]]:
    return [p for c in chunks(raw) for p in c["candidates"][0]["content"]["parts"]]


def user(*texts: str, context: bool = False) -> dict[str, Any]:
    return {
        "role": "user",
        "parts": [*([CONTEXT] if context else []), *({"text": t} for t in texts)],
    }


def body(*contents: dict[str, Any]) -> dict[str, Any]:
    return {"contents": list(contents), "tools": [{"functionDeclarations": [SHELL]}]}


def test_streamed_text_reply_with_usage() -> None:
    with ScriptedModel(
        [Reply("Hello there, a reply long enough to stream in chunks.")], burst=True
    ) as model:
        raw = post(model, STREAM, body(user("hi", context=True)))
    found = chunks(raw)
    assert len(found) > 2
    assert "".join(p.get("text", "") for p in parts(raw)) == (
        "Hello there, a reply long enough to stream in chunks."
    )
    last = found[-1]
    assert last["candidates"][0]["finishReason"] == "STOP"
    assert last["usageMetadata"]["candidatesTokenCount"] > 0
    assert last["modelVersion"] == "gemini-test"
    assert model.scripted_requests[0].user_text == "hi"


def test_portable_bash_becomes_the_shell_tool_then_the_turn_continues() -> None:
    turn = [
        Reply("Running.", tools=[ToolUse("Bash", {"command": "ls", "timeout": 3})]),
        Reply("Done."),
    ]
    with ScriptedModel([turn], burst=True) as model:
        first = parts(post(model, STREAM, body(user("list", context=True))))
        call = next(p["functionCall"] for p in first if "functionCall" in p)
        assert call["name"] == "run_shell_command"
        assert call["args"] == {"command": "ls"}
        assert call["id"]
        history = [
            user("list", context=True),
            {"role": "model", "parts": first},
            {
                "role": "user",
                "parts": [
                    {
                        "functionResponse": {
                            "id": call["id"],
                            "name": call["name"],
                            "response": {"output": "a"},
                        }
                    }
                ],
            },
        ]
        second = parts(post(model, STREAM, body(*history)))
        steps = [r.step for r in model.scripted_requests]
    assert [p.get("text") for p in second] == ["Done."]
    assert steps == [0, 1]


def test_router_side_query_gets_schema_json_and_leaves_the_script_alone() -> None:
    config = {
        "responseMimeType": "application/json",
        "responseJsonSchema": {
            "type": "OBJECT",
            "properties": {
                "complexity_reasoning": {"type": "STRING"},
                "complexity_score": {"type": "INTEGER"},
            },
        },
    }
    with ScriptedModel([Reply("first"), Reply("second")], burst=True) as model:
        raw = post(model, ROUTER, {"contents": [user("hi")], "generationConfig": config})
        answer = json.loads(json.loads(raw)["candidates"][0]["content"]["parts"][0]["text"])
        assert set(answer) == {"complexity_reasoning", "complexity_score"}
        assert isinstance(answer["complexity_score"], int)
        streamed = parts(post(model, STREAM, body(user("hi", context=True))))
        side = [r for r in model.requests if not r.scripted]
    assert streamed == [{"text": "first"}]
    assert len(side) == 1


def test_rules_match_user_text_without_the_session_context() -> None:
    with ScriptedModel(rules=[Rule("weather", Reply("Sunny."))], burst=True) as model:
        streamed = parts(post(model, STREAM, body(user("what is the weather", context=True))))
    assert streamed == [{"text": "Sunny."}]


THINKING = {"thinkingConfig": {"includeThoughts": True, "thinkingLevel": "HIGH"}}


def thinking_body(*contents: dict[str, Any]) -> dict[str, Any]:
    # What Gemini CLI 0.61.0 asks for with every turn.
    return dict(body(*contents), generationConfig=THINKING)


def test_thoughts_stream_first_and_the_next_part_carries_the_signature() -> None:
    thought = "**Greeting**\n\nThe user greets me.\n\n**Answering**\n\nGreet back, briefly."
    with ScriptedModel([Reply("Hello! Nice to meet you today.", thinking=thought)]) as model:
        found = parts(post(model, STREAM, thinking_body(user("hi", context=True))))
    thoughts = [p for p in found if p.get("thought")]
    # One thought part per summary, each whole with its bold subject, as the API sends them.
    assert [p["text"] for p in thoughts] == [
        "**Greeting**\n\nThe user greets me.",
        "**Answering**\n\nGreet back, briefly.",
    ]
    assert found[: len(thoughts)] == thoughts
    following = found[len(thoughts)]
    assert "thought" not in following and following["thoughtSignature"]
    assert sum("thoughtSignature" in p for p in found) == 1


def test_the_signature_goes_on_the_first_function_call() -> None:
    reply = Reply(thinking="List it.", blocks=["Listing.", ToolUse("Bash", {"command": "ls"})])
    with ScriptedModel([reply], burst=True) as model:
        found = parts(post(model, STREAM, thinking_body(user("list", context=True))))
    signed = [p for p in found if "thoughtSignature" in p]
    assert len(signed) == 1 and "functionCall" in signed[0]


def test_no_thought_text_unless_asked_or_when_redacted() -> None:
    with ScriptedModel(
        [Reply("A.", thinking="Hidden."), Reply("B.", thinking="Secret.", thinking_redacted=True)],
        burst=True,
    ) as model:
        unasked = parts(post(model, STREAM, body(user("one", context=True))))
        redacted = post(model, STREAM, thinking_body(user("two", context=True)))
    for found in (unasked, parts(redacted)):
        assert not any(p.get("thought") for p in found)
        assert [p.get("text") for p in found] == [found[0]["text"]] and found[0]["thoughtSignature"]
    assert b"Secret" not in redacted


def test_usage_is_cumulative_on_every_chunk_and_final_on_the_last() -> None:
    reply = Reply(
        "A reply long enough to stream in several chunks of text.",
        thinking="Think about it for a while before answering. " * 2,
        cache_read_tokens=10,
    )
    with ScriptedModel([reply], burst=True) as model:
        found = chunks(post(model, STREAM, thinking_body(user("q", context=True))))
    usages = [c["usageMetadata"] for c in found]
    final = usages[-1]
    thoughts = (len(reply.thinking) + 3) // 4
    candidates = (len(reply.text) + 3) // 4
    assert final["thoughtsTokenCount"] == thoughts
    assert final["candidatesTokenCount"] == candidates
    assert final["cachedContentTokenCount"] == 10
    assert final["totalTokenCount"] == final["promptTokenCount"] + candidates + thoughts
    assert found[-1]["candidates"][0]["finishReason"] == "STOP"
    assert all("finishReason" not in c["candidates"][0] for c in found[:-1])
    # Every chunk has the prompt; the output figures only grow, and reach the final ones
    # only at the end.
    assert {u["promptTokenCount"] for u in usages} == {final["promptTokenCount"]}
    running = [u.get("candidatesTokenCount", 0) for u in usages]
    assert running == sorted(running) and running[-2] < candidates
    assert [u["totalTokenCount"] for u in usages] == sorted(u["totalTokenCount"] for u in usages)


AGENT = {
    "name": "invoke_agent",
    "parametersJsonSchema": {
        "type": "object",
        "properties": {"agent_name": {}, "prompt": {}, "wait_for_previous": {}},
    },
}


def test_task_is_gemini_clis_invoke_agent_and_the_subagent_is_kept_apart() -> None:
    task = ToolUse("Task", {"description": "Count", "prompt": "count the files"})
    model = ScriptedModel(
        rules=[Rule("count the files", "3 files", subagent=True)],
        sequence=[[Reply(tools=[task]), Reply("It counted 3 files.")], "Next."],
        burst=True,
    )
    with model:
        main = dict(body(user("please delegate", context=True)))
        main["tools"] = [{"functionDeclarations": [SHELL, AGENT]}]
        call = next(
            p["functionCall"] for p in parts(post(model, STREAM, main)) if "functionCall" in p
        )
        assert (call["name"], call["args"]) == (
            "invoke_agent",
            {"agent_name": "generalist", "prompt": "count the files"},
        )
        # The sub-agent hands its text answer in through the tool that finishes it.
        finish = {"name": "complete_task", "parametersJsonSchema": {"properties": {"result": {}}}}
        sub_body = body(user("count the files"))
        sub_body["tools"] = [{"functionDeclarations": [SHELL, finish]}]
        sub = parts(post(model, STREAM, sub_body))
        assert [p["functionCall"]["name"] for p in sub] == ["complete_task"]
        assert sub[0]["functionCall"]["args"] == {"result": {"response": "3 files"}}
        assert parts(post(model, STREAM, body(user("another", context=True))))[0]["text"] == "Next."
    assert [r.subagent for r in model.scripted_requests] == [False, True, False]
