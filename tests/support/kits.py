"""Conformance kits: what each provider hands the suite so its obligations run offline.

A kit holds sample transcripts recorded from the provider's pinned CLI (its fixtures in
``tests/fixtures/<provider id>/``), the builtins it curates out of the chat, and two small
functions that lay an epoch out on disk the way the CLI does when it starts and when its
clear command runs. Add one to :data:`KITS` under the provider's id; a registered
provider without a kit fails the suite (see docs/conformance.md).
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
import uuid
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from lab_widget.provider import AgentProvider, RunContext, TranscriptRef
from lab_widget.provider.claude_code import _commands as claude_commands
from lab_widget.provider.claude_code._transcript import project_dir
from lab_widget.provider.codex import _commands as codex_commands
from lab_widget.provider.codex import _compat as codex_compat
from lab_widget.provider.copilot import _commands as copilot_commands
from lab_widget.provider.copilot import _compat as copilot_compat
from lab_widget.provider.gemini import _commands as gemini_commands
from lab_widget.provider.kilo import _commands as kilo_commands
from lab_widget.provider.mistral_vibe import _commands as vibe_commands
from lab_widget.provider.mistral_vibe import _compat as vibe_compat
from lab_widget.provider.opencode import _commands as opencode_commands
from lab_widget.provider.qwen_code import _commands as qwen_code_commands
from tests.support.fake_provider import CURATED_OUT
from tests.support.paths import FIXTURES

__all__ = [
    "KITS",
    "ConformanceKit",
    "EpochWriter",
    "FileMedium",
    "TranscriptMedium",
    "kit_for",
    "require_kit",
]

EpochWriter = Callable[[AgentProvider, RunContext, bytes], None]
"""Puts one epoch's transcript bytes where the CLI would, after ``plan_spawn`` ran for
``context``, including any signal the CLI gives (a hook record naming the new file)."""


class TranscriptMedium:
    """How the obligations lay a transcript's bytes out where a reader reads them.

    The default is a file holding exactly those bytes, appended at any byte (what a CLI
    writing JSONL does). A provider whose CLI keeps its transcript elsewhere (rows of a
    database) gives a medium that stores the same recorded sample there, appended only at
    the boundaries where the CLI's writes land whole (committed rows).
    """

    def ref(self, path: Path, sample: bytes, label: str) -> TranscriptRef:
        """The transcript at ``path`` that will hold ``sample`` (or a part of it)."""
        return TranscriptRef(transcript_id=label, path=path)

    def cut_points(self, sample: bytes) -> list[int] | None:
        """Offsets at which an append may end; ``None``: at any byte."""
        return None

    def write(self, ref: TranscriptRef, data: bytes) -> None:
        """Make the transcript hold exactly ``data`` (a rewrite)."""
        ref.path.write_bytes(data)

    def append(self, ref: TranscriptRef, data: bytes) -> None:
        """Append ``data`` to the transcript."""
        with ref.path.open("ab") as f:
            f.write(data)

    def read(self, ref: TranscriptRef) -> bytes:
        """The transcript's content, as the sample format holds it."""
        return ref.path.read_bytes()


class FileMedium(TranscriptMedium):
    """A transcript file (JSONL) appended byte by byte."""


FILE = FileMedium()


@dataclass(frozen=True)
class ConformanceKit:
    """Offline material for one provider's obligations."""

    samples: Mapping[str, bytes]
    """Whole recorded transcripts by name: the incremental-read obligation splits these."""
    first_epoch: bytes
    """A conversation before a clear (at least two lines)."""
    second_epoch: bytes
    """The epoch the clear command starts, as recorded: it opens with the command's echo,
    unless the CLI records none and the adapter supplies it (see ``echo_epochs``)."""
    echo_samples: Sequence[bytes]
    """Transcripts in which a command echo follows a finished turn or opens an epoch."""
    curated_out: frozenset[str]
    """Builtins the chat must never offer as chat-safe (they strand the TUI in a picker,
    end the run, or act on the terminal only). Declared by the provider's compat module."""
    start_epoch: EpochWriter
    clear_epoch: EpochWriter
    echo_epochs: Sequence[bytes] = ()
    """Epochs the clear command starts, for a CLI that records no echo in its transcript
    (the adapter opens such an epoch's reader with the echo): laid out with
    ``start_epoch``/``clear_epoch`` and read through ``locate_transcript``."""
    medium: TranscriptMedium = FILE
    """Where samples are laid out for the reader obligations (a file by default)."""


