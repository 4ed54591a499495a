"""Unit: the chat view's Python side, over a recording comm (no browser)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest

from lab_widget._chat._session import ChatEvent, Epoch
from lab_widget._widgets._view import RunView
from lab_widget.provider import get_provider
from lab_widget.schema import (
    CommandSpec,
    Dialog,
    DialogAnswer,
    Message,
    Option,
    Question,
    SessionSummary,
    State,
    ToolCall,
    Usage,
)
from tests.support.recording import RecordingComm


class StubSource:
    """A chat source driven by the test (a single-layer stand-in for a Run)."""

    display_name = "Stub Agent"
    clear_command = "/new"
    attach_command = "tmux -S /tmp/x attach -t stub"

    def __init__(self, messages: list[Message] | None = None) -> None:
        self.messages = list(messages or [])
        self.state: State = "idle"
        self.transcript_id: str | None = "t1"
        self.state_reason = ""
        self.listeners: list[Callable[[ChatEvent], None]] = []
        self.sent: list[str] = []
        self.fail_with: Exception | None = None
        self.pending_dialog: Dialog | None = None
        self.commands = [
            CommandSpec(name="/new", description="Start over", role="clear"),
            CommandSpec(name="/config", description="Settings panel", chat_safe=False),
        ]
        self.answered: list[DialogAnswer] = []
        self.done = threading.Event()
        self.session = SessionSummary(cwd="/private/path")
        self.past_conversations: list[Epoch] = []

    def subscribe(self, listener: Callable[[ChatEvent], None]) -> Callable[[], None]:
        self.listeners.append(listener)
        return lambda: self.listeners.remove(listener)

    def emit(self, changed: list[Message], reset: bool = False) -> None:
        for listener in list(self.listeners):
            listener(ChatEvent(changed, reset, self.state, self.transcript_id))

    def append(self, message: Message) -> None:
        self.messages.append(message)
        self.emit([message])

    def _act(self, what: str) -> None:
        try:
            if self.fail_with is not None:
                raise self.fail_with
            self.sent.append(what)
        finally:
            self.done.set()

    def send(self, text: str) -> None:
        self._act(text)

    def interrupt(self) -> None:
        self._act("<interrupt>")

    def clear(self) -> None:
        self._act(self.clear_command)

    def answer_dialog(self, answer: DialogAnswer) -> None:
        self.answered.append(answer)
        self._act("<answer>")


def text_message(seq: int, role: str = "assistant") -> Message:
    return Message(seq=seq, kind="text", role=role, text=f"Message number {seq} with some words.")


def test_traits_come_from_the_source(comms: list[RecordingComm]) -> None:
    source = StubSource([text_message(0, "user"), text_message(1)])
    view = RunView(source)
    assert (view.provider_name, view.clear_command, view.state) == ("Stub Agent", "/new", "idle")
    assert view.attach_command == source.attach_command
    assert [m["seq"] for m in view._snapshot["messages"]] == [0, 1]
    assert repr(view) == "RunView(Stub Agent)"
    assert [c["name"] for c in view.commands] == ["/new"]  # chat-unsafe ones stay out


def test_session_trait_follows_new_messages_without_paths(
    comms: list[RecordingComm],
) -> None:
    source = StubSource()
    view = RunView(source)
    assert view.session is not None
    assert view.session["usage"]["input_tokens"] == 0
    source.session = SessionSummary(
        cwd="/private/path",
        model="m-2",
        model_requested="m-1",
        usage=Usage(input_tokens=10, output_tokens=3),
        cost_usd_estimate=0.5,
        context_tokens=10,
        context_window=100,
        branch="main",
    )
    source.append(text_message(0))
    assert view.session["model"] == "m-2"
    assert view.session["model_requested"] == "m-1"
    assert view.session["usage"]["output_tokens"] == 3
    assert (view.session["context_tokens"], view.session["context_window"]) == (10, 100)
    assert "cwd" not in view.session  # the header shows facts, not the machine's paths


def test_a_failing_session_summary_does_not_break_the_view(
    comms: list[RecordingComm],
) -> None:
    class Broken(StubSource):
        @property
        def session(self) -> SessionSummary:
            raise RuntimeError("unreadable")

        @session.setter
        def session(self, _value: SessionSummary) -> None:
            pass

    view = RunView(Broken())
    assert view.session is None


def test_append_sends_a_delta_and_state_changes_sync(comms: list[RecordingComm]) -> None:
    source = StubSource()
    view = RunView(source)
    c = view_comm(view)
    c.clear()
    source.state = "working"
    source.append(text_message(0, "user"))
    deltas = c.customs()
    assert deltas == [
        {
            "kind": "delta",
            "version": 1,
            "base": 0,
            "transcript_id": "t1",
            "reset": False,
            "changed": [text_message(0, "user").model_dump(mode="json", exclude_none=True)],
        }
    ]
    assert view.state == "working"
    updates = [d for t, d, _ in c.sent if t == "comm_msg" and d.get("method") == "update"]
    assert any(u["state"].get("state") == "working" for u in updates)


def test_tool_result_is_an_update_of_the_same_seq(comms: list[RecordingComm]) -> None:
    source = StubSource()
    view = RunView(source)
    running = Message(seq=0, kind="tool", role="assistant", tool=ToolCall(id="t", name="Bash"))
    source.append(running)
    assert running.tool is not None
    done = running.model_copy(
        update={"tool": running.tool.model_copy(update={"status": "ok", "output": "hi"})}
    )
    source.messages[0] = done
    source.emit([done])
    last = view_comm(view).customs()[-1]
    assert last["base"] == 1 and last["version"] == 2
    assert last["changed"][0]["seq"] == 0 and last["changed"][0]["tool"]["status"] == "ok"


def test_sync_request_answers_with_a_snapshot(comms: list[RecordingComm]) -> None:
    source = StubSource([text_message(0)])
    view = RunView(source)
    source.append(text_message(1))
    view._on_custom(view, {"kind": "sync"}, [])
    snapshot = view_comm(view).customs()[-1]
    assert snapshot["kind"] == "snapshot" and snapshot["version"] == 1
    assert [m["seq"] for m in snapshot["messages"]] == [0, 1]


def test_new_epoch_is_a_reset(comms: list[RecordingComm]) -> None:
    source = StubSource([text_message(0), text_message(1)])
    view = RunView(source)
    echo = Message(seq=0, kind="text", role="user", text="/new", command="/new")
    source.messages = [echo]
    source.transcript_id = "t2"
    source.emit([echo], reset=True)
    delta = view_comm(view).customs()[-1]
    assert delta["reset"] is True and delta["transcript_id"] == "t2"
    assert [m["text"] for m in delta["changed"]] == ["/new"]


def act(view: RunView, source: StubSource, **content: Any) -> dict[str, Any]:
    source.done.clear()
    view._on_custom(view, {"kind": "action", "id": "req-1", **content}, [])
    assert source.done.wait(5)
    assert view._channel.idle(5)  # the result is sent right after
    return [m for m in view_comm(view).customs() if m["kind"] == "result"][-1]


def view_comm(view: RunView) -> RecordingComm:
    c = view.comm
    assert isinstance(c, RecordingComm)
    return c


def test_actions_are_answered_by_id(comms: list[RecordingComm]) -> None:
    source = StubSource()
    view = RunView(source)
    assert act(view, source, action="send", text="hello") == {
        "kind": "result",
        "id": "req-1",
        "ok": True,
    }
    assert act(view, source, action="interrupt")["ok"] is True
    assert act(view, source, action="clear")["ok"] is True
    assert source.sent == ["hello", "<interrupt>", "/new"]


def test_action_errors_come_back_to_the_view(comms: list[RecordingComm]) -> None:
    source = StubSource()
    view = RunView(source)
    source.fail_with = RuntimeError("the agent has ended; start a new run")
    result = act(view, source, action="send", text="hello")
    assert result == {
        "kind": "result",
        "id": "req-1",
        "ok": False,
        "error": "the agent has ended; start a new run",
    }


def test_bad_actions_are_answered_with_an_error(comms: list[RecordingComm]) -> None:
    view = RunView(StubSource())
    view._on_custom(view, {"kind": "action", "id": "x", "action": "explode"}, [])
    assert view._channel.idle(5)
    assert view_comm(view).customs()[-1] == {
        "kind": "result",
        "id": "x",
        "ok": False,
        "error": "unknown action 'explode'",
    }


def bytes_per_append(existing: int, comms: list[RecordingComm], appends: int = 20) -> float:
    source = StubSource([text_message(i) for i in range(existing)])
    view = RunView(source)
    c = view_comm(view)
    c.clear()
    for i in range(existing, existing + appends):
        source.append(text_message(i))
    return c.bytes_sent() / appends


def test_bytes_per_append_do_not_grow_with_the_conversation(comms: list[RecordingComm]) -> None:
    small = bytes_per_append(10, comms)
    large = bytes_per_append(5000, comms)
    print(f"bytes per appended message: {small:.0f} at 10 messages, {large:.0f} at 5,000")
    assert large < 2 * small


def test_pending_dialog_trait_and_answer_action(comms: list[RecordingComm]) -> None:
    source = StubSource()
    view = RunView(source)
    assert view.pending_dialog is None
    question = Question(header="DB", text="Which?", options=[Option(label="SQLite")])
    source.pending_dialog = Dialog(kind="question", questions=[question], tool_id="toolu_1")
    source.state = "question"
    source.emit([])
    assert view.pending_dialog is not None and view.pending_dialog["tool_id"] == "toolu_1"
    result = act(
        view, source, action="answer", tool_id="toolu_1", answers=[{"selected": ["SQLite"]}]
    )
    assert result["ok"] is True
    assert source.answered == [DialogAnswer(tool_id="toolu_1", answers=[{"selected": ["SQLite"]}])]


@pytest.mark.parametrize("provider_id", ["claude-code", "codex", "gemini", "opencode"])
def test_each_provider_shows_with_its_own_name_and_commands(
    comms: list[RecordingComm], provider_id: str, tmp_path: Any
) -> None:
    provider = get_provider(provider_id)
    source = StubSource()
    source.display_name = provider.meta.display_name
    source.clear_command = provider.meta.clear_command
    source.commands = provider.commands(tmp_path)
    view = RunView(source)
    assert view.provider_name == provider.meta.display_name
    assert repr(view) == f"RunView({provider.meta.display_name})"
    names = [c["name"] for c in view.commands]
    assert provider.meta.clear_command in names
    assert names and all(c.chat_safe for c in source.commands if c.name in names)
    assert len(names) < len(source.commands)  # the curated-out ones stay out of the composer


def test_earlier_conversations_are_in_the_snapshot_and_named_in_a_reset(
    comms: list[RecordingComm],
) -> None:
    source = StubSource([text_message(0, "user"), text_message(1)])
    view = RunView(source)
    assert view._snapshot["past"] == []
    source.past_conversations = [Epoch("t1", list(source.messages))]
    echo = Message(seq=0, kind="text", role="user", text="/new", command="/new")
    source.messages, source.transcript_id = [echo], "t2"
    source.emit([echo], reset=True)
    delta = view_comm(view).customs()[-1]
    assert delta["reset"] is True and delta["past"] == ["t1"]  # ids only: small
    view._on_custom(view, {"kind": "sync"}, [])
    snapshot = view_comm(view).customs()[-1]
    assert snapshot["kind"] == "snapshot"
    assert [(p["transcript_id"], len(p["messages"])) for p in snapshot["past"]] == [("t1", 2)]
    # A later view (a notebook opened afterwards) starts with them.
    assert [p["transcript_id"] for p in RunView(source)._snapshot["past"]] == ["t1"]


def test_bytes_per_append_stay_flat_after_clears(comms: list[RecordingComm]) -> None:
    source = StubSource([text_message(i) for i in range(10)])
    source.past_conversations = [
        Epoch(f"old{k}", [text_message(i) for i in range(2000)]) for k in range(3)
    ]
    view = RunView(source)
    c = view_comm(view)
    c.clear()
    for i in range(10, 30):
        source.append(text_message(i))
    with_past = c.bytes_sent() / 20
    assert with_past < 2 * bytes_per_append(10, comms)


def test_variables_are_listed_from_the_kernel_by_name_and_kind(
    comms: list[RecordingComm], monkeypatch: pytest.MonkeyPatch
) -> None:
    namespace = {"df_rows": [1, 2, 3], "api_key": "sk-ant-abcdefghijklmnopqrstuv", "_x": 1}
    monkeypatch.setattr("lab_widget._widgets._view.kernel_namespace", lambda: namespace)
    source = StubSource()
    view = RunView(source)
    view._on_custom(view, {"kind": "action", "id": "v1", "action": "variables"}, [])
    assert view._channel.idle(5)
    result = view_comm(view).customs()[-1]
    assert result == {
        "kind": "result",
        "id": "v1",
        "ok": True,
        "value": [
            {"name": "api_key", "type": "str", "size": "29 characters", "secret": True},
            {"name": "df_rows", "type": "list", "size": "3 items", "secret": False},
        ],
    }
    assert "sk-ant" not in str(result)


def test_without_a_kernel_there_are_no_variables(
    comms: list[RecordingComm], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("lab_widget._widgets._view.kernel_namespace", lambda: None)
    view = RunView(StubSource())
    view._on_custom(view, {"kind": "action", "id": "v2", "action": "variables"}, [])
    assert view._channel.idle(5)
    assert view_comm(view).customs()[-1] == {"kind": "result", "id": "v2", "ok": True, "value": []}


def test_a_sent_prompt_has_its_mentions_expanded_from_the_kernel(
    comms: list[RecordingComm], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("lab_widget._widgets._view.kernel_namespace", lambda: {"n": 7})
    source = StubSource()
    view = RunView(source)
    act(view, source, action="send", text="double @n and @unknown")
    [sent] = source.sent
    assert sent.startswith("double `n` and @unknown\n\nNotebook variables mentioned above")
    assert sent.endswith("`n`: int = 7")


def text_form(view: RunView) -> str:
    bundle = view._repr_mimebundle_()
    data = bundle[0] if isinstance(bundle, tuple) else bundle
    assert "application/vnd.jupyter.widget-view+json" in data  # the widget, where it shows
    text: str = data["text/plain"]
    return text


def test_the_text_form_lists_the_last_messages(comms: list[RecordingComm]) -> None:
    source = StubSource()
    view = RunView(source)
    assert text_form(view) == "RunView(Stub Agent)"
    tool = ToolCall(id="t", name="Bash", input={"command": "ls"}, status="ok")
    source.messages = [text_message(i, "user" if i % 2 else "assistant") for i in range(10)]
    source.messages.append(Message(seq=10, kind="tool", role="assistant", tool=tool))
    source.past_conversations = [Epoch("t0", [text_message(0)])]
    lines = text_form(view).splitlines()
    assert lines[:3] == [
        "RunView(Stub Agent)",
        "  (1 earlier conversation, 1 message)",
        "  … 3 earlier messages",
    ]
    assert lines[-1] == "  tool Bash (done): ls"
    assert lines[-2] == "  user: Message number 9 with some words."
    assert repr(view) == "RunView(Stub Agent)"  # the repr stays short and stable
