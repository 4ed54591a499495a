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
        data: bytes = response.read()
    return data


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
        # What Codex 0.171.0 asks for with every turn.
        "reasoning": {"summary": "auto"},
        "include": ["reasoning.encrypted_content"],
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
    with ScriptedModel(
        [Reply("Hello there, a reply long enough to stream in chunks.")], burst=True
    ) as model:
        evs = events(post(model, body(message("user", "hi"))))
    kinds = [e["type"] for e in evs]
    deltas = kinds.count("response.output_text.delta")
    assert deltas > 1
    assert kinds == [
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.content_part.added",
        *["response.output_text.delta"] * deltas,
        "response.output_text.done",
        "response.content_part.done",
        "response.output_item.done",
        "response.completed",
    ]
    assert [e["sequence_number"] for e in evs] == list(range(len(evs)))
    # Usage is reported once, at the end, as the real API does.
    assert evs[0]["response"]["usage"] is None and evs[1]["response"]["usage"] is None
    usage = evs[-1]["response"]["usage"]
    assert usage["output_tokens"] > 0 and usage["total_tokens"] >= usage["input_tokens"]
    assert evs[-1]["response"]["id"] == evs[0]["response"]["id"]


def test_portable_bash_becomes_exec_command_with_declared_arguments() -> None:
    turn = [Reply("Checking.", tools=[ToolUse("Bash", {"command": "ls", "description": "x"})])]
    with ScriptedModel(rules=[Rule("look", turn)], burst=True) as model:
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
    with ScriptedModel([Reply(tools=[tool])], burst=True) as model:
        _, calls, _ = played(post(model, body(message("user", "go"))))
    assert json.loads(calls[0]["arguments"])["sandbox_permissions"] == "require_escalated"


def test_tool_turn_is_played_step_by_step() -> None:
    turn = [Reply(tools=[ToolUse("Bash", {"command": "echo 1"})]), Reply("Done: 1.")]
    with ScriptedModel(rules=[Rule("run", turn)], sequence=["next turn"], burst=True) as model:
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
    with ScriptedModel([Reply("Answer.", reasoning="Thinking it over.")], burst=True) as model:
        evs = events(post(model, body(message("user", "q"))))
    items = [e["item"] for e in evs if e["type"] == "response.output_item.done"]
    assert [i["type"] for i in items] == ["reasoning", "message"]
    assert items[0]["summary"] == [{"type": "summary_text", "text": "Thinking it over."}]


def test_reasoning_streams_its_summary_parts_then_the_encrypted_item() -> None:
    thought = "The user asks something; think it over before the answer. " * 2
    with ScriptedModel([Reply("Answer.", thinking=thought)], burst=True) as model:
        evs = events(post(model, body(message("user", "q"))))
    kinds = [e["type"] for e in evs]
    first = kinds.index("response.output_item.done")
    summary = kinds[3:first]
    deltas = summary.count("response.reasoning_summary_text.delta")
    assert deltas > 1
    assert summary == [
        "response.reasoning_summary_part.added",
        *["response.reasoning_summary_text.delta"] * deltas,
        "response.reasoning_summary_text.done",
        "response.reasoning_summary_part.done",
    ]
    added = evs[2]["item"]
    assert added["type"] == "reasoning" and added["summary"] == []
    assert "encrypted_content" not in added
    done = evs[first]["item"]
    assert done["encrypted_content"] and done["summary"][0]["text"] == thought
    text = "".join(e["delta"] for e in evs if e["type"] == "response.reasoning_summary_text.delta")
    assert text == thought
    usage = evs[-1]["response"]["usage"]
    reasoning = (len(thought) + 3) // 4
    assert usage["output_tokens_details"] == {"reasoning_tokens": reasoning}
    # Reasoning counts inside output_tokens: "Answer." is 2 tokens.
    assert usage["output_tokens"] == 2 + reasoning


