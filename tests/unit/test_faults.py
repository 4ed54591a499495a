"""Hardening: a writer racing the real tailer, rotation storms, and faults (the agent
crashing, tmux going away, the transcript deleted, the kernel restarting): nothing lost,
nothing hangs. Faults run on the fake agent under real tmux; the real CLI's crash is in
``tests/live/claude_code/test_faults.py``."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lab_widget
from lab_widget import Run, RunEndedError
from lab_widget._chat._session import ChatSession
from lab_widget._run._registry import register
from lab_widget._runtime._tailer import Tailer
from lab_widget.errors import TmuxError
from lab_widget.provider import (
    JsonlTail,
    Line,
    RunContext,
    TranscriptReader,
    TranscriptRef,
    get_provider,
)
from tests.support.fake_provider import FakeProvider
from tests.support.local import local_parts
from tests.support.paths import FIXTURES, ROOT
from tests.support.waiting import retry_until


class FileProvider(FakeProvider):
    """The fake seam around a transcript file read by Claude Code's real reader, located by
    Claude Code's real locate logic (its SessionStart signal spool)."""

    def __init__(self) -> None:
        self.claude = get_provider("claude-code")

    def locate_transcript(
        self, context: RunContext, current: TranscriptRef | None
    ) -> TranscriptRef | None:
        return self.claude.locate_transcript(context, current)

    def open_reader(self, ref: TranscriptRef) -> TranscriptReader:
        return self.claude.open_reader(ref)

    def watch_paths(self, context: RunContext) -> list[Path]:
        return self.claude.watch_paths(context)

    def is_ready(self, context: RunContext) -> bool:
        return True


def session_start(runtime: Path, session_id: str, transcript: Path, n: int) -> None:
    """What Claude Code's SessionStart hook writes into the run's spool."""
    spool = runtime / "signals"
    spool.mkdir(exist_ok=True)
    record = {
        "hook_event_name": "SessionStart",
        "session_id": session_id,
        "transcript_path": str(transcript),
        "source": "clear",
    }
    tmp = spool / f"{time.time_ns():020d}-{n}.tmp"
    tmp.write_text(json.dumps(record))
    tmp.rename(tmp.with_suffix(".json"))


def claude_chat(tmp_path: Path) -> tuple[ChatSession, Path, Tailer]:
    runtime = tmp_path / "runtime"
    runtime.mkdir()
    projects = tmp_path / "projects"
    projects.mkdir()
    (runtime / "claude-code.json").write_text(
        json.dumps({"session_id": "none-yet", "config_dir": str(tmp_path / "config")})
    )
    context = RunContext(run_id="r", cwd=tmp_path, runtime_dir=runtime)
    chat = ChatSession(FileProvider(), context, terminal=None)  # type: ignore[arg-type]
    tailer = Tailer(lambda: [runtime / "signals", projects], chat.refresh).start()
    return chat, projects, tailer


def one_shot(path: Path) -> list[object]:
    reader = get_provider("claude-code").open_reader(TranscriptRef("x", path))
    reader.read()
    return [(m.kind, m.role, m.text, m.tool) for m in reader.messages]


def test_writer_in_random_chunks_equals_one_shot(tmp_path: Path) -> None:
    chat, projects, tailer = claude_chat(tmp_path)
    data = b"".join((FIXTURES / "claude-code" / n).read_bytes() for n in ("tools.jsonl",) * 3)
    path = projects / "s1.jsonl"
    path.write_bytes(b"")
    session_start(tmp_path / "runtime", "s1", path, 0)
    rng = random.Random(7)

    def writer() -> None:
        with path.open("ab") as f:
            i = 0
            while i < len(data):
                n = rng.choice([1, 2, 7, 64, 500, 4096, 20000])
                f.write(data[i : i + n])
                f.flush()
                i += n
                if rng.random() < 0.3:
                    time.sleep(0.001)

    try:
        thread = threading.Thread(target=writer)
        thread.start()
        thread.join(30)
        want = one_shot(path)
        assert chat.wait_for(
            lambda: [(m.kind, m.role, m.text, m.tool) for m in chat.messages] == want, 5
        ), (len(chat.messages), len(want))
    finally:
        tailer.stop()
    assert not tailer.running


