"""Unit: the scripted model over real HTTP (Anthropic Messages, JSON and SSE)."""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
from typing import Any

import pytest

from lab_widget import Reply, Rule, ScriptedModel, ToolUse

TOOLS = [{"name": "Bash", "input_schema": {"type": "object"}}]


def post(model: ScriptedModel, body: dict[str, Any], path: str = "/v1/messages") -> bytes:
    request = urllib.request.Request(
        model.base_url + path,
        data=json.dumps(body).encode(),
        headers={"content-type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.read()


def events(raw: bytes) -> list[tuple[str, dict[str, Any]]]:
    out = []
    for block in raw.decode().strip().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in block.splitlines())
        out.append((lines["event"], json.loads(lines["data"])))
    return out


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": text}]}


def body(*messages: dict[str, Any], stream: bool = True) -> dict[str, Any]:
    return {
        "model": "m",
        "max_tokens": 100,
        "stream": stream,
        "tools": TOOLS,
        "messages": list(messages),
    }


def streamed_reply(raw: bytes) -> tuple[str, list[dict[str, Any]], str]:
    text, tools, stop = "", [], ""
    partial: dict[int, str] = {}
    starts: dict[int, dict[str, Any]] = {}
    for name, data in events(raw):
        if name == "content_block_start":
            starts[data["index"]] = data["content_block"]
        elif name == "content_block_delta":
            delta = data["delta"]
            if delta["type"] == "text_delta":
                text += delta["text"]
            else:
                partial[data["index"]] = partial.get(data["index"], "") + delta["partial_json"]
        elif name == "message_delta":
            stop = data["delta"]["stop_reason"]
    for index, block in starts.items():
        if block["type"] == "tool_use":
            tools.append({"name": block["name"], "input": json.loads(partial[index])})
    return text, tools, stop


def test_sse_event_sequence_follows_the_messages_api() -> None:
    with ScriptedModel(["Hello there, this is a longer reply that streams in chunks."]) as model:
        raw = post(model, body(user("hi")))
    names = [name for name, _ in events(raw)]
    assert names[0] == "message_start" and names[-2:] == ["message_delta", "message_stop"]
    assert names.count("content_block_delta") > 1
    text, tools, stop = streamed_reply(raw)
    assert (text, tools, stop) == (
        "Hello there, this is a longer reply that streams in chunks.",
        [],
        "end_turn",
    )


def test_rules_then_sequence_then_fallback() -> None:
    with ScriptedModel(["first", "second"], rules=[Rule("ping", "pong")], fallback="done") as model:
        answers = [streamed_reply(post(model, body(user(t))))[0] for t in ["x", "PING!", "y", "z"]]
    assert answers == ["first", "pong", "second", "done"]


def test_mapping_is_rules() -> None:
    with ScriptedModel({"hello": "hi!", "bye": "see you"}) as model:
        assert streamed_reply(post(model, body(user("well bye then"))))[0] == "see you"


def test_tool_turn_is_played_step_by_step() -> None:
    turn = [Reply("Checking.", tools=[ToolUse("Bash", {"command": "ls"})]), Reply("Done.")]
    with ScriptedModel(rules=[Rule(re.compile(r"\blist\b"), turn)]) as model:
        first = streamed_reply(post(model, body(user("list files"))))
        assert first == ("Checking.", [{"name": "Bash", "input": {"command": "ls"}}], "tool_use")
        followup = body(
            user("list files"),
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {}}],
            },
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "a"}],
            },
        )
        assert streamed_reply(post(model, followup))[0] == "Done."
        # A retry of the first step replays the same turn; the sequence is not consumed.
        assert streamed_reply(post(model, body(user("list files"))))[0] == "Checking."
        assert [r.step for r in model.scripted_requests] == [0, 1, 0]


def test_side_queries_do_not_consume_the_script() -> None:
    with ScriptedModel(["only once"]) as model:
        side = json.loads(
            post(model, {"model": "m", "max_tokens": 5, "messages": [user("title?")]})
        )
        assert side["content"][0]["type"] == "text"
        assert streamed_reply(post(model, body(user("real"))))[0] == "only once"
        assert [r.scripted for r in model.requests] == [False, True]


def test_reminders_and_system_context_are_not_the_user_text() -> None:
    with ScriptedModel(rules=[Rule("hello", "matched")], fallback="no") as model:
        message = {
            "role": "user",
            "content": [
                {"type": "text", "text": "<system-reminder>say hello</system-reminder>"},
                {"type": "text", "text": "what time is it"},
            ],
        }
        context = {"role": "system", "content": [{"type": "text", "text": "# Environment hello"}]}
        assert streamed_reply(post(model, body(message, context)))[0] == "no"
        assert model.requests[-1].user_text == "what time is it"


def test_usage_is_deterministic_and_overridable() -> None:
    with ScriptedModel([Reply("x", input_tokens=7, output_tokens=3, cache_read_tokens=2)]) as model:
        reply = json.loads(post(model, body(user("a"), stream=False)))
    assert reply["usage"] == {
        "input_tokens": 7,
        "output_tokens": 3,
        "cache_read_input_tokens": 2,
        "cache_creation_input_tokens": 0,
        "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0},
    }


def test_unknown_path_is_a_404_and_recorded() -> None:
    with ScriptedModel() as model:
        with pytest.raises(urllib.error.HTTPError) as err:
            post(model, {}, path="/v1/nope")
        assert err.value.code == 404
        assert model.requests[-1].path == "/v1/nope"


def test_stop_releases_the_port() -> None:
    model = ScriptedModel().start()
    url = model.base_url
    model.stop()
    assert not model.running
    with pytest.raises(urllib.error.URLError):
        urllib.request.urlopen(url + "/v1/messages", timeout=2)


def headers_of(model: ScriptedModel, body: dict[str, Any], path: str) -> dict[str, str]:
    request = urllib.request.Request(
        model.base_url + path,
        data=json.dumps(body).encode(),
        headers={"content-type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        response.read()
        return {k.lower(): v for k, v in response.headers.items()}


def test_response_headers_go_with_every_answer_and_a_reply_adds_its_own() -> None:
    quota = {"x-codex-primary-used-percent": "42.5", "anthropic-ratelimit-unified-status": "ok"}
    turn = Reply("Hi.", headers={"x-codex-primary-used-percent": "99"})
    with ScriptedModel(rules=[Rule("hot", turn)], headers=quota) as model:
        plain = headers_of(model, body(user("hello")), "/v1/messages")
        assert plain["x-codex-primary-used-percent"] == "42.5"
        assert plain["anthropic-ratelimit-unified-status"] == "ok"
        streamed = headers_of(model, body(user("hot please")), "/v1/messages")
        assert streamed["x-codex-primary-used-percent"] == "99"  # the reply's own wins
        responses = {
            "model": "m",
            "stream": True,
            "tools": [{"type": "function", "name": "t"}],
            "input": [
                {
                    "type": "message",
                    "role": "user",
                    "content": [{"type": "input_text", "text": "hello"}],
                }
            ],
        }
        assert (
            headers_of(model, responses, "/v1/responses")["x-codex-primary-used-percent"] == "42.5"
        )


def test_a_reply_may_answer_as_another_model() -> None:
    swap = Reply("From the small one.", model="small-model")
    with ScriptedModel(rules=[Rule("swap", swap)]) as model:
        start = events(post(model, body(user("swap please"))))[0][1]
        assert start["message"]["model"] == "small-model"
        plain = json.loads(post(model, body(user("hello"), stream=False)))
        assert plain["model"] == "m"  # the requested model otherwise
