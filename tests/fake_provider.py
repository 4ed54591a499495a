"""A provider for unit tests of the layers above the seam: a real process under real tmux
(``fake_agent.py``) with a trivial JSONL transcript."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from lab_widget.errors import LoginFailedError, NoLoginInProgressError
from lab_widget.provider import (
    AgentProvider,
    AuthFlow,
    CorruptLine,
    JsonlTail,
    LoginStart,
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
    AuthKind,
    AuthMethod,
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
        for item in self._tail.read():
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
        return ReadResult(changed=changed)

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


class FakeAuthFlow(AuthFlow):
    """A login that runs in memory: ``start`` gives a URL, the code ``good#code`` logs in,
    any other code fails the way an exchange would. Keys go through the real store."""

    GOOD_CODE = "good#code"

    def __init__(self, provider_id: str, descriptor: AuthDescriptor) -> None:
        super().__init__(provider_id, descriptor)
        self.logged_in_by: AuthKind | None = None
        self.started: AuthKind | None = None
        self.status_calls = 0

    def status(self) -> AuthStatus:
        self.status_calls += 1
        if self.logged_in_by is not None:
            return AuthStatus(logged_in=True, method="fake login", kind=self.logged_in_by)
        if self.has_stored_key:
            return AuthStatus(logged_in=True, method="key", kind="api-key", source="stored")
        return AuthStatus(logged_in=False)

    def _start(self, kind: AuthKind) -> LoginStart:
        self.started = kind
        method = self.descriptor.method(kind)
        return LoginStart(
            kind=kind,
            url=f"https://login.example.test/{kind}?state=s1",
            instructions=method.instructions if method else "",
        )

    def _submit_code(self, code: str) -> None:
        if self.started is None:
            raise NoLoginInProgressError("no login is waiting for a code; start one first")
        if code != self.GOOD_CODE:
            raise LoginFailedError("the code was refused")
        self.logged_in_by, self.started = self.started, None

    def complete_redirect(self) -> None:
        """What the local redirect would do: the login finishes without a code."""
        self.logged_in_by, self.started = self.started, None
        self.announce()

    def _logout(self) -> None:
        self.logged_in_by = None


def auth_provider(provider_id: str, *methods: AuthMethod, binary: str | None = None) -> type:
    """A FakeProvider class whose descriptor lists ``methods`` and whose flow is fake."""
    kinds = [m.kind for m in methods]

    class AuthFake(FakeProvider):
        meta = ProviderMeta(
            id=provider_id,
            display_name=f"Fake {'/'.join(kinds)}",
            binary=binary or sys.executable,
            clear_command="/quit",
        )

        def __init__(self) -> None:
            self.flow = FakeAuthFlow(provider_id, self.auth())

        def auth(self) -> AuthDescriptor:
            return AuthDescriptor(kind=methods[0].kind, methods=list(methods))

        def auth_status(self) -> AuthStatus:
            return self.flow.status()

        def auth_flow(self) -> AuthFlow:
            return self.flow

    return AuthFake
