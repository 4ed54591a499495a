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
        return response.read()


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
    with ScriptedModel([Reply("Hello there, a reply long enough to stream in chunks.")]) as model:
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
    with ScriptedModel([turn]) as model:
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
    with ScriptedModel([Reply("first"), Reply("second")]) as model:
        raw = post(model, ROUTER, {"contents": [user("hi")], "generationConfig": config})
        answer = json.loads(json.loads(raw)["candidates"][0]["content"]["parts"][0]["text"])
        assert set(answer) == {"complexity_reasoning", "complexity_score"}
        assert isinstance(answer["complexity_score"], int)
        streamed = parts(post(model, STREAM, body(user("hi", context=True))))
        side = [r for r in model.requests if not r.scripted]
    assert streamed == [{"text": "first"}]
    assert len(side) == 1


def test_rules_match_user_text_without_the_session_context() -> None:
    with ScriptedModel(rules=[Rule("weather", Reply("Sunny."))]) as model:
        streamed = parts(post(model, STREAM, body(user("what is the weather", context=True))))
    assert streamed == [{"text": "Sunny."}]