def _fixture(provider_id: str, name: str) -> bytes:
    return (FIXTURES / provider_id / name).read_bytes()


# -- Claude Code -----------------------------------------------------------------------------


def _claude_kit() -> ConformanceKit:
    def runtime_state(context: RunContext) -> tuple[str, Path]:
        state = json.loads((context.runtime_dir / "claude-code.json").read_text())
        return str(state["session_id"]), Path(state["config_dir"])

    def spool(context: RunContext, record: dict[str, object]) -> None:
        # What the SessionStart hook plan_spawn installs writes: one JSON file per event,
        # named so files sort by time.
        folder = context.runtime_dir / "signals"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{time.time_ns()}-1.json").write_text(json.dumps(record))

    def write(context: RunContext, session_id: str, data: bytes, source: str) -> None:
        _, config_dir = runtime_state(context)
        path = project_dir(config_dir, str(context.cwd)) / f"{session_id}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        spool(
            context,
            {
                "hook_event_name": "SessionStart",
                "source": source,
                "session_id": session_id,
                "transcript_path": str(path),
                "cwd": str(context.cwd),
            },
        )

    def start(provider: AgentProvider, context: RunContext, data: bytes) -> None:
        session_id, _ = runtime_state(context)  # the --session-id plan_spawn passed
        write(context, session_id, data, "startup")

    def clear(provider: AgentProvider, context: RunContext, data: bytes) -> None:
        write(context, str(uuid.uuid4()), data, "clear")  # /clear starts a new session file

    hello = _fixture("claude-code", "hello.jsonl")
    clear_after = _fixture("claude-code", "clear_after.jsonl")
    echo = next(line for line in clear_after.splitlines(keepends=True) if b"<command-name>" in line)
    return ConformanceKit(
        samples={
            name: _fixture("claude-code", name)
            for name in ("hello.jsonl", "tools.jsonl", "clear_after.jsonl", "interrupt.jsonl")
        },
        first_epoch=_fixture("claude-code", "clear_before.jsonl"),
        second_epoch=clear_after,
        echo_samples=[clear_after, hello + echo],
        curated_out=frozenset(claude_commands.CURATED_OUT),
        start_epoch=start,
        clear_epoch=clear,
    )


# -- Codex CLI ------------------------------------------------------------------------------

_CODEX_CWD = b"/fixture/work"
_CODEX_HOME = b"/fixture/home/.codex"
"""The placeholders scripts/record_codex_fixtures.py writes for the run's folder and home."""


