"""Unit: the scripted model paces its streams on every wire API: a pause after each block.

Where the pauses fall is checked on the events the model hands the HTTP layer (exact, no
clock); that they reach the client as pauses is checked over real HTTP, loosely: only
lower bounds, never how fast a loaded machine answers.
"""

from __future__ import annotations

import http.client
import json
import time
from typing import Any
from urllib.parse import urlsplit

import pytest

from lab_widget import Reply, ScriptedModel, ToolUse
from lab_widget.scripted import ApiError, Thinking

THREE_BLOCKS = Reply(
    thinking="Plan the answer first.",
    blocks=["Looking now.", ToolUse("Bash", {"command": "ls"})],
)

ANTHROPIC = (
    "/v1/messages",
    {
        "model": "m",
        "stream": True,
        "thinking": {"type": "adaptive"},
        "tools": [{"name": "Bash"}],
        "messages": [{"role": "user", "content": "go"}],
    },
)
RESPONSES = (
    "/v1/responses",
    {
        "model": "m",
        "stream": True,
        "reasoning": {"summary": "auto"},
        "tools": [{"type": "function", "name": "exec_command", "parameters": {}}],
        "input": [{"type": "message", "role": "user", "content": "go"}],
    },
)
CHAT = (
    "/v1/chat/completions",
    {
        "model": "m",
        "stream": True,
        "stream_options": {"include_usage": True},
        "tools": [{"type": "function", "function": {"name": "bash"}}],
        "messages": [{"role": "user", "content": "go"}],
    },
)
GEMINI = (
    "/v1beta/models/g:streamGenerateContent",
    {
        "generationConfig": {"thinkingConfig": {"includeThoughts": True}},
        "tools": [{"functionDeclarations": [{"name": "run_shell_command"}]}],
        "contents": [{"role": "user", "parts": [{"text": "go"}]}],
    },
)
WIRES = {"anthropic": ANTHROPIC, "responses": RESPONSES, "chat": CHAT, "gemini": GEMINI}


def paced(model: ScriptedModel, wire: str) -> list[tuple[str, float]]:
    """Each event the model would stream for ``wire``, named, with the pause before it."""
    path, body = WIRES[wire]
    response = model.handle("POST", path, json.loads(json.dumps(body)))
    assert response.events is not None
    return [(name_of(e.event, e.data), e.delay) for e in response.events]


def name_of(event: str | None, data: dict[str, Any] | str) -> str:
    if event:
        return event
    if isinstance(data, str):
        return data
    if "choices" in data:  # chat completions: name a chunk by what its delta carries
        if not data["choices"]:
            return "usage"
        choice = data["choices"][0]
        if choice["finish_reason"]:
            return "finish"
        return next(iter(choice["delta"]), "empty")
    part = data["candidates"][0]["content"]["parts"]
    if not part:
        return "finish"
    return "thought" if part[0].get("thought") else next(iter(part[0]))


def pauses(events: list[tuple[str, float]]) -> list[tuple[str, float]]:
    return [(name, delay) for name, delay in events if delay]


@pytest.mark.parametrize("wire", sorted(WIRES))
def test_a_pause_follows_each_block_and_none_comes_first(wire: str) -> None:
    model = ScriptedModel([THREE_BLOCKS], block_delay=0.3)
    found = pauses(paced(model, wire))
    # Three blocks: a pause before the second and third, and one before the closing event.
    assert [delay for _, delay in found] == [0.3, 0.3, 0.3]
    closing = {
        "anthropic": "message_delta",
        "responses": "response.completed",
        "chat": "finish",
        "gemini": "finish",
    }
    assert found[-1][0] == closing[wire]


