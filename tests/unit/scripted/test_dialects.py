"""Unit: the table of wire APIs the scripted model speaks, and the pinned context prefixes
the CLIs' readers and the scripted model share."""

from __future__ import annotations

from typing import Any

import pytest

from lab_widget import Reply, Rule, ScriptedModel
from lab_widget.compat import CODEX_CONTEXT_PREFIXES, GEMINI_CONTEXT_PREFIXES
from lab_widget.provider.codex import _compat as codex
from lab_widget.provider.gemini import _compat as gemini
from lab_widget.scripted import _dialects
from lab_widget.scripted._dialects import Messages, dialect_for


def messages_body(text: str) -> dict[str, Any]:
    return {
        "model": "m",
        "max_tokens": 10,
        "tools": [{"name": "Bash"}],
        "messages": [{"role": "user", "content": text}],
    }


def test_every_served_path_reaches_its_dialect() -> None:
    kinds = {
        path: type(dialect_for(path)).__name__
        for path in (
            "/v1/messages",
            "/v1/messages/count_tokens",
            "/v1/responses",
            "/v1/chat/completions",
            "/v1beta/models/m:generateContent",
            "/v1beta/models/m:streamGenerateContent",
        )
    }
    assert kinds == {
        "/v1/messages": "Messages",
        "/v1/messages/count_tokens": "TokenCount",
        "/v1/responses": "Responses",
        "/v1/chat/completions": "ChatCompletions",
        "/v1beta/models/m:generateContent": "GenerateContent",
        "/v1beta/models/m:streamGenerateContent": "GenerateContent",
    }


def test_a_known_api_on_another_path_is_one_more_row(monkeypatch: pytest.MonkeyPatch) -> None:
    # A CLI that speaks the Messages API without the /v1 prefix.
    with ScriptedModel(["Hello without a version."], burst=True) as model:
        assert model.handle("POST", "/messages", messages_body("hi")).status == 404
        monkeypatch.setattr(_dialects, "ROUTES", (*_dialects.ROUTES, ("/messages", Messages())))
        answer = model.handle("POST", "/messages/", messages_body("hi"))
    assert answer.json_body is not None
    assert answer.json_body["content"][0]["text"] == "Hello without a version."
    assert [r.scripted for r in model.requests] == [False, True]


def test_token_counts_are_constant_and_never_a_turn() -> None:
    with ScriptedModel(["only once"], burst=True, headers={"x-quota": "9"}) as model:
        answer = model.handle("POST", "/v1/messages/count_tokens", messages_body("hi"))
        played = model.handle("POST", "/v1/messages", messages_body("hi"))
    assert answer.json_body == {"input_tokens": 1}
    assert answer.headers == {"x-quota": "9"}
    assert played.json_body is not None
    assert played.json_body["content"][0]["text"] == "only once"


def test_the_readers_and_the_scripted_model_share_one_pin_of_the_prefixes() -> None:
    assert codex.CONTEXT_PREFIXES is CODEX_CONTEXT_PREFIXES
    assert gemini.CONTEXT_PREFIXES is GEMINI_CONTEXT_PREFIXES


def responses_body(context: str) -> dict[str, Any]:
    def user(text: str) -> dict[str, Any]:
        return {
            "type": "message",
            "role": "user",
            "content": [{"type": "input_text", "text": text}],
        }

    tool = {"type": "function", "name": "exec_command", "parameters": {"properties": {}}}
    return {"prompt_cache_key": "t", "tools": [tool], "input": [user("hello"), user(context)]}


def generate_content_body(context: str) -> dict[str, Any]:
    parts = [{"text": context}, {"text": "hello"}]
    tools = [{"functionDeclarations": [{"name": "read_file"}]}]
    return {"contents": [{"role": "user", "parts": parts}], "tools": tools}


@pytest.mark.parametrize(
    ("path", "request_body", "prefix"),
    [
        *(("/v1/responses", responses_body, p) for p in CODEX_CONTEXT_PREFIXES),
        *(
            ("/v1beta/models/m:generateContent", generate_content_body, p)
            for p in GEMINI_CONTEXT_PREFIXES
        ),
    ],
)
def test_every_pinned_context_prefix_is_left_out_of_the_user_text(
    path: str, request_body: Any, prefix: str
) -> None:
    with ScriptedModel(rules=[Rule("hello", Reply("hi back"))], burst=True) as model:
        model.handle("POST", path, request_body(f"  {prefix}\nthe agent's own words"))
    [asked] = model.requests
    assert (asked.scripted, asked.user_text) == (True, "hello")