def _codex_kit() -> ConformanceKit:
    # The SessionStart records Codex's hook gave for each recorded thread, by thread id.
    starts: dict[str, bytes] = {}
    for hooks in sorted((FIXTURES / "codex").glob("*.hooks.jsonl")):
        for line in hooks.read_bytes().splitlines():
            record = json.loads(line)
            if record.get("hook_event_name") == "SessionStart":
                starts.setdefault(str(record["session_id"]), line)

    def localised(context: RunContext, data: bytes) -> bytes:
        state = json.loads((context.runtime_dir / "codex.json").read_text())
        home = str(state["codex_home"]).encode()
        return data.replace(_CODEX_HOME, home).replace(_CODEX_CWD, str(context.cwd).encode())

    def write(context: RunContext, data: bytes) -> None:
        # What Codex leaves on disk for one thread: the TUI's thread marker (at once), then
        # with the first message the rollout under sessions/YYYY/MM/DD/, whose session_meta
        # names the run's folder, and the SessionStart hook record naming that rollout.
        data = localised(context, data)
        meta = json.loads(data.splitlines()[0])["payload"]
        record = json.loads(localised(context, starts[meta["id"]]))
        rollout = Path(record["transcript_path"])
        state = json.loads((context.runtime_dir / "codex.json").read_text())
        markers = Path(state["codex_home"]) / codex_compat.THREAD_MARKERS
        markers.mkdir(parents=True, exist_ok=True)
        marker = markers / str(meta["id"])
        marker.touch()
        # Threads started later have later markers, whatever the file system's resolution.
        stamp = time.time() + len(list(markers.iterdir()))
        os.utime(marker, (stamp, stamp))
        rollout.parent.mkdir(parents=True, exist_ok=True)
        rollout.write_bytes(data)
        folder = context.runtime_dir / "signals"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{time.time_ns()}-1.json").write_text(json.dumps(record))

    def start(provider: AgentProvider, context: RunContext, data: bytes) -> None:
        write(context, data)

    def clear(provider: AgentProvider, context: RunContext, data: bytes) -> None:
        write(context, data)  # /new starts a new thread, with its own marker and rollout

    names = ("hello.jsonl", "tools.jsonl", "interrupt.jsonl", "approve.jsonl", "reject.jsonl")
    second = _fixture("codex", "new_1.jsonl")
    return ConformanceKit(
        samples={name: _fixture("codex", name) for name in (*names, "new_0.jsonl")},
        first_epoch=_fixture("codex", "new_0.jsonl"),
        second_epoch=second,
        # Codex records no command in its rollout: the only echo is the one the adapter
        # opens a /new epoch with.
        echo_samples=[],
        echo_epochs=[second],
        curated_out=frozenset(codex_commands.CURATED_OUT),
        start_epoch=start,
        clear_epoch=clear,
    )


# -- OpenCode ----------------------------------------------------------------------------

_OPENCODE_CWD = "/fixture/work"
"""The placeholder scripts/record_opencode_fixtures.py writes for the run's folder."""


def _event_rows(data: bytes) -> list[dict[str, object]]:
    return [json.loads(line) for line in data.splitlines() if line.strip()]


def _session_of(data: bytes) -> str | None:
    for row in _event_rows(data):
        session = json.loads(str(row["data"])).get("sessionID")
        if isinstance(session, str):
            return session
    return None


class OpenCodeStore(TranscriptMedium):
    """OpenCode's SQLite store, with the ``session`` and ``event`` tables as the pinned CLI
    creates them (``tests/fixtures/opencode/schema.sql``, recorded from it; a fork's
    ``tests/fixtures/<id>/schema.sql`` for a CLI of OpenCode's family).

    A sample is the JSON lines the recorder exported, one ``event`` row each; the CLI
    commits each row whole, so appends end at line boundaries. The transcript is the rows
    of one session (``transcript_id``), in a database that may hold others.
    """

    def __init__(self, fixtures: str = "opencode") -> None:
        self.schema = FIXTURES / fixtures / "schema.sql"

    def ref(self, path: Path, sample: bytes, label: str) -> TranscriptRef:
        return TranscriptRef(transcript_id=_session_of(sample) or label, path=path)

    def cut_points(self, sample: bytes) -> list[int] | None:
        ends = [0]
        for line in sample.splitlines(keepends=True):
            ends.append(ends[-1] + len(line))
        return ends

    def _connect(self, path: Path) -> sqlite3.Connection:
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(path)
        conn.execute("PRAGMA journal_mode=WAL")  # as the CLI keeps it
        exists = conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'event'"
        ).fetchone()
        if not exists:
            conn.executescript(self.schema.read_text())
        return conn

    def _insert(self, conn: sqlite3.Connection, session: str, data: bytes) -> None:
        for row in _event_rows(data):
            conn.execute(
                "INSERT INTO event (id, aggregate_id, seq, type, data) VALUES (?, ?, ?, ?, ?)",
                (row["id"], session, row["seq"], row["type"], row["data"]),
            )

    def write(self, ref: TranscriptRef, data: bytes) -> None:
        with self._connect(ref.path) as conn:
            conn.execute("DELETE FROM event WHERE aggregate_id = ?", (ref.transcript_id,))
            self._insert(conn, ref.transcript_id, data)
        conn.close()

    def append(self, ref: TranscriptRef, data: bytes) -> None:
        with self._connect(ref.path) as conn:
            self._insert(conn, ref.transcript_id, data)
        conn.close()

    def read(self, ref: TranscriptRef) -> bytes:
        conn = self._connect(ref.path)
        try:
            rows = conn.execute(
                "SELECT seq, id, type, data FROM event WHERE aggregate_id = ? ORDER BY seq",
                (ref.transcript_id,),
            ).fetchall()
        finally:
            conn.close()
        return b"".join(
            json.dumps({"seq": r[0], "id": r[1], "type": r[2], "data": r[3]}).encode() + b"\n"
            for r in rows
        )


