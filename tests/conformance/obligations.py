"""The provider seam's obligations, as plain functions every provider must pass.

Each ``check_*(provider, kit)`` returns ``None`` or raises :class:`ConformanceFailure`,
whose message starts with ``[<obligation>] <provider id>:``. They are offline: a
provider's :class:`~tests.conformance.kits.ConformanceKit` supplies sample transcripts
recorded from its CLI and says how the CLI lays them out on disk.
"""

from __future__ import annotations

import re
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import get_args

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lab_widget import Seed
from lab_widget._workspace._scrub import scrub_text
from lab_widget._workspace._seed import prepare_workspace
from lab_widget.provider import (
    AgentProvider,
    Endpoint,
    ReadResult,
    RunContext,
    SpawnRequest,
    TranscriptReader,
    TranscriptRef,
)
from lab_widget.schema import AuthDescriptor, Message
from tests.unit.test_architecture import core_modules, user_facing_strings

from .kits import ConformanceKit, TranscriptMedium

__all__ = [
    "OBLIGATIONS",
    "ConformanceFailure",
    "check_auth",
    "check_clear_epoch",
    "check_command_echoes",
    "check_commands",
    "check_incremental_read",
    "check_neutral_copy",
    "check_seeding",
    "check_spawn_plan",
    "check_transcript_edges",
    "check_usage_summary",
]

SECRET = "sk-conformance-0123456789abcdefghij-secret"
"""The api key every spawn-plan check passes; it must never reach argv."""


class ConformanceFailure(AssertionError):  # noqa: N818 (a failed assertion, not an error)
    """A provider broke one obligation; ``obligation`` names it."""

    def __init__(self, obligation: str, provider: AgentProvider, detail: str) -> None:
        self.obligation = obligation
        self.provider_id = provider.meta.id
        super().__init__(f"[{obligation}] {provider.meta.id}: {detail}")


def _require(ok: object, obligation: str, provider: AgentProvider, detail: str) -> None:
    if not ok:
        raise ConformanceFailure(obligation, provider, detail)


@contextmanager
def _context(run_id: str = "conformance") -> Iterator[RunContext]:
    with tempfile.TemporaryDirectory(prefix="lab_widget-conformance-") as tmp:
        root = Path(tmp).resolve()
        cwd, runtime = root / "work", root / "runtime"
        cwd.mkdir()
        runtime.mkdir()
        yield RunContext(run_id=run_id, cwd=cwd, runtime_dir=runtime)


def _read_all(provider: AgentProvider, ref: TranscriptRef) -> TranscriptReader:
    reader = provider.open_reader(ref)
    reader.read()
    return reader


def _dump(messages: list[Message]) -> list[dict[str, object]]:
    return [m.model_dump(mode="json") for m in messages]


def _lines(data: bytes) -> list[bytes]:
    return data.splitlines(keepends=True)


# -- spawn ---------------------------------------------------------------------------------


def check_spawn_plan(provider: AgentProvider, kit: ConformanceKit) -> None:
    """argv non-empty with the binary first, cwd the run's, secret_env ⊆ env, and an
    endpoint's api key only under secret_env names, never in argv."""
    name = "spawn-plan"
    for endpoint in (None, Endpoint("http://127.0.0.1:9", SECRET)):
        with _context() as context:
            binary = context.runtime_dir.parent / "bin" / Path(provider.meta.binary).name
            plan = provider.plan_spawn(
                SpawnRequest(context=context, binary=binary, endpoint=endpoint)
            )
            argv = list(plan.argv)
            _require(argv, name, provider, "argv is empty")
            _require(
                all(isinstance(a, str) for a in argv), name, provider, "argv holds non-strings"
            )
            _require(
                argv[0] == str(binary),
                name,
                provider,
                f"argv[0] is {argv[0]!r}, not the requested binary {str(binary)!r}",
            )
            _require(
                Path(plan.cwd) == context.cwd,
                name,
                provider,
                f"cwd is {plan.cwd}, not the run's {context.cwd}",
            )
            extra = set(plan.secret_env) - set(plan.env)
            _require(not extra, name, provider, f"secret_env names not in env: {sorted(extra)}")
            if endpoint is None:
                continue
            leaked = [a for a in argv if SECRET in a]
            _require(not leaked, name, provider, "the endpoint's api_key appears in argv")
            exposed = sorted(
                k for k, v in plan.env.items() if SECRET in v and k not in plan.secret_env
            )
            _require(
                not exposed,
                name,
                provider,
                f"the endpoint's api_key is in env {exposed} not listed in secret_env",
            )