def test_rotation_storm_ends_on_the_last_epoch(tmp_path: Path) -> None:
    chat, projects, tailer = claude_chat(tmp_path)
    hello = (FIXTURES / "claude-code" / "hello.jsonl").read_bytes()
    tools = (FIXTURES / "claude-code" / "tools.jsonl").read_bytes()
    epochs = 40
    try:
        for n in range(epochs):
            session_id = str(uuid.uuid4())
            path = projects / f"{session_id}.jsonl"
            path.write_bytes(hello if n < epochs - 1 else tools)
            session_start(tmp_path / "runtime", session_id, path, n)
            if n % 7 == 0:
                time.sleep(0.01)
        want = one_shot(path)
        assert chat.wait_for(
            lambda: (
                chat.transcript_id == session_id
                and [(m.kind, m.role, m.text, m.tool) for m in chat.messages] == want
            ),
            5,
        )
        assert not any("Hello from the scripted" in m.text for m in chat.messages)
        assert len(chat.past_epochs) >= 1
    finally:
        tailer.stop()
    assert not tailer.running


# -- faults under real tmux (fake agent) -----------------------------------------------


def fake_run(workdir: Path) -> Run:
    run = Run("fake", cwd=workdir)
    local_parts(run).chat.wait_ready(10)
    run.send("before the fault")
    assert run.wait(timeout=10) == "idle"
    return run


def assert_ends_cleanly(run: Run) -> None:
    started = time.monotonic()
    assert run.wait_for(lambda r: r.state == "ended", 2.0), run.state
    assert time.monotonic() - started < 2.0
    local_parts(run).tailer._thread.join(2.0)
    assert not local_parts(run).tailer.running
    with pytest.raises(RunEndedError):
        run.send("anyone?")
    assert run.wait(timeout=1) == "ended"  # never blocks on an ended run
    assert [m.text for m in run.messages][:2] == ["before the fault", "echo: before the fault"]
    run.stop()  # idempotent after the fact


def test_agent_crash_ends_the_run(lab_home: Path, workdir: Path) -> None:
    run = fake_run(workdir)
    pid = local_parts(run).terminal.pid()
    assert pid is not None
    # The pane's first process is the launcher that exec'd the agent: this is the agent.
    os.kill(pid, signal.SIGKILL)
    assert_ends_cleanly(run)


def test_tmux_server_killed_ends_the_run(lab_home: Path, workdir: Path) -> None:
    run = fake_run(workdir)
    socket = str(local_parts(run).terminal.runner.socket_path)
    subprocess.run(["tmux", "-S", socket, "kill-server"], check=True)
    assert_ends_cleanly(run)


def test_tmux_session_killed_ends_the_run(lab_home: Path, workdir: Path) -> None:
    run = fake_run(workdir)
    socket = str(local_parts(run).terminal.runner.socket_path)
    subprocess.run(["tmux", "-S", socket, "kill-session", "-t", run.id], check=True)
    assert_ends_cleanly(run)