def _opencode_kit(
    fixtures: str = "opencode", curated_out: Collection[str] = opencode_commands.CURATED_OUT
) -> ConformanceKit:
    """The kit of OpenCode, or of a fork of it (its ``fixtures`` folder and curated commands)."""
    store = OpenCodeStore(fixtures)

    def write(provider: AgentProvider, context: RunContext, data: bytes) -> None:
        # What OpenCode leaves on disk with a session's first message (the run's first or
        # the first after /new): a session row naming the run's folder, then its events.
        data = data.replace(_OPENCODE_CWD.encode(), str(context.cwd).encode())
        state = json.loads((context.runtime_dir / "opencode.json").read_text())
        db = Path(state["db"])
        session = _session_of(data)
        assert session is not None
        created = json.loads(str(_event_rows(data)[0]["data"]))["info"]
        now = int(time.time() * 1000) + len(_event_rows(data))  # later epochs sort later
        conn = store._connect(db)
        with conn:
            stamp = now + conn.execute("SELECT count(*) FROM session").fetchone()[0]
            conn.execute(
                "INSERT INTO session (id, project_id, slug, directory, title, version, "
                "time_created, time_updated) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    session,
                    created["projectID"],
                    created["slug"],
                    str(context.cwd),
                    created["title"],
                    created["version"],
                    stamp,
                    stamp,
                ),
            )
        conn.close()
        store.write(TranscriptRef(transcript_id=session, path=db), data)

    second = _fixture(fixtures, "new_1.jsonl")
    names = ("hello", "tools", "interrupt", "approve", "reject", "new_0")
    return ConformanceKit(
        samples={f"{n}.jsonl": _fixture(fixtures, f"{n}.jsonl") for n in names},
        first_epoch=_fixture(fixtures, "new_0.jsonl"),
        second_epoch=second,
        # OpenCode records no command in its store: the only echo is the one the adapter
        # opens a /new epoch with.
        echo_samples=[],
        echo_epochs=[second],
        curated_out=frozenset(curated_out),
        start_epoch=write,
        clear_epoch=write,
        medium=store,
    )


# -- the fake provider (tests/support/fake_provider.py) ----------------------------------------------


def _fake_kit() -> ConformanceKit:
    def start(provider: AgentProvider, context: RunContext, data: bytes) -> None:
        (context.runtime_dir / "transcript.jsonl").write_bytes(data)

    def clear(provider: AgentProvider, context: RunContext, data: bytes) -> None:
        (context.runtime_dir / "transcript.1.jsonl").write_bytes(data)

    hello = _fixture("fake", "hello.jsonl")
    clear_after = _fixture("fake", "clear_after.jsonl")
    return ConformanceKit(
        samples={"hello.jsonl": hello, "clear_after.jsonl": clear_after},
        first_epoch=hello,
        second_epoch=clear_after,
        echo_samples=[clear_after, hello + b'{"type": "user", "text": "/clear"}\n'],
        curated_out=CURATED_OUT,
        start_epoch=start,
        clear_epoch=clear,
    )


