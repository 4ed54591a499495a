"""Deliberately broken adapters, private to the suite's own tests: each one breaks one
obligation of the fake provider, so the suite can show that obligation catches it."""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path

from lab_widget.provider import (
    ProviderMeta,
    ReadResult,
    RunContext,
    SpawnPlan,
    SpawnRequest,
    TranscriptReader,
    TranscriptRef,
)
from lab_widget.schema import (
    AuthDescriptor,
    CommandSpec,
    Message,
    ScrubPattern,
    SeedMeta,
    SessionSummary,
    Usage,
)
from tests.support.fake_provider import FakeProvider, FakeReader

__all__ = ["BROKEN"]


def _meta(suffix: str, **changes: str) -> ProviderMeta:
    return dataclasses.replace(FakeProvider.meta, id=f"broken-{suffix}", **changes)


class KeyInArgv(FakeProvider):
    """Passes the endpoint's api key on the command line."""

    meta = _meta("key-in-argv")

    def plan_spawn(self, request: SpawnRequest) -> SpawnPlan:
        plan = super().plan_spawn(request)
        key = request.endpoint.api_key if request.endpoint else ""
        return dataclasses.replace(plan, argv=[*plan.argv, f"--api-key={key}"])


class WrongBinary(FakeProvider):
    """Starts another program than the binary it was given."""

    meta = _meta("wrong-binary")

    def plan_spawn(self, request: SpawnRequest) -> SpawnPlan:
        plan = super().plan_spawn(request)
        return dataclasses.replace(plan, argv=[sys.executable, *plan.argv])


class CrashingReader(FakeReader):
    def read(self) -> ReadResult:
        if not self.ref.path.exists():
            raise FileNotFoundError(self.ref.path)
        return super().read()


class CrashOnMissing(FakeProvider):
    """Its reader raises before the transcript exists."""

    meta = _meta("crash-on-missing")

    def open_reader(self, ref: TranscriptRef) -> TranscriptReader:
        return CrashingReader(ref)


class ForgetfulReader(FakeReader):
    def read(self) -> ReadResult:
        result = super().read()
        return ReadResult(changed=result.changed)  # drops the reset flag


class NoReset(FakeProvider):
    """Rebuilds after a rewrite but never says so."""

    meta = _meta("no-reset")

    def open_reader(self, ref: TranscriptRef) -> TranscriptReader:
        return ForgetfulReader(ref)


class ChunkReader(FakeReader):
    """Parses each appended chunk as if it ended on a line boundary."""

    def __init__(self, ref: TranscriptRef) -> None:
        super().__init__(ref)
        self._offset = 0

    def read(self) -> ReadResult:
        try:
            whole = self.ref.path.read_bytes()
        except FileNotFoundError:
            return ReadResult(changed=[])
        reset = len(whole) < self._offset
        if reset:
            self._offset, self._messages = 0, []
        data = whole[self._offset :]
        self._offset += len(data)
        changed = []
        for raw in data.splitlines():
            try:
                entry = json.loads(raw)
                if not isinstance(entry, dict):
                    raise ValueError(raw)
                fields = {"kind": "text", "role": entry.get("type", "user")}
                fields["text"] = str(entry.get("text", ""))
                if fields["text"].startswith("/"):
                    fields["command"] = fields["text"]
            except ValueError:
                fields = {"kind": "lifecycle", "role": "system", "text": "corrupt"}
            if fields["role"] not in ("user", "assistant"):
                fields = {"kind": "lifecycle", "role": "system", "text": "Interrupted"}
            message = Message(seq=len(self._messages), **fields)
            self._messages.append(message)
            changed.append(message)
        return ReadResult(changed=list(self._messages) if reset else changed, reset=reset)


class SplitsLines(FakeProvider):
    """Reads partial lines as whole ones."""

    meta = _meta("splits-lines")

    def open_reader(self, ref: TranscriptRef) -> TranscriptReader:
        return ChunkReader(ref)


class BusyEchoReader(FakeReader):
    def _on_echo(self) -> None:
        self._state = "working"


class EchoMeansWork(FakeProvider):
    """Treats a command echo as a prompt that starts work."""

    meta = _meta("echo-means-work")

    def open_reader(self, ref: TranscriptRef) -> TranscriptReader:
        return BusyEchoReader(ref)


class NoEpochs(FakeProvider):
    """Never follows a clear: one transcript id for ever."""

    meta = _meta("no-epochs")

    def locate_transcript(
        self, context: RunContext, current: TranscriptRef | None
    ) -> TranscriptRef | None:
        path = context.runtime_dir / "transcript.jsonl"
        return current or TranscriptRef(transcript_id="fake", path=path)


class OffersCuratedOut(FakeProvider):
    """Offers /quit, which ends the run, as chat-safe."""

    meta = _meta("offers-curated-out")

    def commands(self, cwd: Path) -> list[CommandSpec]:
        return [
            CommandSpec(name="/clear", description="Start a new conversation", role="clear"),
            CommandSpec(name="/quit", description="Quit the agent"),
        ]


class DuplicateCommands(FakeProvider):
    """Lists a command twice, once without a description."""

    meta = _meta("duplicate-commands")

    def commands(self, cwd: Path) -> list[CommandSpec]:
        return [*super().commands(cwd), CommandSpec(name="/quit", chat_safe=False)]


class KeylessApiKey(FakeProvider):
    """Says it logs in with an api key but names no variable for it."""

    meta = _meta("keyless-api-key")

    def auth(self) -> AuthDescriptor:
        return AuthDescriptor(kind="api-key")


class UnexcludedSeed(FakeProvider):
    """Seeds a context file it does not exclude from git."""

    meta = _meta("unexcluded-seed")

    def seed_meta(self) -> SeedMeta:
        return SeedMeta(context_file="FAKE.md", skills_dir=".fake/skills", exclude=["/.fake/"])


class GreedyScrub(FakeProvider):
    """Scrubs every co-author, not only its own attribution."""

    meta = _meta("greedy-scrub")

    def seed_meta(self) -> SeedMeta:
        greedy = ScrubPattern(pattern="Co-Authored-By", samples=["Co-Authored-By: Fake Agent"])
        return super().seed_meta().model_copy(update={"scrub_patterns": [greedy]})


class NamedInCore(FakeProvider):
    """A display name that core copy uses as a word of its own."""

    meta = _meta("named-in-core", display_name="tmux")


class CountsUnread(FakeProvider):
    """A usage-only summary that counts a token the transcript never had."""

    meta = _meta("counts-unread")

    def usage_summary(self, ref: TranscriptRef) -> SessionSummary:
        summary = super().usage_summary(ref)
        return summary.model_copy(update={"usage": summary.usage + Usage(output_tokens=1)})


BROKEN: dict[str, list[type[FakeProvider]]] = {
    "spawn-plan": [KeyInArgv, WrongBinary],
    "transcript-edges": [CrashOnMissing, NoReset],
    "incremental-read": [SplitsLines],
    "usage-summary": [CountsUnread],
    "command-echoes": [EchoMeansWork],
    "clear-epoch": [NoEpochs],
    "commands": [OffersCuratedOut, DuplicateCommands],
    "auth": [KeylessApiKey],
    "seeding": [UnexcludedSeed, GreedyScrub],
    "neutral-copy": [NamedInCore],
}
"""For each obligation, adapters that break it."""
