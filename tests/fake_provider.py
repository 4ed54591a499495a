"""A provider for unit tests of the layers above the seam: a real process under real tmux
(``fake_agent.py``) with a trivial JSONL transcript."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from lab_widget.provider import (
    AgentProvider,
    CorruptLine,
    JsonlTail,
    ProviderMeta,
    ReadResult,
    RunContext,
    SpawnPlan,
    SpawnRequest,
    Terminal,
    TranscriptReader,
    TranscriptRef,
)
from lab_widget.schema import (
    AuthDescriptor,
    AuthStatus,
    CommandSpec,
    Message,
    SeedMeta,
    SessionSummary,
    State,
)

AGENT = Path(__file__).with_name("fake_agent.py")


class FakeReader(TranscriptReader):
    def __init__(self, ref: TranscriptRef) -> None:
        self.ref = ref
        self._tail = JsonlTail(ref.path)
        self._messages: list[Message] = []
        self._state: State = "idle"

    def read(self) -> ReadResult:
        changed = []
        items = self._tail.read()
        reset = self._tail.rewound
        if reset:  # the file was rewritten or replaced: its content is the conversation
            self._messages, self._state = [], "idle"
        for item in items:
            if isinstance(item, CorruptLine):
                fields: dict[str, Any] = {"kind": "lifecycle", "role": "system", "level": "warning"}
                fields["text"] = f"corrupt line {item.number}"
            elif item.value.get("type") == "interrupt":
                fields = {"kind": "lifecycle", "role": "system", "text": "Interrupted"}
                self._state = "idle"
            else:
                role = item.value["type"]
                fields = {"kind": "text", "role": role, "text": item.value["text"]}
                self._state = "working" if role == "user" else "idle"
            message = Message(seq=len(self._messages), **fields)
            self._messages.append(message)
            changed.append(message)
        return ReadResult(changed=list(self._messages) if reset else changed, reset=reset)

    @property
    def messages(self) -> list[Message]:
        return list(self._messages)

    @property
    def state(self) -> State:
        return self._state

    @property
    def summary(self) -> SessionSummary:
        return SessionSummary(transcript_id=self.ref.transcript_id)


class FakeProvider(AgentProvider):
    meta = ProviderMeta(
        id="fake", display_name="Fake Agent", binary=sys.executable, clear_command="/quit"
    )

    def plan_spawn(self, request: SpawnRequest) -> SpawnPlan:
        path = request.context.runtime_dir / "transcript.jsonl"
        return SpawnPlan(
            argv=[sys.executable, str(AGENT), str(path)], env={}, cwd=request.context.cwd
        )

    def locate_transcript(
        self, context: RunContext, current: TranscriptRef | None
    ) -> TranscriptRef | None:
        path = context.runtime_dir / "transcript.jsonl"
        return current or TranscriptRef(transcript_id="fake", path=path, watch=(path.parent,))

    def open_reader(self, ref: TranscriptRef) -> TranscriptReader:
        return FakeReader(ref)

    def is_ready(self, context: RunContext) -> bool:
        return (context.runtime_dir / "transcript.jsonl.ready").exists()

    def reply(self, terminal: Terminal, text: str) -> None:
        terminal.paste(text)
        terminal.keys("Enter")

    def interrupt(self, terminal: Terminal) -> None:
        terminal.keys("Escape")

    def commands(self, cwd: Path) -> list[CommandSpec]:
        return [CommandSpec(name="/quit", description="Quit", role="clear")]

    def auth(self) -> AuthDescriptor:
        return AuthDescriptor(kind="external")

    def auth_status(self) -> AuthStatus:
        return AuthStatus(logged_in=True)

    def seed_meta(self) -> SeedMeta:
        return SeedMeta(context_file="FAKE.md")
