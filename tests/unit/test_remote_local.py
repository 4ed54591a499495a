"""The worker and its proxy over a local stdio transport (``python -m lab_widget worker`` as a
subprocess), driving the fake agent under real tmux."""

from __future__ import annotations

import inspect
import subprocess
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

import lab_widget
from lab_widget import (
    ConnectionLostError,
    Host,
    HostUnreachableError,
    LabWidgetError,
    LocalHost,
    NoDialogError,
    Run,
    RunNotFoundError,
    Seed,
    WorkerVersionError,
    runs,
)
from lab_widget._chat._session import ChatEvent
from lab_widget._remote import _connection
from lab_widget._remote._backend import RemoteBackend
from lab_widget._remote._protocol import PROTOCOL, hello
from lab_widget._run._backend import RunBackend
from lab_widget._run._local import LocalBackend
from lab_widget._runtime._pane_stream import PaneStream
from lab_widget._widgets._dashboard import RunsDashboard
from tests.support.dashboard import act
from tests.support.local import local_parts
from tests.support.paths import ROOT
from tests.support.recording import RecordingComm
from tests.support.remote import close_connections, local_host
from tests.support.streams import Recorder
from tests.support.waiting import retry_until


@pytest.fixture
def host(lab_home: Path) -> Iterator[LocalHost]:
    yield local_host(lab_home)
    close_connections()


def remote_fake(host: Host, workdir: Path, **kwargs: Any) -> Run:
    run = Run("fake", cwd=workdir, host=host, **kwargs)
    assert run.wait_for(lambda r: r.state == "idle", 10)
    assert retry_until(lambda: run.screen().startswith(">"), 10)  # the agent takes input
    return run


def test_one_run_class_over_two_backends() -> None:
    # No subclass per place: Run is one façade, and each backend is the whole seam.
    # No subclass per place: Run is one façade (mypy holds both backends to RunBackend).
    assert Run.__subclasses__() == []
    seam = {n for n in vars(RunBackend) if not n.startswith("_")}
    for backend in (LocalBackend, RemoteBackend):
        built = inspect.getsource(backend.__init__)
        missing = {n for n in seam if n not in dir(backend) and f"self.{n}" not in built}
        assert missing == set(), backend
    # The derived members are written once, in terms of the public surface.
    for name in ("subagents", "usage", "turns", "chat", "to_dataframe", "clear", "view"):
        member = getattr(Run, name)
        target = member.fget if isinstance(member, property) else member
        assert target is not None, name
        source = inspect.getsource(target)
        assert "self._backend" not in source, name


def test_run_shows_its_real_parameters() -> None:
    # What Shift-Tab, help() and Run? show in a notebook.
    parameters = inspect.signature(Run).parameters
    assert list(parameters) == [
        "provider",
        "cwd",
        "model",
        "endpoint",
        "name",
        "seed",
        "worktree",
        "sandbox",
        "host",
        "prompt",
        "kernel",
        "kernel_host",
        "rerun",
        "idle_timeout",
        "options",
    ]
    assert parameters["cwd"].default == "." and parameters["host"].default is None


def test_send_and_wait_through_the_worker(host: LocalHost, workdir: Path) -> None:
    run = remote_fake(host, workdir)
    try:
        assert isinstance(run, Run)
        assert isinstance(run._backend, RemoteBackend)
        assert run.host == host and run.connected
        seen: list[ChatEvent] = []
        run.subscribe(seen.append)
        run.send("hello")
        assert run.wait(timeout=10) == "idle"
        assert [(m.role, m.text) for m in run.messages] == [
            ("user", "hello"),
            ("assistant", "echo: hello"),
        ]
        assert run.transcript_id == "fake"
        assert [m.text for e in seen for m in e.changed] == ["hello", "echo: hello"]
        assert run.cwd == workdir
        assert run.transcript_path == lab_home_of(host) / "runs" / run.id / "transcript.jsonl"
        assert run.attach_command.startswith("tmux -S ")
        assert [c.name for c in run.commands] == ["/clear", "/quit"]
        assert run.chat().messages == run.messages
        assert "echo: hello" in run.screen()
        assert repr(run) == "Run(Fake Agent)"
    finally:
        run.stop()
    assert run.state == "ended" and run.state_reason == "This run was stopped."
    assert runs(host=host) == []


def lab_home_of(host: Host) -> Path:
    return Path(host.env["LAB_WIDGET_HOME"])