def test_a_last_read_that_fails_still_ends_the_run(
    lab_home: Path, workdir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    run = fake_run(workdir)
    chat = local_parts(run).chat

    def broken() -> None:
        raise OSError("the transcript went away mid-read")

    chat.refresh = broken  # type: ignore[method-assign]  # the read the exit makes
    socket = str(local_parts(run).terminal.runner.socket_path)
    subprocess.run(["tmux", "-S", socket, "kill-session", "-t", run.id], check=True)
    assert_ends_cleanly(run)
    assert "reading run" in caplog.text and "the transcript went away" in caplog.text


def test_stop_ends_the_agent_though_tmux_fails_once_for_a_passing_reason(
    lab_home: Path, workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = fake_run(workdir)
    terminal = local_parts(run).terminal
    pid = terminal.pid()
    assert pid is not None
    real, failed = terminal._tmux, []

    def busy_once(*args: str, data: bytes | None = None) -> str:
        if args[0] in ("display-message", "kill-session") and args[0] not in failed:
            failed.append(args[0])  # as a server too busy to take the connection says
            raise TmuxError("server exited unexpectedly")
        return real(*args, data=data)

    monkeypatch.setattr(terminal, "_tmux", busy_once)
    run.stop()
    assert failed == ["display-message", "kill-session"]
    socket = str(terminal.runner.socket_path)
    alive = subprocess.run(["tmux", "-S", socket, "has-session", "-t", f"={run.id}"], check=False)
    assert alive.returncode != 0
    # Ended (its parent, the tmux server, reaps it a moment later).
    assert retry_until(lambda: not Path(f"/proc/{pid}").exists(), 5), pid


def test_deleted_transcript_resets_and_keeps_following(lab_home: Path, workdir: Path) -> None:
    with fake_run(workdir) as run:
        path = local_parts(run).context.runtime_dir / "transcript.jsonl"
        path.unlink()
        run.send("after the delete")
        assert run.wait_for(
            lambda r: (
                [m.text for m in r.messages] == ["after the delete", "echo: after the delete"]
            ),
            5,
        ), [m.text for m in run.messages]
        assert local_parts(run).tailer.running and run.state == "idle"
    assert not local_parts(run).tailer.running


def test_tail_notices_a_replaced_file_of_the_same_size(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b'{"n": 1}\n')
    tail = JsonlTail(path)
    assert [x.value for x in tail.read()] == [{"n": 1}]  # type: ignore[union-attr]
    path.unlink()
    assert tail.read() == []
    path.write_bytes(b'{"n": 2}\n')  # same size; the inode may well be the old one
    assert [x.value for x in tail.read()] == [{"n": 2}]  # type: ignore[union-attr]
    assert tail.rewound
    path.write_bytes(b'{"n": 3}\n{"n": 4}\n')  # rewritten in place without a vanish
    assert [x.value for x in tail.read()] == [{"n": 3}, {"n": 4}]  # type: ignore[union-attr]


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    lines=st.lists(
        st.one_of(
            st.dictionaries(st.text(max_size=5), st.integers(-(2**63), 2**63 - 1), max_size=3).map(
                lambda d: json.dumps(d).encode()
            ),
            st.sampled_from([b"", b"  ", b"not json", b'{"cut":']),
        ),
        max_size=12,
    ),
    cuts=st.lists(st.integers(min_value=0, max_value=400), max_size=4),
    chunk=st.integers(min_value=1, max_value=16),
)
def test_tail_reads_every_line_once_with_its_number_however_the_bytes_arrive(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    lines: list[bytes],
    cuts: list[int],
    chunk: int,
) -> None:
    # Appends cut anywhere (mid-line too), read in chunks smaller than a line.
    monkeypatch.setattr("lab_widget.provider._jsonl._CHUNK", chunk)
    data = b"".join(line + b"\n" for line in lines)
    path = tmp_path / f"{uuid.uuid4().hex}.jsonl"
    path.write_bytes(b"")
    tail = JsonlTail(path)
    got: list[tuple[str, int, object]] = []
    start = 0
    for cut in [*sorted(c % (len(data) + 1) for c in cuts), len(data)]:
        with path.open("ab") as f:
            f.write(data[start:cut])
        start = max(start, cut)
        for item in tail.read():
            value = item.value if isinstance(item, Line) else item.raw
            got.append((type(item).__name__, item.number, value))
    wanted: list[tuple[str, int, object]] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            wanted.append(("Line", number, json.loads(line)))
        except ValueError:
            wanted.append(("CorruptLine", number, line))
    assert got == wanted
    assert tail.offset == len(data) and tail.lines == len(lines)


READOPT = """
import json, sys
sys.path.insert(0, sys.argv[1])
from tests.conftest import *  # registers the fake provider
import lab_widget
ids = json.loads(sys.argv[2])
found = sorted(r.id for r in lab_widget.runs())
history = {i: [m.text for m in lab_widget.get_run(i).messages] for i in ids}
states = {i: lab_widget.get_run(i).state for i in ids}
run = lab_widget.get_run(ids[0])
run.send("from the new kernel")
run.wait_for(lambda r: r.messages[-1].text == "echo: from the new kernel", 10)
print(json.dumps({"found": found, "history": history, "states": states}))
"""


def test_runs_adopts_the_live_run_not_an_ended_one_of_the_same_name(
    lab_home: Path, workdir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A name used again: this process still holds the first "twin", ended, while the lab
    # home it now uses has another "twin" running (started by another process).
    ended = Run("fake", cwd=workdir, name="twin")
    ended.stop()
    monkeypatch.setenv("LAB_WIDGET_HOME", str(tmp_path / "other-home"))
    live = Run("fake", cwd=workdir, name="twin")
    try:
        register(ended)  # as if the live one were another process's
        [found] = lab_widget.runs()
        assert found is not ended
        assert found.state != "ended" and found.started_at == live.started_at
        found.stop()  # reaches the agent that runs now
        assert live.wait_for(lambda r: r.state == "ended", 10), live.state
    finally:
        live.stop()


def test_kernel_restart_readopts_every_run_with_full_history(lab_home: Path, workdir: Path) -> None:
    runs = [Run("fake", cwd=workdir) for _ in range(3)]
    try:
        for k, run in enumerate(runs):
            local_parts(run).chat.wait_ready(10)
            for i in range(3):
                run.send(f"run {k} message {i}")
                assert run.wait(timeout=10) == "idle"
        ids = [r.id for r in runs]
        out = subprocess.run(
            [sys.executable, "-c", READOPT, str(ROOT), json.dumps(ids)],
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        ).stdout
        seen = json.loads(out)
        assert seen["found"] == sorted(ids)
        for k, run_id in enumerate(ids):
            want = [
                t for i in range(3) for t in (f"run {k} message {i}", f"echo: run {k} message {i}")
            ]
            assert seen["history"][run_id] == want
            assert seen["states"][run_id] == "idle"
        # What the new process typed reached the agent, and this process sees it too.
        assert runs[0].wait_for(lambda r: r.messages[-1].text == "echo: from the new kernel", 5)
    finally:
        for run in runs:
            run.stop()


@pytest.mark.parametrize("inotify", [True, False], ids=["inotify", "watchfiles"])
def test_tailer_follows_a_folder_created_later_and_stops(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, inotify: bool
) -> None:
    monkeypatch.setattr("lab_widget._runtime._tailer.inotify_available", lambda: inotify)
    target = tmp_path / "a" / "b"
    calls = threading.Event()
    tailer = Tailer(lambda: [target], calls.set).start()

    def write_is_seen(n: int, within: float = 0.5) -> bool:
        calls.clear()
        (target / f"t{n}.jsonl").write_text("{}\n")
        return calls.wait(within)

    try:
        target.mkdir(parents=True)
        # The watch moves onto the new folder once it exists; a loaded machine may take
        # seconds to get there, so keep writing until one is seen (bounded).
        deadline = time.monotonic() + 30
        n = 0
        while not write_is_seen(n):
            n += 1
            assert time.monotonic() < deadline, "no write in the new folder was seen in 30 s"
        # And every later write, however loaded the machine is (a debounced poll may be late).
        assert write_is_seen(99, within=10)
    finally:
        tailer.stop()
    assert not tailer.running
