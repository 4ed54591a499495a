"""A provider for unit tests of the layers above the seam: a real process under real tmux
(``fake_agent.py``) with a trivial JSONL transcript.

It honours the whole seam contract (tests/conformance runs it like every provider): epochs
(``/clear`` starts ``transcript.<n>.jsonl``), command echoes that never mean work, resets
on a rewritten transcript, declared seeding and attribution patterns."""

from __future__ import annotations

import re
import time
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
    StartupBlocker,
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
    ScrubPattern,
    SeedMeta,
    SessionSummary,
    State,
)

AGENT = Path(__file__).with_name("fake_agent.py")
_EPOCH = re.compile(r"transcript\.(\d+)\.jsonl")


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
                text = item.value["text"]
                fields = {"kind": "text", "role": role, "text": text}
                if role == "user" and text.startswith("/"):
                    fields["command"] = text.split()[0]
                    self._on_echo()
                else:
                    self._state = "working" if role == "user" else "idle"
            message = Message(seq=len(self._messages), **fields)
            self._messages.append(message)
            changed.append(message)
        if reset:
            changed = list(self._messages)
        return ReadResult(changed=changed, reset=reset)

    def _on_echo(self) -> None:
        """A command echo: no work starts, the state stays."""

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
        id="fake", display_name="Fake Agent", binary=str(AGENT), clear_command="/clear"
    )

    def plan_spawn(self, request: SpawnRequest) -> SpawnPlan:
        path = request.context.runtime_dir / "transcript.jsonl"
        settle = request.options.get("ready_settle")
        if isinstance(settle, int | float):
            # Ready only that long after the agent says so, like a TUI whose ready signal
            # comes a moment before its prompt takes input.
            request.context.runtime_dir.mkdir(parents=True, exist_ok=True)
            (request.context.runtime_dir / "ready_settle").write_text(str(settle))
        env: dict[str, str] = {}
        if request.endpoint is not None:
            env = {"FAKE_BASE_URL": request.endpoint.base_url}
            env["FAKE_API_KEY"] = request.endpoint.api_key
        return SpawnPlan(
            argv=[
                str(request.binary),
                str(path),
                *(["--ask"] if request.options.get("ask") else []),
            ],
            env=env,
            cwd=request.context.cwd,
            secret_env=frozenset({"FAKE_API_KEY"} & env.keys()),
        )

    def locate_transcript(
        self, context: RunContext, current: TranscriptRef | None
    ) -> TranscriptRef | None:
        epoch, path = 0, context.runtime_dir / "transcript.jsonl"
        for candidate in context.runtime_dir.glob("transcript.*.jsonl"):
            match = _EPOCH.fullmatch(candidate.name)
            if match and int(match[1]) > epoch:
                epoch, path = int(match[1]), candidate
        transcript_id = f"fake-{epoch}" if epoch else "fake"
        if current is not None and current.transcript_id == transcript_id:
            return current
        return TranscriptRef(transcript_id=transcript_id, path=path, watch=(path.parent,))

    def open_reader(self, ref: TranscriptRef) -> TranscriptReader:
        return FakeReader(ref)

    def is_ready(self, context: RunContext) -> bool:
        ready = context.runtime_dir / "transcript.jsonl.ready"
        settle = context.runtime_dir / "ready_settle"
        try:
            age = time.time() - ready.stat().st_mtime
        except OSError:
            return False
        return not settle.exists() or age >= float(settle.read_text())

    def startup_blocker(self, request: SpawnRequest) -> StartupBlocker | None:
        # Run("fake", ask=True): a start-up screen only a key in the TUI answers.
        if not request.options.get("ask"):
            return None
        return StartupBlocker(
            reason="Fake Agent asks whether you trust this folder before it starts.",
            accept_hint="Trust it",
            steps=("trust",),
        )

    def accept_startup(self, terminal: Terminal, blocker: StartupBlocker) -> None:
        terminal.keys("y")

    def reply(self, terminal: Terminal, text: str) -> None:
        terminal.paste(text)
        terminal.keys("Enter")

    def interrupt(self, terminal: Terminal) -> None:
        terminal.keys("Escape")

    def commands(self, cwd: Path) -> list[CommandSpec]:
        return [
            CommandSpec(name="/clear", description="Start a new conversation", role="clear"),
            CommandSpec(name="/quit", description="Quit the agent", chat_safe=False),
        ]

    def auth(self) -> AuthDescriptor:
        return AuthDescriptor(kind="external", instructions="Nothing to log in to.")

    def auth_status(self) -> AuthStatus:
        return AuthStatus(logged_in=True)

    def seed_meta(self) -> SeedMeta:
        return SeedMeta(
            context_file="FAKE.md",
            skills_dir=".fake/skills",
            exclude=["/FAKE.md", "/.fake/"],
            scrub_patterns=[ATTRIBUTION],
        )


CURATED_OUT = frozenset({"/quit"})
"""Commands the chat must not offer: /quit ends the run."""

ATTRIBUTION = ScrubPattern(
    pattern=r"^Co-Authored-By: Fake Agent\b", samples=["Co-Authored-By: Fake Agent <fake@x>"]
)


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
            binary=binary or str(AGENT),
            clear_command="/clear",
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
