"""Unit: the scripted model over real HTTP (Anthropic Messages, JSON and SSE)."""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
from typing import Any

import pytest

from lab_widget import Reply, Rule, ScriptedModel, ToolUse
from lab_widget.scripted import Thinking

TOOLS = [{"name": "Bash", "input_schema": {"type": "object"}}]


def post(
    model: ScriptedModel,
    body: dict[str, Any],
    path: str = "/v1/messages",
    headers: dict[str, str] | None = None,
) -> bytes:
    request = urllib.request.Request(
        model.base_url + path,
        data=json.dumps(body).encode(),
        headers={"content-type": "application/json", **(headers or {})},
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        data: bytes = response.read()
    return data


def events(raw: bytes) -> list[tuple[str, dict[str, Any]]]:
    out = []
    for block in raw.decode().strip().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in block.splitlines())
        out.append((lines["event"], json.loads(lines["data"])))
    return out


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": text}]}


def body(*messages: dict[str, Any], stream: bool = True, thinking: bool = True) -> dict[str, Any]:
    payload: dict[str, Any] = {
        "model": "m",
        "max_tokens": 100,
        "stream": stream,
        "tools": TOOLS,
        "messages": list(messages),
    }
    if thinking:
        # What Claude Code 2.1.332 sends with every turn.
        payload["thinking"] = {"type": "adaptive", "display": "updates"}
    return payload


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
    with ScriptedModel(
        ["Hello there, this is a longer reply that streams in chunks."], burst=True
    ) as model:
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
    with ScriptedModel(
        ["first", "second"], rules=[Rule("ping", "pong")], fallback="done", burst=True
    ) as model:
        answers = [streamed_reply(post(model, body(user(t))))[0] for t in ["x", "PING!", "y", "z"]]
    assert answers == ["first", "pong", "second", "done"]


def test_mapping_is_rules() -> None:
    with ScriptedModel({"hello": "hi!", "bye": "see you"}, burst=True) as model:
        assert streamed_reply(post(model, body(user("well bye then"))))[0] == "see you"


def test_tool_turn_is_played_step_by_step() -> None:
    turn = [Reply("Checking.", tools=[ToolUse("Bash", {"command": "ls"})]), Reply("Done.")]
    with ScriptedModel(rules=[Rule(re.compile(r"\blist\b"), turn)], burst=True) as model:
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
    with ScriptedModel(["only once"], burst=True) as model:
        side = json.loads(
            post(model, {"model": "m", "max_tokens": 5, "messages": [user("title?")]})
        )
        assert side["content"][0]["type"] == "text"
        assert streamed_reply(post(model, body(user("real"))))[0] == "only once"
        assert [r.scripted for r in model.requests] == [False, True]


def test_reminders_and_system_context_are_not_the_user_text() -> None:
    with ScriptedModel(rules=[Rule("hello", "matched")], fallback="no", burst=True) as model:
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
    with ScriptedModel(
        [Reply("x", input_tokens=7, output_tokens=3, cache_read_tokens=2)], burst=True
    ) as model:
        reply = json.loads(post(model, body(user("a"), stream=False)))
    assert reply["usage"] == {
        "input_tokens": 7,
        "output_tokens": 3,
        "cache_read_input_tokens": 2,
        "cache_creation_input_tokens": 0,
        "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0},
        "service_tier": "standard",
    }


def test_unknown_path_is_a_404_and_recorded() -> None:
    with ScriptedModel(burst=True) as model:
        with pytest.raises(urllib.error.HTTPError) as err:
            post(model, {}, path="/v1/nope")
        assert err.value.code == 404
        assert model.requests[-1].path == "/v1/nope"


def test_stop_releases_the_port() -> None:
    model = ScriptedModel(burst=True).start()
    url = model.base_url
    model.stop()
    assert not model.running
    with pytest.raises(urllib.error.URLError):
        urllib.request.urlopen(url + "/v1/messages", timeout=2)