@pytest.mark.parametrize("wire", sorted(WIRES))
def test_burst_and_a_reply_of_its_own_pace(wire: str) -> None:
    assert pauses(paced(ScriptedModel([THREE_BLOCKS], burst=True), wire)) == []
    own = Reply("Slow text " * 10, block_delay=0.5, chunk_delay=0.01)
    found = pauses(paced(ScriptedModel([own], burst=True), wire))
    # Chunks of the one text block are spaced by chunk_delay; the close waits block_delay.
    assert found[-1][1] == 0.5
    assert {delay for _, delay in found[:-1]} == {0.01}


def test_the_default_pace_is_modest() -> None:
    model = ScriptedModel(["One block."])
    assert (model.pace.block, model.pace.chunk) == (0.2, 0.0)
    with pytest.raises(ValueError):
        ScriptedModel(block_delay=-1)


def test_side_queries_are_never_paced() -> None:
    model = ScriptedModel(block_delay=5.0)
    body = dict(ANTHROPIC[1], tools=[])  # no tools: the agent's side query
    response = model.handle("POST", ANTHROPIC[0], body)
    assert response.events is not None
    assert all(e.delay == 0 for e in response.events)


def arrivals(base_url: str, path: str, body: dict[str, Any]) -> list[float]:
    """When each server-sent event arrived, in seconds from the request."""
    where = urlsplit(base_url)
    connection = http.client.HTTPConnection(where.hostname, where.port, timeout=30)
    started = time.monotonic()
    connection.request("POST", path, json.dumps(body), {"content-type": "application/json"})
    response = connection.getresponse()
    times: list[float] = []
    for line in response:
        if line.startswith(b"data: "):
            times.append(time.monotonic() - started)
    connection.close()
    return times


@pytest.mark.parametrize("wire", sorted(WIRES))
def test_pauses_reach_the_client(wire: str) -> None:
    reply = Reply(blocks=[Thinking("Plan."), "First.", "Second."])
    with ScriptedModel([reply], block_delay=0.25) as model:
        times = arrivals(model.base_url, *WIRES[wire])
    # Three pauses of 0.25 s lie between the first event and the last.
    assert times[-1] - times[0] >= 0.7


@pytest.mark.parametrize("wire", sorted(WIRES))
def test_an_api_error_fails_its_step_as_often_as_asked_then_the_reply_streams(wire: str) -> None:
    model = ScriptedModel(
        sequence=[Reply("Back.", error=ApiError("rate_limit", retry_after=7, times=2))]
    )
    path, body = WIRES[wire]
    failures = [model.handle("POST", path, json.loads(json.dumps(body))) for _ in range(2)]
    for failed in failures:
        assert failed.status == 429 and failed.events is None
        assert failed.headers["retry-after"] == "7"
        assert "Rate limit reached" in json.dumps(failed.json_body)
    retried = model.handle("POST", path, json.loads(json.dumps(body)))
    assert retried.status == 200 and retried.events is not None  # the retry gets the reply
    assert len(model.scripted_requests) == 3  # every attempt is on record


@pytest.mark.parametrize(
    ("wire", "kind", "status", "word"),
    [
        ("anthropic", "overloaded", 529, "overloaded_error"),
        ("chat", "quota", 429, "insufficient_quota"),
        ("responses", "overloaded", 503, "server_error"),
        ("gemini", "quota", 429, "RESOURCE_EXHAUSTED"),
    ],
)
def test_each_wire_sends_the_error_its_vendor_sends(
    wire: str, kind: str, status: int, word: str
) -> None:
    model = ScriptedModel(sequence=[Reply("never", error=ApiError(kind))])  # type: ignore[arg-type]
    path, body = WIRES[wire]
    for _ in range(3):  # without times=, every attempt fails
        failed = model.handle("POST", path, json.loads(json.dumps(body)))
        assert (failed.status, word in json.dumps(failed.json_body)) == (status, True)


def test_an_api_error_says_what_is_wrong_with_it() -> None:
    with pytest.raises(ValueError, match="rate_limit, quota or overloaded"):
        ApiError("slow")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="at least 1"):
        ApiError(times=0)