# -- Gemini CLI -----------------------------------------------------------------------------

_GEMINI_CWD = b"/fixture/work"
_GEMINI_HOME = b"/fixture/home"
"""The placeholders scripts/record_gemini_fixtures.py writes for the run's folder and home."""


def _gemini_kit() -> ConformanceKit:
    # The SessionStart records Gemini CLI's hook gave for each recorded session, by id.
    starts: dict[str, bytes] = {}
    for hooks in sorted((FIXTURES / "gemini").glob("*.hooks.jsonl")):
        for line in hooks.read_bytes().splitlines():
            record = json.loads(line)
            if record.get("hook_event_name") == "SessionStart":
                starts.setdefault(str(record["session_id"]), line)

    def localised(context: RunContext, data: bytes) -> bytes:
        state = json.loads((context.runtime_dir / "gemini.json").read_text())
        home = str(Path(state["global_dir"]).parent).encode()
        return data.replace(_GEMINI_HOME, home).replace(_GEMINI_CWD, str(context.cwd).encode())

    def write(context: RunContext, data: bytes) -> None:
        # What Gemini CLI leaves on disk for one session: its file under
        # tmp/<project>/chats/ (created at once) and the SessionStart hook record naming it.
        data = localised(context, data)
        header = json.loads(data.splitlines()[0])
        record = json.loads(localised(context, starts[header["sessionId"]]))
        path = Path(record["transcript_path"])
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        folder = context.runtime_dir / "signals"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{time.time_ns()}-1.json").write_text(json.dumps(record))

    def start(provider: AgentProvider, context: RunContext, data: bytes) -> None:
        write(context, data)

    def clear(provider: AgentProvider, context: RunContext, data: bytes) -> None:
        write(context, data)  # /clear starts a new session, with its own file

    names = ("hello.jsonl", "tools.jsonl", "interrupt.jsonl", "approve.jsonl", "reject.jsonl")
    second = _fixture("gemini", "clear_1.jsonl")
    return ConformanceKit(
        samples={name: _fixture("gemini", name) for name in (*names, "clear_0.jsonl")},
        first_epoch=_fixture("gemini", "clear_0.jsonl"),
        second_epoch=second,
        # Gemini CLI records no slash command in its session file: the only echo is the one
        # the adapter opens a /clear epoch with.
        echo_samples=[],
        echo_epochs=[second],
        curated_out=frozenset(gemini_commands.CURATED_OUT),
        start_epoch=start,
        clear_epoch=clear,
    )


# -- Qwen Code (a fork of Gemini CLI) -------------------------------------------------------


def _qwen_code_kit() -> ConformanceKit:
    folder = FIXTURES / "qwen-code"
    # The SessionStart records the run's hooks gave for each recorded session, by id.
    starts: dict[str, bytes] = {}
    for hooks in sorted(folder.glob("*.hooks.jsonl")):
        for line in hooks.read_bytes().splitlines():
            record = json.loads(line)
            if record.get("hook_event_name") == "SessionStart":
                starts.setdefault(str(record["session_id"]), line)

    def localised(context: RunContext, data: bytes) -> bytes:
        state = json.loads((context.runtime_dir / "qwen-code.json").read_text())
        home = str(Path(state["global_dir"]).parent).encode()
        return data.replace(_GEMINI_HOME, home).replace(_GEMINI_CWD, str(context.cwd).encode())

    def write(provider: AgentProvider, context: RunContext, data: bytes) -> None:
        # What Qwen Code leaves for one session: its file under projects/<slug>/chats/
        # and the SessionStart hook record naming it.
        data = localised(context, data)
        session = str(json.loads(data.splitlines()[0])["sessionId"])
        record = json.loads(localised(context, starts[session]))
        path = Path(str(record["transcript_path"]))
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        spool = context.runtime_dir / "signals"
        spool.mkdir(parents=True, exist_ok=True)
        (spool / f"{time.time_ns()}-1.json").write_text(json.dumps(record))

    names = ("hello.jsonl", "tools.jsonl", "approve.jsonl", "clear_0.jsonl")
    second = _fixture("qwen-code", "clear_1.jsonl")
    return ConformanceKit(
        samples={name: _fixture("qwen-code", name) for name in names},
        first_epoch=_fixture("qwen-code", "clear_0.jsonl"),
        second_epoch=second,
        # Qwen Code records no slash command: the adapter opens a /clear epoch with the echo.
        echo_samples=[],
        echo_epochs=[second],
        curated_out=frozenset(qwen_code_commands.CURATED_OUT),
        start_epoch=write,
        clear_epoch=write,
    )