def blocks(raw: bytes) -> list[dict[str, Any]]:
    """Fold a stream into its content blocks the way the Anthropic SDK does."""
    found: dict[int, dict[str, Any]] = {}
    for name, data in events(raw):
        if name == "content_block_start":
            found[data["index"]] = dict(data["content_block"])
        elif name == "content_block_delta":
            block, delta = found[data["index"]], data["delta"]
            if delta["type"] == "thinking_delta":
                block["thinking"] += delta["thinking"]
            elif delta["type"] == "signature_delta":
                block["signature"] = delta["signature"]
            elif delta["type"] == "text_delta":
                block["text"] += delta["text"]
            elif delta["type"] == "input_json_delta":
                block["partial"] = block.get("partial", "") + delta["partial_json"]
    return [found[i] for i in sorted(found)]


def test_thinking_streams_first_as_a_signed_thinking_block() -> None:
    reply = Reply("The answer.", thinking="The user asks a question; answer it. " * 3)
    with ScriptedModel([reply], burst=True) as model:
        raw = post(model, body(user("q")))
    found = events(raw)
    thinking = [d for n, d in found if n == "content_block_delta" and d["index"] == 0]
    kinds = [d["delta"]["type"] for d in thinking]
    # Several thinking deltas, then exactly one signature, as the real API streams it.
    assert kinds.count("thinking_delta") > 1 and kinds[-1] == "signature_delta"
    assert kinds.count("signature_delta") == 1
    start = next(d for n, d in found if n == "content_block_start")
    assert start["content_block"] == {"type": "thinking", "thinking": "", "signature": ""}
    folded = blocks(raw)
    assert [b["type"] for b in folded] == ["thinking", "text"]
    assert folded[0]["thinking"] == reply.thinking and folded[0]["signature"]
    assert folded[1]["text"] == "The answer."


def test_redacted_thinking_comes_whole_in_its_start_event() -> None:
    with ScriptedModel([Reply("Done.", thinking="secret", thinking_redacted=True)]) as model:
        found = events(post(model, body(user("q"))))
    starts = [d["content_block"] for n, d in found if n == "content_block_start"]
    assert starts[0]["type"] == "redacted_thinking" and starts[0]["data"]
    assert "secret" not in json.dumps(found)
    assert not [d for n, d in found if n == "content_block_delta" and d["index"] == 0]


def test_no_thinking_when_the_request_does_not_enable_it() -> None:
    with ScriptedModel([Reply("Plain.", thinking="Hmm.")], burst=True) as model:
        folded = blocks(post(model, body(user("q"), thinking=False)))
    assert [b["type"] for b in folded] == ["text"]


def test_usage_is_partial_at_message_start_and_final_in_message_delta() -> None:
    reply = Reply(
        "A reply long enough to count several output tokens in its usage figures.",
        thinking="Think it through first.",
        cache_read_tokens=40,
        cache_write_tokens=9,
    )
    with ScriptedModel([reply], burst=True) as model:
        found = events(post(model, body(user("q"))))
    start = found[0][1]["message"]["usage"]
    delta = next(d for n, d in found if n == "message_delta")["usage"]
    # The real API: cache figures up front, a small partial output count, the final
    # (cumulative) figures only in message_delta.
    assert 1 <= start["output_tokens"] <= 8 < delta["output_tokens"]
    assert start["cache_read_input_tokens"] == delta["cache_read_input_tokens"] == 40
    assert start["cache_creation_input_tokens"] == delta["cache_creation_input_tokens"] == 9
    assert start["input_tokens"] == delta["input_tokens"] > 0
    # Thinking counts inside output_tokens.
    text_only = (len(reply.text) + 3) // 4
    assert delta["output_tokens"] == text_only + (len(reply.thinking) + 3) // 4
    assert [n for n, _ in found][:2] == ["message_start", "ping"]


def test_thinking_tokens_are_detailed_when_the_beta_asks() -> None:
    reply = Reply("Yes.", thinking="x" * 40)
    beta = {"anthropic-beta": "claude-code-20250219,thinking-token-count-2026-05-13"}
    with ScriptedModel([reply, reply], burst=True) as model:
        asked = events(post(model, body(user("a")), headers=beta))
        plain = events(post(model, body(user("b"))))
    usage = next(d for n, d in asked if n == "message_delta")["usage"]
    assert usage["output_tokens_details"] == {"thinking_tokens": 10}
    assert usage["output_tokens"] == 11
    assert "output_tokens_details" not in next(d for n, d in plain if n == "message_delta")["usage"]


