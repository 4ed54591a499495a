"""Unit: the scripted model over real HTTP (OpenAI Responses API, SSE) as Codex uses it."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

from lab_widget import Reply, Rule, ScriptedModel, ToolUse

EXEC = {
    "type": "function",
    "name": "exec_command",
    "parameters": {
        "type": "object",
        "properties": {"cmd": {}, "justification": {}, "sandbox_permissions": {}},
    },
}


def post(model: ScriptedModel, body: dict[str, Any]) -> bytes:
    request = urllib.request.Request(
        model.base_url + "/v1/responses",
        data=json.dumps(body).encode(),
        headers={"content-type": "application/json", "accept": "text/event-stream"},
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.read()


def events(raw: bytes) -> list[dict[str, Any]]:
    out = []
    for block in raw.decode().strip().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in block.splitlines())
        data = json.loads(lines["data"])
        assert lines["event"] == data["type"]
        out.append(data)
    return out


def message(role: str, text: str) -> dict[str, Any]:
    kind = "output_text" if role == "assistant" else "input_text"
    return {"type": "message", "role": role, "content": [{"type": kind, "text": text}]}


CONTEXT = message("user", "<environment_context>\n  <cwd>/w</cwd>\n</environment_context>")


def body(*items: dict[str, Any], tools: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {
        "model": "gpt-test",
        "stream": True,
        "prompt_cache_key": "thread-1",
        "tools": [EXEC] if tools is None else tools,
        "input": [message("developer", "be precise"), CONTEXT, *items],
    }


def played(raw: bytes) -> tuple[str, list[dict[str, Any]], dict[str, Any]]:
    evs = events(raw)
    text = "".join(e["delta"] for e in evs if e["type"] == "response.output_text.delta")
    done = [e["item"] for e in evs if e["type"] == "response.output_item.done"]
    calls = [i for i in done if i["type"] == "function_call"]
    completed = evs[-1]
    assert completed["type"] == "response.completed"
    return text, calls, completed["response"]


def test_event_sequence_follows_the_responses_api() -> None:
    with ScriptedModel([Reply("Hello there, a reply long enough to stream in chunks.")]) as model:
        evs = events(post(model, body(message("user", "hi"))))
    kinds = [e["type"] for e in evs]
    assert kinds[0] == "response.created" and kinds[-1] == "response.completed"
    assert kinds[1] == "response.output_item.added"
    assert kinds.count("response.output_text.delta") > 1
    assert "response.output_item.done" in kinds
    usage = evs[-1]["response"]["usage"]
    assert usage["output_tokens"] > 0 and usage["total_tokens"] >= usage["input_tokens"]
    assert evs[-1]["response"]["id"] == evs[0]["response"]["id"]


def test_portable_bash_becomes_exec_command_with_declared_arguments() -> None:
    turn = [Reply("Checking.", tools=[ToolUse("Bash", {"command": "ls", "description": "x"})])]
    with ScriptedModel(rules=[Rule("look", turn)]) as model:
        text, calls, _ = played(post(model, body(message("user", "please look"))))
    assert text == "Checking."
    assert [(c["name"], json.loads(c["arguments"])) for c in calls] == [
        ("exec_command", {"cmd": "ls"})
    ]
    assert calls[0]["call_id"].startswith("call_")


def test_native_tool_names_pass_through() -> None:
    tool = ToolUse(
        "exec_command",
        {"cmd": "touch /x", "sandbox_permissions": "require_escalated", "justification": "?"},
    )
    with ScriptedModel([Reply(tools=[tool])]) as model:
        _, calls, _ = played(post(model, body(message("user", "go"))))
    assert json.loads(calls[0]["arguments"])["sandbox_permissions"] == "require_escalated"


def test_tool_turn_is_played_step_by_step() -> None:
    turn = [Reply(tools=[ToolUse("Bash", {"command": "echo 1"})]), Reply("Done: 1.")]
    with ScriptedModel(rules=[Rule("run", turn)], sequence=["next turn"]) as model:
        first = body(message("user", "run it"))
        _, calls, _ = played(post(model, first))
        call = calls[0]
        output = {"type": "function_call_output", "call_id": call["call_id"], "output": "1"}
        second = body(message("user", "run it"), call, output)
        text, calls2, _ = played(post(model, second))
        assert (text, calls2) == ("Done: 1.", [])
        # A retry of the first step replays it, it does not advance the script.
        _, again, _ = played(post(model, first))
        assert again[0]["name"] == "exec_command"
        steps = [(r.user_text, r.step) for r in model.scripted_requests]
    assert steps == [("run it", 0), ("run it", 1), ("run it", 0)]


def test_reasoning_summary_is_an_output_item() -> None:
    with ScriptedModel([Reply("Answer.", reasoning="Thinking it over.")]) as model:
        evs = events(post(model, body(message("user", "q"))))
    items = [e["item"] for e in evs if e["type"] == "response.output_item.done"]
    assert [i["type"] for i in items] == ["reasoning", "message"]
    assert items[0]["summary"] == [{"type": "summary_text", "text": "Thinking it over."}]


def test_title_request_does_not_consume_the_script() -> None:
    schema = {"type": "object", "properties": {"title": {"type": "string"}}}
    title = body(message("user", "Generate a concise title.\nUser prompt:\nhi"), tools=[])
    title["text"] = {"format": {"type": "json_schema", "schema": schema, "name": "s"}}
    with ScriptedModel(["first", "second"]) as model:
        text, _, _ = played(post(model, title))
        assert json.loads(text) == {"title": "Scripted session"}
        answer, _, _ = played(post(model, body(message("user", "hi"))))
        assert answer == "first"
        assert [r.scripted for r in model.requests] == [False, True]


def test_agent_context_is_not_the_user_text() -> None:
    aborted = message("user", "<turn_aborted>\nThe user interrupted.\n</turn_aborted>")
    with ScriptedModel(rules=[Rule("hello", "hi back")]) as model:
        text, _, _ = played(post(model, body(message("user", "hello"), aborted)))
    assert text == "hi back"


def test_same_text_in_another_thread_is_a_new_turn() -> None:
    with ScriptedModel(["one", "two"]) as model:
        first, _, _ = played(post(model, body(message("user", "hi"))))
        other = body(message("user", "hi"))
        other["prompt_cache_key"] = "thread-2"
        second, _, _ = played(post(model, other))
    assert (first, second) == ("one", "two")