# -- transcripts ---------------------------------------------------------------------------


def check_transcript_edges(provider: AgentProvider, kit: ConformanceKit) -> None:
    """A missing or empty transcript reads as no messages; a transcript rewritten shorter
    reports ``reset=True`` and is rebuilt exactly."""
    name = "transcript-edges"
    medium = kit.medium
    with _context() as context:
        path = context.runtime_dir / "sample.jsonl"
        ref = medium.ref(path, kit.first_epoch, "missing")
        reader = provider.open_reader(ref)
        for label in ("missing", "empty"):
            try:
                result = reader.read()
            except Exception as exc:
                raise ConformanceFailure(
                    name, provider, f"{label} file: read raised {exc!r}"
                ) from exc
            _require(
                not result.changed and not reader.messages,
                name,
                provider,
                f"a {label} transcript produced messages",
            )
            _require(
                reader.state != "working",
                name,
                provider,
                f"a {label} transcript reads as working",
            )
            medium.write(ref, b"")
        medium.write(ref, kit.first_epoch)
        reader.read()
        lines = _lines(kit.first_epoch)
        shorter = b"".join(lines[: max(1, len(lines) // 2)])
        _require(len(shorter) < len(kit.first_epoch), name, provider, "kit sample too short")
        medium.write(ref, shorter)
        result = reader.read()
        _require(
            result.reset, name, provider, "a transcript rewritten shorter did not report reset"
        )
        expected = _read_all(provider, medium.ref(path, shorter, "sample"))
        _require(
            _dump(reader.messages) == _dump(expected.messages),
            name,
            provider,
            "after a rewrite the messages differ from a fresh read of the new content",
        )
        _require(
            _dump(result.changed) == _dump(expected.messages),
            name,
            provider,
            "a reset read must report every rebuilt message as changed",
        )


def check_usage_summary(provider: AgentProvider, kit: ConformanceKit) -> None:
    """The usage-only summary history takes (``usage_summary``) counts what a full read
    counts: the same totals and the same rows per model and scope, on every sample."""
    name = "usage-summary"
    with _context() as context:
        for index, (label, sample) in enumerate(sorted(kit.samples.items())):
            folder = context.runtime_dir / f"usage-{index}"
            folder.mkdir()
            ref = kit.medium.ref(folder / "sample.jsonl", sample, label)
            kit.medium.write(ref, sample)
            full = _read_all(provider, ref).summary
            fast = provider.usage_summary(ref)
            _require(
                fast.usage == full.usage and fast.models == full.models,
                name,
                provider,
                f"{label}: the usage-only summary counts {fast.usage} in {fast.models}, "
                f"the full read {full.usage} in {full.models}",
            )


def _fold(folded: dict[int, Message], result: ReadResult) -> None:
    if result.reset:
        folded.clear()
    for message in result.changed:
        folded[message.seq] = message


def check_incremental_read(
    provider: AgentProvider, kit: ConformanceKit, *, max_examples: int = 40
) -> None:
    """Reading a transcript in any number of appended chunks, split at any byte, gives
    the same messages, state, session summary and change stream as reading it in one go."""
    name = "incremental-read"
    medium = kit.medium
    samples = sorted(kit.samples.items())

    @settings(
        max_examples=max_examples,
        deadline=None,
        database=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(st.data())
    def run(data: st.DataObject) -> None:
        label, sample = data.draw(st.sampled_from(samples), label="sample")
        points = medium.cut_points(sample)
        cut_at = st.integers(0, len(sample)) if points is None else st.sampled_from(points)
        cuts = data.draw(st.lists(cut_at, max_size=12, unique=True).map(sorted), label="cuts")
        with _context() as context:
            path = context.runtime_dir / "sample.jsonl"
            whole_ref = medium.ref(path.with_name("whole.jsonl.src"), sample, "sample")
            medium.write(whole_ref, sample)
            whole = _read_all(provider, whole_ref)
            ref = medium.ref(path, sample, "sample")
            reader = provider.open_reader(ref)
            folded: dict[int, Message] = {}
            start = 0
            medium.write(ref, b"")
            for cut in [*cuts, len(sample)]:
                medium.append(ref, sample[start:cut])
                start = cut
                _fold(folded, reader.read())
            got = _dump(reader.messages)
            _require(
                got == _dump(whole.messages),
                name,
                provider,
                f"{label} split at {cuts}: messages differ from a one-shot read",
            )
            _require(
                reader.state == whole.state,
                name,
                provider,
                f"{label} split at {cuts}: state {reader.state!r}, one-shot {whole.state!r}",
            )
            _require(
                reader.summary == whole.summary,
                name,
                provider,
                f"{label} split at {cuts}: the session summary differs from a one-shot read",
            )
            _require(
                _dump([folded[k] for k in sorted(folded)]) == got,
                name,
                provider,
                f"{label} split at {cuts}: the changed messages do not add up to the messages",
            )

    run()


def _echoes_read_line_by_line(
    provider: AgentProvider,
    reader: TranscriptReader,
    medium: TranscriptMedium,
    sample: bytes,
    label: str,
) -> int:
    """Feed ``sample`` into the reader's transcript one line at a time (after a first read
    of nothing), checking each read; returns how many command echoes the reads reported."""
    name = "command-echoes"
    medium.write(reader.ref, b"")
    echoes = 0
    for line in [b"", *_lines(sample)]:
        before = reader.state
        medium.append(reader.ref, line)
        changed = reader.read().changed
        commands = [m for m in changed if m.command]
        echoes += len(commands)
        for m in commands:
            _require(
                m.role == "user" and m.kind == "text",
                name,
                provider,
                f"the echo of {m.command} is not a visible user text message",
            )
        only_echoes = commands and all(m.command or m.kind == "lifecycle" for m in changed)
        if only_echoes and before != "working":
            _require(
                reader.state != "working",
                name,
                provider,
                f"{label}: the echo of {commands[0].command} drove the state to working",
            )
    _require(echoes, name, provider, f"{label} holds no command echo")
    return echoes


def check_command_echoes(provider: AgentProvider, kit: ConformanceKit) -> None:
    """A command echo is a visible user message and never drives the state to
    ``working``: read line by line, a read that brings only echoes (and lifecycle notes)
    leaves a non-working state non-working.

    ``echo_samples`` are read as they are; ``echo_epochs`` (a CLI that records no echo,
    whose adapter opens the clear command's epoch with one) are laid out after a first
    epoch and read through ``locate_transcript`` and ``open_reader``."""
    name = "command-echoes"
    _require(
        kit.echo_samples or kit.echo_epochs,
        name,
        provider,
        "the kit has no echo_samples or echo_epochs",
    )
    for index, sample in enumerate(kit.echo_samples):
        with _context() as context:
            path = context.runtime_dir / "echo.jsonl"
            reader = provider.open_reader(kit.medium.ref(path, sample, "echo"))
            _echoes_read_line_by_line(provider, reader, kit.medium, sample, f"echo sample {index}")
    for index, sample in enumerate(kit.echo_epochs):
        with _context() as context:
            provider.plan_spawn(
                SpawnRequest(
                    context=context,
                    binary=Path(provider.meta.binary),
                    endpoint=Endpoint("http://127.0.0.1:9", SECRET),
                )
            )
            kit.start_epoch(provider, context, kit.first_epoch)
            first = provider.locate_transcript(context, None)
            kit.clear_epoch(provider, context, sample)
            ref = provider.locate_transcript(context, first)
            _require(
                ref is not None and (first is None or ref.transcript_id != first.transcript_id),
                name,
                provider,
                f"echo epoch {index}: no new epoch located after the clear",
            )
            assert ref is not None
            # Replay what the clear laid out, as the CLI appends it.
            laid_out = kit.medium.read(ref)
            reader = provider.open_reader(ref)
            _echoes_read_line_by_line(provider, reader, kit.medium, laid_out, f"echo epoch {index}")


def check_clear_epoch(provider: AgentProvider, kit: ConformanceKit) -> None:
    """The clear command is offered (``role="clear"``, chat-safe) and clearing starts a
    new epoch: ``locate_transcript`` returns a new transcript id whose transcript opens
    with the visible echo of the clear command."""
    name = "clear-epoch"
    clear = provider.meta.clear_command
    with _context() as context:
        specs = {c.name: c for c in provider.commands(context.cwd)}
        spec = specs.get(clear)
        _require(spec, name, provider, f"meta.clear_command {clear!r} is not in commands()")
        assert spec is not None
        _require(spec.role == "clear", name, provider, f"{clear} lacks role='clear'")
        _require(spec.chat_safe, name, provider, f"{clear} is not chat-safe")
        provider.plan_spawn(
            SpawnRequest(
                context=context,
                binary=Path(provider.meta.binary),
                endpoint=Endpoint("http://127.0.0.1:9", SECRET),
            )
        )
        kit.start_epoch(provider, context, kit.first_epoch)
        first = provider.locate_transcript(context, None)
        _require(first, name, provider, "no transcript located after the first epoch started")
        assert first is not None
        _require(
            provider.locate_transcript(context, first) == first,
            name,
            provider,
            "locating again without a clear changed the epoch",
        )
        reader = provider.open_reader(first)
        reader.read()
        _require(reader.messages, name, provider, "the first epoch read as empty")
        kit.clear_epoch(provider, context, kit.second_epoch)
        second = provider.locate_transcript(context, first)
        _require(
            second is not None and second.transcript_id != first.transcript_id,
            name,
            provider,
            f"after {clear} the transcript id did not change",
        )
        assert second is not None
        after = provider.open_reader(second)
        changed = after.read().changed
        _require(
            _dump(changed) == _dump(after.messages),
            name,
            provider,
            "the first read of the new epoch does not report every message as changed",
        )
        echoes = [m.command for m in after.messages if m.command]
        _require(
            echoes[:1] == [clear],
            name,
            provider,
            f"the new epoch does not open with the echo of {clear} (echoes: {echoes})",
        )


# -- catalog, auth, seeding, copy ----------------------------------------------------------

_COMMAND_NAME = re.compile(r"^/[^\s/][^\s]*$")


def check_commands(provider: AgentProvider, kit: ConformanceKit) -> None:
    """Names start with ``/`` and are unique, descriptions are present, exactly one
    command has ``role="clear"``, and none of the provider's curated-out builtins is
    offered as chat-safe."""
    name = "commands"
    with _context() as context:
        specs = provider.commands(context.cwd)
    _require(specs, name, provider, "commands() is empty")
    names = [c.name for c in specs]
    bad = [n for n in names if not _COMMAND_NAME.match(n)]
    _require(not bad, name, provider, f"names not of the form '/name': {bad}")
    duplicates = sorted({n for n in names if names.count(n) > 1})
    _require(not duplicates, name, provider, f"duplicate names: {duplicates}")
    blank = [c.name for c in specs if not c.description.strip()]
    _require(not blank, name, provider, f"commands without a description: {blank}")
    clears = [c.name for c in specs if c.role == "clear"]
    _require(
        clears == [provider.meta.clear_command],
        name,
        provider,
        f"role='clear' is on {clears}, expected only {provider.meta.clear_command!r}",
    )
    offered = sorted(c.name for c in specs if c.chat_safe and c.name in kit.curated_out)
    _require(not offered, name, provider, f"curated-out builtins offered as chat-safe: {offered}")


_ENV_NAME = re.compile(r"^[A-Z_][A-Z0-9_]*$")


def check_auth(provider: AgentProvider, kit: ConformanceKit) -> None:
    """The auth descriptor validates against the schema, its kind is one of the schema's
    kinds, and its fields fit the kind (an api-key login names its variables; every
    other kind tells the user what to do)."""
    name = "auth"
    descriptor = provider.auth()
    kinds = get_args(AuthDescriptor.model_fields["kind"].annotation)
    _require(descriptor.kind in kinds, name, provider, f"kind {descriptor.kind!r} not in {kinds}")
    try:
        AuthDescriptor.model_validate(descriptor.model_dump())
    except ValueError as exc:
        raise ConformanceFailure(name, provider, f"descriptor does not validate: {exc}") from exc
    bad = [v for v in descriptor.env_vars if not _ENV_NAME.match(v)]
    _require(not bad, name, provider, f"not environment variable names: {bad}")
    _require(
        len(set(descriptor.env_vars)) == len(descriptor.env_vars),
        name,
        provider,
        "env_vars repeats a name",
    )
    if descriptor.kind == "api-key":
        _require(descriptor.env_vars, name, provider, "kind 'api-key' names no env_vars")
    else:
        _require(
            descriptor.instructions.strip(),
            name,
            provider,
            f"kind {descriptor.kind!r} gives the user no instructions",
        )


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=Conformance", "-c", "user.email=c@example.com", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
    ).stdout


NEUTRAL_MESSAGE = "Fix the parser\n\nIt reads lines.\n\nCo-Authored-By: Ada <ada@example.com>\n"


def check_seeding(provider: AgentProvider, kit: ConformanceKit) -> None:
    """Seeding a real git repository (in place and in a worktree) writes the context
    file and skills where the metadata says and leaves ``git status --porcelain`` empty;
    scrub patterns remove their samples and leave other text alone."""
    name = "seeding"
    meta = provider.seed_meta()
    skills = {"conformance-skill": "---\nname: conformance-skill\n---\nSay hi.\n"}
    seed = Seed(context="Seeded context.\n", skills=skills if meta.skills_dir else {})
    with tempfile.TemporaryDirectory(prefix="lab_widget-conformance-") as tmp:
        repo = Path(tmp).resolve() / "repo"
        repo.mkdir()
        _git(repo, "init", "-q")
        (repo / "README.md").write_text("hello\n")
        _git(repo, "add", "-A")
        _git(repo, "commit", "-qm", "start")
        for worktree in (False, True):
            space = prepare_workspace(
                repo, "conformance", meta, seed, worktree=worktree, worktrees_home=repo.parent
            )
            where = "a worktree" if worktree else "the checkout"
            _require(
                (space.cwd / meta.context_file).read_text() == seed.context,
                name,
                provider,
                f"the context file is not at {meta.context_file} in {where}",
            )
            for skill in seed.skills:
                _require(
                    (space.cwd / meta.skill_path(skill)).is_file(),
                    name,
                    provider,
                    f"the skill is not at {meta.skill_path(skill)} in {where}",
                )
            status = _git(space.cwd, "status", "--porcelain")
            _require(
                status == "",
                name,
                provider,
                f"git status is not empty after seeding {where} (exclude {meta.exclude}): "
                f"{status.strip()}",
            )
    for pattern in meta.scrub_patterns:
        for sample in pattern.samples:
            message = f"Fix the parser\n\n{sample}\n"
            _require(
                scrub_text(message, meta.scrub_patterns) == "Fix the parser\n",
                name,
                provider,
                f"scrubbing leaves {sample!r} behind",
            )
    _require(
        scrub_text(NEUTRAL_MESSAGE, meta.scrub_patterns) == NEUTRAL_MESSAGE,
        name,
        provider,
        "scrub patterns remove text that is not the agent's attribution",
    )


DATA_MODULES = frozenset({"compat.py", "_registry.py", "_wire_errors.py"})
"""Core modules that name providers as data (pins, import paths, the error types each
API sends), never as copy."""


def check_neutral_copy(provider: AgentProvider, kit: ConformanceKit) -> None:
    """User-facing copy is provider-neutral: the provider has a display name, and no core
    module's user-facing string names it (by display name, id or binary); core copy
    takes provider names from ``meta``."""
    name = "neutral-copy"
    meta = provider.meta
    _require(meta.display_name.strip(), name, provider, "meta.display_name is empty")
    _require(meta.clear_command.startswith("/"), name, provider, "meta.clear_command lacks '/'")
    words = {meta.display_name, meta.id, Path(meta.binary).name}
    pattern = re.compile(
        "|".join(rf"(?<![\w-]){re.escape(w)}(?![\w-])" for w in sorted(words) if w),
        re.IGNORECASE,
    )
    offenders = [
        f"{path.name}:{line}: {text!r}"
        for path in core_modules()
        if path.name not in DATA_MODULES
        for line, text in user_facing_strings(path)
        if pattern.search(text)
    ]
    _require(not offenders, name, provider, f"core copy names the provider: {offenders[:5]}")


Obligation = Callable[[AgentProvider, ConformanceKit], None]

OBLIGATIONS: dict[str, Obligation] = {
    "spawn-plan": check_spawn_plan,
    "transcript-edges": check_transcript_edges,
    "incremental-read": check_incremental_read,
    "usage-summary": check_usage_summary,
    "command-echoes": check_command_echoes,
    "clear-epoch": check_clear_epoch,
    "commands": check_commands,
    "auth": check_auth,
    "seeding": check_seeding,
    "neutral-copy": check_neutral_copy,
}
"""Every obligation by name: the suite runs each against every registered provider."""