# -- GitHub Copilot CLI ---------------------------------------------------------------------

_COPILOT_CWD = b"/fixture/work"
"""The placeholder the recorded session logs hold for the run's folder."""


def _copilot_kit() -> ConformanceKit:
    def write(provider: AgentProvider, context: RunContext, data: bytes) -> None:
        # What Copilot CLI leaves in the run's COPILOT_HOME for one session (the run's
        # first, or the one /clear opened at once): session-state/<id>/ with workspace.yaml
        # naming the run's folder and its start, the lock while the CLI has it open, and
        # with the first prompt events.jsonl.
        state = json.loads((context.runtime_dir / "copilot.json").read_text())
        sessions = Path(state["home"]) / copilot_compat.SESSIONS_DIR
        header = json.loads(data.splitlines()[0])
        session_id = str(header["data"]["sessionId"])
        later = len(list(sessions.iterdir())) if sessions.is_dir() else 0
        started = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(time.time() + later))
        for old in sessions.glob(f"*/{copilot_compat.LOCK_PREFIX}*"):
            old.unlink()  # the clear shut the previous session
        folder = sessions / session_id
        folder.mkdir(parents=True, exist_ok=True)
        (folder / copilot_compat.WORKSPACE_FILE).write_text(
            f"id: {session_id}\ncwd: {context.cwd}\ncreated_at: {started}.000Z\n"
        )
        (folder / f"{copilot_compat.LOCK_PREFIX}1.lock").touch()
        (folder / copilot_compat.EVENTS_FILE).write_bytes(
            data.replace(_COPILOT_CWD, str(context.cwd).encode())
        )

    second = _fixture("copilot", "after_clear.jsonl")
    names = ("approve_reject_interrupt.jsonl", "after_clear.jsonl")
    return ConformanceKit(
        samples={name: _fixture("copilot", name) for name in names},
        first_epoch=_fixture("copilot", "approve_reject_interrupt.jsonl"),
        second_epoch=second,
        # Copilot CLI records no slash command in its session log: the only echo is the one
        # the adapter opens a /clear epoch with.
        echo_samples=[],
        echo_epochs=[second],
        curated_out=frozenset(copilot_commands.CURATED_OUT),
        start_epoch=write,
        clear_epoch=write,
    )


# -- Mistral Vibe ------------------------------------------------------------------------------

_VIBE_CWD = b"/fixture/work"
"""The placeholder the recorded session journals hold for the run's folder."""
_VIBE_SEGMENT = "journal/0000000000000001.jsonl"
"""A session's first journal segment, which holds the whole journal until a snapshot."""


class VibeStore(TranscriptMedium):
    """A Mistral Vibe session store: a sample is a session's whole journal (recorded as it
    was written, before any snapshot took it), laid out as the store's one segment.
    """

    def ref(self, path: Path, sample: bytes, label: str) -> TranscriptRef:
        return TranscriptRef(transcript_id=label, path=path.parent / f"{path.stem}.store")

    def write(self, ref: TranscriptRef, data: bytes) -> None:
        segment = ref.path / _VIBE_SEGMENT
        segment.parent.mkdir(parents=True, exist_ok=True)
        segment.write_bytes(data)

    def append(self, ref: TranscriptRef, data: bytes) -> None:
        with (ref.path / _VIBE_SEGMENT).open("ab") as f:
            f.write(data)

    def read(self, ref: TranscriptRef) -> bytes:
        return (ref.path / _VIBE_SEGMENT).read_bytes()