def test_blocks_stream_in_their_order() -> None:
    reply = Reply(
        thinking="Plan.",
        blocks=[
            "Looking.",
            ToolUse("Bash", {"command": "ls"}),
            Thinking("Interleaved."),
            "Started.",
        ],
    )
    with ScriptedModel([reply], burst=True) as model:
        raw = post(model, body(user("go")))
    folded = blocks(raw)
    assert [b["type"] for b in folded] == ["thinking", "text", "tool_use", "thinking", "text"]
    assert json.loads(folded[2]["partial"]) == {"command": "ls"}
    assert [folded[i].get("text") for i in (1, 4)] == ["Looking.", "Started."]
    assert next(d for n, d in events(raw) if n == "message_delta")["delta"]["stop_reason"] == (
        "tool_use"
    )


def test_non_streaming_answer_is_complete_with_thinking() -> None:
    reply = Reply("Answer.", thinking="Reason.", tools=[ToolUse("Bash", {"command": "ls"})])
    with ScriptedModel([reply], burst=True) as model:
        answer = json.loads(post(model, body(user("q"), stream=False)))
    content = answer["content"]
    assert [c["type"] for c in content] == ["thinking", "text", "tool_use"]
    assert content[0]["thinking"] == "Reason." and content[0]["signature"]
    assert answer["usage"]["output_tokens"] == 2 + 10 + 2


def test_a_reply_takes_blocks_or_text_and_tools() -> None:
    with pytest.raises(ValueError):
        Reply("text", blocks=["more"])
    with pytest.raises(TypeError):
        Reply(blocks=[42])  # type: ignore[list-item]
    assert Reply(reasoning="Old name.").content[0] == Reply(thinking="Old name.").content[0]


AGENT_TOOLS = [
    {"name": "Agent", "input_schema": {"type": "object"}},
    {"name": "Bash", "input_schema": {"type": "object"}},
]


def test_task_is_claude_codes_agent_tool_and_its_subagent_plays_its_own_rule() -> None:
    task = ToolUse("Task", {"description": "Count", "prompt": "count the files"})
    sub = [Reply(tools=[ToolUse("Bash", {"command": "ls | wc -l"})]), Reply("3 files")]
    model = ScriptedModel(
        rules=[Rule("count the files", sub, subagent=True)],
        sequence=[[Reply(tools=[task]), Reply("Started.")], "Next main turn."],
        burst=True,
    )
    with model:
        main = dict(body(user("please delegate")), tools=AGENT_TOOLS)
        assert blocks(post(model, main))[0]["name"] == "Agent"
        # The sub-agent's own conversation: its prompt is its first user text.
        first = dict(body(user("count the files")), tools=AGENT_TOOLS[1:])
        assert blocks(post(model, first))[0]["name"] == "Bash"
        call = {"type": "tool_use", "id": "t1", "name": "Bash", "input": {}}
        result = {"type": "tool_result", "tool_use_id": "t1", "content": "3"}
        second = dict(
            body(
                user("count the files"),
                {"role": "assistant", "content": [call]},
                {"role": "user", "content": [result]},
            ),
            tools=AGENT_TOOLS[1:],
        )
        assert streamed_reply(post(model, second))[0] == "3 files"
        # The main conversation still has its sequence.
        assert streamed_reply(post(model, dict(body(user("and now")), tools=AGENT_TOOLS)))[0] == (
            "Next main turn."
        )
    assert [(r.user_text, r.subagent) for r in model.scripted_requests] == [
        ("please delegate", False),
        ("count the files", True),
        ("count the files", True),
        ("and now", False),
    ]
    assert len(model.subagent_requests) == 2


def test_a_subagent_without_a_rule_gets_its_fallback_not_the_sequence() -> None:
    system = [{"type": "text", "text": "x-anthropic-billing-header: cc_is_subagent=true;"}]
    with ScriptedModel(["main only"], subagent_fallback="sub done", burst=True) as model:
        marked = dict(body(user("explore the code")), system=system)
        assert streamed_reply(post(model, marked))[0] == "sub done"
        assert streamed_reply(post(model, body(user("hi"))))[0] == "main only"


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
