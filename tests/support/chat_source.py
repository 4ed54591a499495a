"""A chat source the test drives: a single-layer stand-in for a Run behind a chat view."""

from __future__ import annotations

import threading
from collections.abc import Callable

from lab_widget._chat._session import ChatEvent, Epoch
from lab_widget.schema import CommandSpec, Dialog, DialogAnswer, Message, SessionSummary, State


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