def test_reasoning_without_a_summary_asked_or_redacted_has_none() -> None:
    with ScriptedModel(
        [Reply("A.", thinking="Hidden."), Reply("B.", thinking="Secret.", thinking_redacted=True)],
        burst=True,
    ) as model:
        plain = body(message("user", "one"))
        del plain["reasoning"], plain["include"]
        first = events(post(model, plain))
        second = events(post(model, body(message("user", "two"))))
    for evs in (first, second):
        assert not [e for e in evs if e["type"].startswith("response.reasoning_summary")]
        item = next(e["item"] for e in evs if e["type"] == "response.output_item.done")
        assert item["type"] == "reasoning" and item["summary"] == []
        assert evs[-1]["response"]["usage"]["output_tokens_details"]["reasoning_tokens"] > 0
    assert "encrypted_content" not in next(
        e["item"] for e in first if e["type"] == "response.output_item.done"
    )
    assert "Secret" not in json.dumps(second)


SPAWN = {
    "type": "function",
    "name": "spawn_agent",
    "parameters": {"type": "object", "properties": {"message": {}, "model": {}, "items": {}}},
}
AGENTS = {"type": "namespace", "name": "multi_agent_v1", "tools": [SPAWN]}


def test_task_is_codexs_spawn_agent_in_its_namespace_and_the_subagent_is_kept_apart() -> None:
    task = ToolUse("Task", {"description": "Count", "prompt": "count the files"})
    sub = [Reply(tools=[ToolUse("Bash", {"command": "ls"})]), Reply("3 files")]
    model = ScriptedModel(
        rules=[Rule("count the files", sub, subagent=True)],
        sequence=[[Reply(tools=[task]), Reply("Spawned.")], "Next."],
        burst=True,
    )
    with model:
        main = body(message("user", "please delegate"), tools=[EXEC, AGENTS])
        _, calls, _ = played(post(model, main))
        assert [(c["name"], c.get("namespace"), json.loads(c["arguments"])) for c in calls] == [
            ("spawn_agent", "multi_agent_v1", {"message": "count the files"})
        ]
        # The sub-agent's thread: the parent's cache key, its own metadata mark.
        spawned = body(message("user", "count the files"))
        spawned["client_metadata"] = {"x-openai-subagent": "collab_spawn"}
        _, sub_calls, _ = played(post(model, spawned))
        assert sub_calls[0]["name"] == "exec_command"
        # Its report comes back to the parent as the agent's message, not the user's.
        note = message(
            "user", '<subagent_notification>\n{"status": "done"}\n</subagent_notification>'
        )
        output = {"type": "function_call_output", "call_id": calls[0]["call_id"], "output": "{}"}
        after = body(message("user", "please delegate"), calls[0], output, note)
        text, _, _ = played(post(model, after))
        assert text == "Spawned."
    assert [(r.user_text, r.step, r.subagent) for r in model.scripted_requests] == [
        ("please delegate", 0, False),
        ("count the files", 0, True),
        ("please delegate", 1, False),
    ]


def test_title_request_does_not_consume_the_script() -> None:
    schema = {"type": "object", "properties": {"title": {"type": "string"}}}
    title = body(message("user", "Generate a concise title.\nUser prompt:\nhi"), tools=[])
    title["text"] = {"format": {"type": "json_schema", "schema": schema, "name": "s"}}
    with ScriptedModel(["first", "second"], burst=True) as model:
        text, _, _ = played(post(model, title))
        assert json.loads(text) == {"title": "Scripted session"}
        answer, _, _ = played(post(model, body(message("user", "hi"))))
        assert answer == "first"
        assert [r.scripted for r in model.requests] == [False, True]


def test_agent_context_is_not_the_user_text() -> None:
    aborted = message("user", "<turn_aborted>\nThe user interrupted.\n</turn_aborted>")
    with ScriptedModel(rules=[Rule("hello", "hi back")], burst=True) as model:
        text, _, _ = played(post(model, body(message("user", "hello"), aborted)))
    assert text == "hi back"


def test_same_text_in_another_thread_is_a_new_turn() -> None:
    with ScriptedModel(["one", "two"], burst=True) as model:
        first, _, _ = played(post(model, body(message("user", "hi"))))
        other = body(message("user", "hi"))
        other["prompt_cache_key"] = "thread-2"
        second, _, _ = played(post(model, other))
    assert (first, second) == ("one", "two")