def _vibe_session(data: bytes) -> str:
    for line in data.splitlines():
        params = json.loads(line).get("payload", {}).get("params", {})
        if isinstance(params, dict) and isinstance(params.get("sessionId"), str):
            return str(params["sessionId"])
    raise AssertionError("a recorded Vibe journal names its session")


def _vibe_kit() -> ConformanceKit:
    store = VibeStore()

    def write(provider: AgentProvider, context: RunContext, data: bytes) -> None:
        # What Vibe leaves in the run's VIBE_HOME for one session (the run's first, or the
        # one /clear leased at once): its lease, naming the session (the clear released the
        # previous one), and from its first prompt its store.
        state = json.loads((context.runtime_dir / "mistral-vibe.json").read_text())
        sessions = Path(state["home"]) / vibe_compat.SESSIONS_DIR
        session = _vibe_session(data)
        leases = sessions / vibe_compat.LEASES_DIR
        leases.mkdir(parents=True, exist_ok=True)
        for old in leases.glob(f"*{vibe_compat.LEASE_SUFFIX}"):
            old.unlink()
        lease = leases / f"{session}{vibe_compat.LEASE_SUFFIX}"
        lease.write_text(json.dumps({"session_id": session, "process_id": 1}))
        later = time.time() + len(list((sessions / vibe_compat.STORE_DIR).glob("*")))
        os.utime(lease, (later, later))
        folder = sessions / vibe_compat.STORE_DIR / session
        store.write(
            TranscriptRef(session, folder), data.replace(_VIBE_CWD, str(context.cwd).encode())
        )

    second = _fixture("mistral-vibe", "clear_1.jsonl")
    names = ("hello.jsonl", "tools.jsonl", "approve_reject.jsonl", "clear_0.jsonl")
    return ConformanceKit(
        samples={name: _fixture("mistral-vibe", name) for name in names},
        first_epoch=_fixture("mistral-vibe", "clear_0.jsonl"),
        second_epoch=second,
        # Vibe records no slash command in its store: the only echo is the one the adapter
        # opens a /clear epoch with.
        echo_samples=[],
        echo_epochs=[second],
        curated_out=frozenset(vibe_commands.CURATED_OUT),
        start_epoch=write,
        clear_epoch=write,
        medium=store,
    )


KITS: dict[str, Callable[[], ConformanceKit]] = {
    "claude-code": _claude_kit,
    "codex": _codex_kit,
    "opencode": _opencode_kit,
    "kilo": lambda: _opencode_kit("kilo", kilo_commands.CURATED_OUT),
    "fake": _fake_kit,
    "gemini": _gemini_kit,
    "copilot": _copilot_kit,
    "mistral-vibe": _vibe_kit,
    "qwen-code": _qwen_code_kit,
}
"""Kits by provider id. A new provider adds ``"<id>": _<id>_kit`` here."""


def kit_for(provider_id: str) -> ConformanceKit | None:
    """The kit of a provider, or ``None`` when it has none yet."""
    factory = KITS.get(provider_id)
    return factory() if factory is not None else None


def require_kit(provider_id: str) -> ConformanceKit:
    """The kit of a provider; a provider without one fails, saying what to add."""
    kit = kit_for(provider_id)
    if kit is None:
        pytest.fail(
            f"provider {provider_id!r} has no conformance kit: add `{provider_id!r}: "
            f"_<name>_kit` to KITS in tests/support/kits.py, with sample transcripts "
            f"recorded into tests/fixtures/{provider_id}/ (see docs/conformance.md)"
        )
    return kit