def test_clear_follows_the_new_epoch_and_keeps_the_past(host: LocalHost, workdir: Path) -> None:
    run = remote_fake(host, workdir)
    try:
        run.send("first")
        assert run.wait(timeout=10) == "idle"
        # When the agent started, as the host's record says.
        assert run.started_at is not None and run.started_at.tzinfo is not None
        run.clear()
        # Back from the wait, the new epoch is followed and its echo read, here as well.
        assert run.wait(timeout=10) == "idle"
        assert run.transcript_id == "fake-1"
        assert [m.command for m in run.messages] == ["/clear"]
        [past] = run.past_conversations
        assert past.transcript_id == "fake" and [m.text for m in past.messages][:1] == ["first"]
        assert [ref.transcript_id for ref in run.past_epochs] == ["fake"]
        [chat] = run.history()
        assert [m.text for m in chat.messages][:2] == ["first", "echo: first"]
    finally:
        run.stop()


def test_the_chat_view_works_on_a_remote_run(
    host: LocalHost, workdir: Path, comms: list[RecordingComm]
) -> None:
    run = remote_fake(host, workdir)
    try:
        view = run.view
        assert view.provider_name == "Fake Agent" and view.has_terminal is True
        view._repr_mimebundle_()  # opens the comm
        run.send("over the pipe")
        assert run.wait(timeout=10) == "idle"
        assert retry_until(lambda: view.state == "idle", 5)
        deltas = [c for comm in comms for c in comm.customs() if c.get("kind") == "delta"]
        texts = [m["text"] for d in deltas for m in d["changed"]]
        assert texts == ["over the pipe", "echo: over the pipe"]
    finally:
        run.stop()


def test_errors_come_back_typed_and_warnings_warned_here(
    host: LocalHost, workdir: Path, tmp_path: Path
) -> None:
    with pytest.raises(LabWidgetError, match="is not a folder"):
        Run("fake", cwd=tmp_path / "missing", host=host)
    run = remote_fake(host, workdir, seed=Seed(context="Be brief."))
    try:
        with pytest.raises(NoDialogError, match="no dialog is pending"):
            run.answer({"Database": "SQLite"})
        with pytest.raises(RunNotFoundError, match="no live run 'nope'"):
            _connection._connections[host].request("adopt", "nope", {})
    finally:
        (workdir / "FAKE.md").write_text("edited by hand\n")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            run.stop(cleanup=True)
    # The worker's warning, warned in this kernel with its class.
    assert [(w.category, str(w.message)) for w in caught] == [
        (UserWarning, "FAKE.md was edited since it was seeded; kept")
    ]
    assert (workdir / "FAKE.md").exists()


def test_a_run_started_elsewhere_is_readopted_by_the_hosts_worker(
    host: LocalHost, lab_home: Path, workdir: Path
) -> None:
    local = Run("fake", cwd=workdir)  # an agent on the "host", started by another kernel
    try:
        assert local_parts(local).chat.wait_for(lambda: local_parts(local).chat.ready, 10)
        local.send("before")
        assert local.wait(timeout=10) == "idle"
        [remote] = runs(host=host)
        assert isinstance(remote._backend, RemoteBackend) and remote.id == local.id
        assert [m.text for m in remote.messages] == ["before", "echo: before"]
        remote.send("through the worker")
        assert remote.wait(timeout=10) == "idle"
        # This kernel's own reader of the same transcript follows it on its own tail.
        assert retry_until(
            lambda: [m.text for m in local.messages][-1:] == ["echo: through the worker"], 10
        )
        assert lab_widget.get_run(local.id, host=host) is remote
    finally:
        local.stop()


def test_a_dropped_pipe_reconnects_and_resyncs_without_loss_or_duplicates(
    host: LocalHost, workdir: Path
) -> None:
    run = remote_fake(host, workdir)
    try:
        seen: list[ChatEvent] = []
        run.subscribe(seen.append)
        run.send("one")
        assert run.wait(timeout=10) == "idle"
        connection = _connection._connections[host]
        old = connection._proc
        assert old is not None
        old.kill()  # the transport dies (what a killed ssh does)
        assert retry_until(lambda: connection.reconnects == 1 and connection.connected, 20)
        assert connection._proc is not old
        run.send("two")
        assert run.wait(timeout=10) == "idle"
        texts = [m.text for m in run.messages]
        assert texts == ["one", "echo: one", "two", "echo: two"]
        # Every message reached the listeners exactly once (the resync sent only news).
        delivered = [m.text for e in seen for m in e.changed]
        assert sorted(delivered) == sorted(texts) and len(delivered) == len(set(delivered))
    finally:
        run.stop()


def test_a_request_that_must_not_repeat_fails_typed_when_the_pipe_drops(
    host: LocalHost, workdir: Path
) -> None:
    run = remote_fake(host, workdir)
    try:
        connection = _connection._connections[host]
        proc = connection._proc
        assert proc is not None
        # A send that waits for readiness forever, cut by the pipe dropping.
        proc.kill()
        with pytest.raises((ConnectionLostError, HostUnreachableError)):
            connection.request("send", run.id, {"text": "x"}, timeout=5, wait_connected=False)
        assert retry_until(lambda: connection.connected, 20)
        assert run.wait(timeout=10) == "idle"
    finally:
        run.stop()


MISMATCHED = """
import json, sys
hello = {"kind": "hello", "protocol": 0, "lab_widget": "0.0.1", "pins": {"claude-code": "x@1"}}
print(json.dumps(hello), flush=True)
sys.stdin.readline()
"""


class ScriptHost(LocalHost):
    def worker_argv(self) -> list[str]:
        return [sys.executable, "-c", MISMATCHED]


def test_a_mismatched_worker_is_refused_with_a_typed_error(lab_home: Path, workdir: Path) -> None:
    with pytest.raises(WorkerVersionError) as caught:
        Run("fake", cwd=workdir, host=ScriptHost())
    message = str(caught.value)
    assert f"protocol {PROTOCOL} here, 0 there" in message
    assert f"lab_widget {lab_widget.__version__} here, 0.0.1 there" in message
    assert "claude-code pinned to" in message and "x@1 there" in message


def test_the_worker_refuses_a_mismatched_kernel(lab_home: Path) -> None:
    with subprocess.Popen(
        [sys.executable, "-m", "lab_widget", "worker"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        cwd=ROOT,
    ) as proc:
        assert proc.stdin is not None and proc.stdout is not None
        theirs = orjson.loads(proc.stdout.readline())
        assert theirs["kind"] == "hello" and theirs["protocol"] == PROTOCOL and theirs["user"]
        proc.stdin.write(orjson.dumps({**hello(), "lab_widget": "9.9"}) + b"\n")
        proc.stdin.flush()
        refused = orjson.loads(proc.stdout.readline())
        assert refused["kind"] == "refused" and "lab_widget" in refused["reason"]
        assert proc.wait(timeout=10) == 3


class DeadHost(LocalHost):
    def worker_argv(self) -> list[str]:
        return [sys.executable, "-c", "import sys; print('no such host', file=sys.stderr)"]


def test_an_unreachable_host_says_what_the_transport_said(lab_home: Path, workdir: Path) -> None:
    with pytest.raises(HostUnreachableError, match="no such host"):
        Run("fake", cwd=workdir, host=DeadHost())


def test_the_runs_dashboard_follows_runs_on_a_host(
    host: LocalHost, workdir: Path, comms: list[RecordingComm]
) -> None:
    run = remote_fake(host, workdir, name="far-one")
    listed = runs(host=host)
    board = RunsDashboard(listed)
    try:
        assert listed == [run]
        assert [r["id"] for r in board.table.rows] == ["far-one"]
        assert board.table.rows[0]["path"] == str(workdir)
        run.send("hello")
        assert run.wait(timeout=10) == "idle"
        assert act(board, "open", "far-one")["ok"] is True
        assert list(board.children) == [board.table, run.view]
        assert act(board, "stop", "far-one")["ok"] is True
        assert run.state == "ended"
        assert retry_until(lambda: board.table.rows[0]["state"] == "ended", 5)
    finally:
        board.close()


def test_the_terminal_pane_streams_the_hosts_tmux_and_takes_keys(
    host: LocalHost, workdir: Path
) -> None:
    run = remote_fake(host, workdir)
    recorder = Recorder()
    stream = PaneStream(run.pane, recorder)
    try:
        assert run.pane.control_argv()[-3:] == ["attach-session", "-t", f"={run.id}"]
        stream.start(90, 25)
        stream.request_screen("v1")
        assert retry_until(lambda: bool(recorder.of("screen")), 10)
        _, screen = recorder.of("screen")[0]
        assert (screen.cols, screen.rows) == (90, 25) and screen.lines[0].startswith(b"> ")
        run.send("seen in the pane")
        assert run.wait(timeout=10) == "idle"
        assert retry_until(lambda: b"echo: seen in the pane" in recorder.output_after_screen(), 10)
        run.pane.send_bytes(b"typed\r")  # keys through the worker's tmux, as the view sends
        assert run.wait_for(lambda r: r.messages[-1].text == "echo: typed", 10)
        # Only the terminal view's commands run on the host's tmux.
        with pytest.raises(LabWidgetError, match="not a command the terminal view runs"):
            run.pane.runner.tmux("run-shell", "id")
    finally:
        stream.close()
        run.stop()
    assert run.pane.final_screen  # kept before the session went, for an ended view


def test_a_first_prompt_reaches_the_run_on_the_host_once(host: LocalHost, workdir: Path) -> None:
    with Run("fake", cwd=workdir, host=host, prompt="first, from the start") as run:
        assert run.wait_for(lambda r: len(r.messages) == 2, 20)
        assert [(m.role, m.text) for m in run.messages] == [
            ("user", "first, from the start"),
            ("assistant", "echo: first, from the start"),
        ]
