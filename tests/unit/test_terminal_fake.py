"""The terminal view's stream and feed over real tmux, with the fake agent (no browser)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import pytest

import lab_widget._widgets._terminal as feed_module
from lab_widget import Run
from lab_widget._run._launch import runner
from lab_widget._runtime._pane_stream import PaneStream
from lab_widget._runtime._screen import Screen
from lab_widget._runtime._tmux import TmuxTerminal
from lab_widget._widgets._dashboard import RunsDashboard
from lab_widget._widgets._view import RunView
from tests.support.local import local_parts
from tests.support.paths import ROOT
from tests.support.recording import RecordingComm
from tests.support.waiting import retry_until

from .test_view import StubSource


class Recorder:
    """A stream listener that keeps everything it hears, in order."""

    def __init__(self) -> None:
        self.events: list[tuple[str, Any]] = []
        self.lock = threading.Lock()

    def on_screen(self, tag: object, screen: Screen) -> None:
        with self.lock:
            self.events.append(("screen", (tag, screen)))

    def on_output(self, data: bytes) -> None:
        with self.lock:
            self.events.append(("output", data))

    def on_size(self, cols: int, rows: int) -> None:
        with self.lock:
            self.events.append(("size", (cols, rows)))

    def on_end(self, reason: str) -> None:
        with self.lock:
            self.events.append(("end", reason))

    def of(self, kind: str) -> list[Any]:
        with self.lock:
            return [value for k, value in self.events if k == kind]

    def output_after_screen(self) -> bytes:
        with self.lock:
            kinds = [k for k, _ in self.events]
            start = kinds.index("screen") if "screen" in kinds else len(kinds)
            return b"".join(v for k, v in self.events[start:] if k == "output")


def fake_run(workdir: Path, **options: Any) -> Run:
    run = Run("fake", cwd=workdir, **options)
    if not options.get("ask"):
        local_parts(run).chat.wait_ready(10)
    return run


def window_size(terminal: TmuxTerminal) -> str:
    return terminal.runner.tmux(
        "display-message", "-p", "-t", terminal.target, "#{window_width}x#{window_height}"
    ).strip()


def clients(terminal: TmuxTerminal) -> list[str]:
    return terminal.runner.tmux("list-clients", "-F", "#{client_name}").split()


def test_a_viewer_gets_the_screen_then_the_live_output(lab_home: Path, workdir: Path) -> None:
    run = fake_run(workdir)
    recorder = Recorder()
    stream = PaneStream(run.pane, recorder)
    try:
        stream.start(90, 25)
        assert retry_until(lambda: window_size(run.pane) == "90x25", 5)
        stream.request_screen("v1")
        assert retry_until(lambda: bool(recorder.of("screen")), 5)
        tag, screen = recorder.of("screen")[0]
        assert tag == "v1" and (screen.cols, screen.rows) == (90, 25)
        assert screen.lines[0].startswith(b"> ")
        run.send("hello there")
        assert run.wait(timeout=10) == "idle"
        assert retry_until(lambda: b"echo: hello there" in recorder.output_after_screen(), 5)
        assert (90, 25) in recorder.of("size")
    finally:
        stream.close()
        run.stop()


COUNTER = textwrap.dedent(
    """
    import sys, time
    for i in range(1_000_000):
        sys.stdout.write(f"{i}\\n")
        sys.stdout.flush()
        time.sleep(0.001)
    """
)


def test_the_first_screen_and_the_stream_join_without_gap_or_repeat(lab_home: Path) -> None:
    # A program printing consecutive numbers: the screen's numbers, then the output that
    # follows it, must count on without a number lost or seen twice.
    terminal = runner().spawn("counter", [sys.executable, "-c", COUNTER], {}, Path.cwd())
    recorder = Recorder()
    stream = PaneStream(terminal, recorder)
    try:
        stream.start(40, 10)
        time.sleep(0.3)
        stream.request_screen("v")
        assert retry_until(lambda: len(recorder.output_after_screen()) > 2000, 10)
        _, screen = recorder.of("screen")[0]
        x, y = screen.cursor
        visible = b"\n".join(screen.lines[: y + 1])
        cursor_line = screen.lines[y][:x]
        # The output goes on from the cursor: the partial line it left, then new lines.
        text = visible[: len(visible) - len(screen.lines[y])] + cursor_line
        text += recorder.output_after_screen().replace(b"\r\n", b"\n")
        numbers = [int(n) for n in re.findall(rb"^\d+$", text, re.MULTILINE)[:-1]]
        assert len(numbers) > 100
        assert numbers == list(range(numbers[0], numbers[0] + len(numbers)))
    finally:
        stream.close()
        terminal.kill()


def test_the_window_follows_the_view_and_gets_its_own_size_back(
    lab_home: Path, workdir: Path
) -> None:
    run = fake_run(workdir)
    stream = PaneStream(run.pane, Recorder())
    try:
        assert window_size(run.pane) == "200x50"
        stream.start(120, 40)
        assert retry_until(lambda: window_size(run.pane) == "120x40", 5)
        stream.resize(70, 20)
        assert retry_until(lambda: window_size(run.pane) == "70x20", 5)
        stream.close()
        assert retry_until(lambda: window_size(run.pane) == "200x50", 5)
        assert clients(run.pane) == []
        # A terminal attached later still follows its own size, as before.
        option = run.pane.runner.tmux("show-options", "-w", "-t", run.pane.target)
        assert "window-size" not in option
    finally:
        stream.close()
        run.stop()


WATCHER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from lab_widget._runtime._tmux import TmuxRunner
    from lab_widget._runtime._pane_stream import PaneStream

    class Quiet:
        def on_screen(self, tag, screen): pass
        def on_output(self, data): pass
        def on_size(self, cols, rows): pass
        def on_end(self, reason): pass

    terminal = TmuxRunner(Path(sys.argv[1])).terminal(sys.argv[2])
    PaneStream(terminal, Quiet()).start(60, 15)
    print("watching", flush=True)
    time.sleep(600)
    """
)


def test_a_kernel_that_dies_while_watching_leaves_the_pane_at_its_own_size(
    lab_home: Path, workdir: Path
) -> None:
    run = fake_run(workdir)
    kernel = subprocess.Popen(
        [sys.executable, "-c", WATCHER, str(run.pane.runner.socket_path), run.pane.session_name],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    try:
        assert kernel.stdout is not None
        assert kernel.stdout.readline().strip() == "watching"
        assert retry_until(lambda: window_size(run.pane) == "60x15", 5)
        kernel.send_signal(signal.SIGKILL)  # no close, no cleanup: the way a kernel dies
        kernel.wait(10)
        assert retry_until(lambda: window_size(run.pane) == "200x50", 10)
        assert retry_until(lambda: clients(run.pane) == [], 5)
        run.send("still here")
        assert run.wait(timeout=10) == "idle"
        assert run.messages[-1].text == "echo: still here"
    finally:
        kernel.kill()
        run.stop()


def test_keys_typed_in_the_terminal_reach_the_agent_and_the_chat(
    lab_home: Path, workdir: Path
) -> None:
    run = fake_run(workdir)
    recorder = Recorder()
    stream = PaneStream(run.pane, recorder)
    try:
        stream.start(80, 24)
        stream.request_screen("v")
        # What a terminal sends: text, a typo fixed with Backspace, then Enter.
        stream.send(b"typx\x7fed in the terminal\r")
        assert run.wait_for(lambda r: len(r.messages) == 2, 10)
        assert [m.text for m in run.messages] == [
            "typed in the terminal",
            "echo: typed in the terminal",
        ]
        assert retry_until(lambda: b"echo: typed in" in recorder.output_after_screen(), 5)
        # Esc is a key like any other: the agent records it as an interrupt.
        stream.send(b"\x1b")
        assert run.wait_for(lambda r: r.messages[-1].text == "Interrupted", 10)
    finally:
        stream.close()
        run.stop()


@pytest.mark.parametrize("settle", [None, 1.5])
def test_a_start_up_screen_answered_in_the_terminal_lets_the_run_go_on(
    lab_home: Path, workdir: Path, settle: float | None
) -> None:
    # With a settle, the agent counts as ready only a moment after it says so, and no
    # further event comes: the chat must still notice, by itself.
    run = fake_run(workdir, ask=True, **({"ready_settle": settle} if settle else {}))
    recorder = Recorder()
    stream = PaneStream(run.pane, recorder)
    try:
        assert run.state == "needs_input"
        assert "trust this folder" in run.state_reason
        stream.start(80, 24)

        def asked() -> bool:
            # What the user sees before answering: the question on the screen.
            stream.request_screen("v")
            time.sleep(0.1)
            return any(b"Trust this folder?" in b"".join(s.lines) for _, s in recorder.of("screen"))

        assert retry_until(asked, 10)
        stream.send(b"y")
        assert run.wait_for(lambda r: r.state == "idle", 10)
        run.send("after the screen")
        assert run.wait(timeout=10) == "idle"
        assert run.messages[-1].text == "echo: after the screen"
    finally:
        stream.close()
        run.stop()


# -- the feed, through the chat view's comm ------------------------------------------------


def term_messages(comm: RecordingComm) -> list[tuple[dict[str, Any], list[bytes]]]:
    return [(c, b) for c, b in comm.customs_with_buffers() if c.get("kind") == "term"]


def term_bytes(comm: RecordingComm) -> int:
    return sum(
        size
        for kind, data, size in comm.sent
        if kind == "comm_msg"
        and data.get("method") == "custom"
        and data.get("content", {}).get("kind") == "term"
    )


def open_view(run: Run, comms: list[RecordingComm]) -> tuple[RunView, RecordingComm]:
    view = run.view
    comm = next(c for c in comms if c.comm_id == view.comm.comm_id)
    return view, comm


def say(view: RunView, **content: Any) -> None:
    view._on_message({"kind": "term", **content})


def test_closed_the_terminal_costs_nothing_over_a_busy_run(
    lab_home: Path, workdir: Path, comms: list[RecordingComm]
) -> None:
    run = fake_run(workdir)
    try:
        view, comm = open_view(run, comms)
        assert view.has_terminal
        for i in range(20):
            run.send(f"busy message {i}")
        assert run.wait_for(lambda r: len(r.messages) == 40, 30)
        assert term_bytes(comm) == 0
        assert clients(run.pane) == []
        assert not [t for t in threading.enumerate() if t.name.startswith("lab-widget-term")]
        # Open, watch, close: then nothing again.
        say(view, op="open", viewer="v1", cols=80, rows=24)
        assert retry_until(lambda: any(c["op"] == "screen" for c, _ in term_messages(comm)), 5)
        say(view, op="close", viewer="v1")
        assert retry_until(lambda: clients(run.pane) == [], 5)
        assert retry_until(lambda: not view._terminal.streaming, 5)
        before = term_bytes(comm)
        for i in range(10):
            run.send(f"after closing {i}")
        assert run.wait_for(lambda r: len(r.messages) == 60, 30)
        assert term_bytes(comm) == before
    finally:
        run.stop()


def test_the_feed_streams_to_viewers_and_takes_keys_from_them(
    lab_home: Path, workdir: Path, comms: list[RecordingComm]
) -> None:
    run = fake_run(workdir)
    try:
        view, comm = open_view(run, comms)
        say(view, op="open", viewer="v1", cols=100, rows=30)
        assert retry_until(lambda: any(c["op"] == "screen" for c, _ in term_messages(comm)), 5)
        screen, data = next((c, b) for c, b in term_messages(comm) if c["op"] == "screen")
        assert (screen["viewer"], screen["cols"], screen["rows"], screen["live"]) == (
            "v1",
            100,
            30,
            True,
        )
        assert data[0].startswith(b"> ")
        say(view, op="input", viewer="v1", data="from the view\r")
        assert run.wait_for(lambda r: len(r.messages) == 2, 10)
        assert run.messages[0].text == "from the view"

        def outputs() -> bytes:
            return b"".join(b[0] for c, b in term_messages(comm) if c["op"] == "output")

        assert retry_until(lambda: b"echo: from the view" in outputs(), 5)
        # A paste goes the runner's way: one bracketed paste, its line break never submits.
        say(view, op="paste", viewer="v1", text="two\nlines")
        say(view, op="input", viewer="v1", data="\r")
        assert run.wait_for(lambda r: len(r.messages) == 4, 10)
        assert run.messages[2].text == "two\nlines"
        # A second viewer shares the stream; the pane follows the latest size.
        say(view, op="open", viewer="v2", cols=70, rows=20)
        assert retry_until(lambda: window_size(run.pane) == "70x20", 5)
        assert len(clients(run.pane)) == 1
        say(view, op="close", viewer="v2")
        time.sleep(0.3)
        assert view._terminal.streaming
        say(view, op="close", viewer="v1")
        assert retry_until(lambda: not view._terminal.streaming, 5)
        assert retry_until(lambda: window_size(run.pane) == "200x50", 5)
    finally:
        run.stop()


def test_input_from_a_front_end_that_is_not_watching_is_dropped(
    lab_home: Path, workdir: Path, comms: list[RecordingComm]
) -> None:
    run = fake_run(workdir)
    try:
        view, _ = open_view(run, comms)
        say(view, op="input", viewer="stranger", data="sneaky\r")
        time.sleep(1.0)
        assert run.messages == []
        assert clients(run.pane) == []
        # Another front end watching does not make a stranger's keys its own.
        say(view, op="open", viewer="watcher", cols=80, rows=24)
        assert retry_until(lambda: view._terminal.streaming, 5)
        say(view, op="input", viewer="stranger", data="sneaky\r")
        say(view, op="resize", viewer="stranger", cols=20, rows=5)
        time.sleep(1.0)
        assert run.messages == []
        assert window_size(run.pane) == "80x24"
        assert view._terminal.viewers == ["watcher"]
        say(view, op="input", viewer="watcher", data="mine\r")
        assert run.wait_for(lambda r: [m.text for m in r.messages][:1] == ["mine"], 10)
    finally:
        run.stop()


def test_a_viewer_that_stops_pinging_is_dropped(
    lab_home: Path, workdir: Path, comms: list[RecordingComm], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(feed_module, "LEASE", 1.0)
    run = fake_run(workdir)
    try:
        view, _ = open_view(run, comms)
        say(view, op="open", viewer="gone", cols=80, rows=24)
        assert retry_until(lambda: view._terminal.streaming, 5)
        # Its tab closed without a word: the lease runs out and the stream stops.
        assert retry_until(lambda: not view._terminal.streaming, 10)
        assert retry_until(lambda: clients(run.pane) == [], 5)
        assert window_size(run.pane) == "200x50"
        # A ping from a viewer the kernel forgot (a laptop that slept) opens it again.
        say(view, op="ping", viewer="gone", cols=80, rows=24)
        assert retry_until(lambda: view._terminal.streaming, 5)
    finally:
        run.stop()


def test_an_ended_run_shows_its_last_screen(
    lab_home: Path, workdir: Path, comms: list[RecordingComm]
) -> None:
    run = fake_run(workdir)
    view, comm = open_view(run, comms)
    say(view, op="open", viewer="v1", cols=80, rows=24)
    assert retry_until(lambda: view._terminal.streaming, 5)
    run.send("last words")
    assert run.wait(timeout=10) == "idle"
    run.send("/quit")
    assert run.wait_for(lambda r: r.state == "ended", 15)
    # Watching when it ended: told so.
    assert retry_until(lambda: any(c["op"] == "ended" for c, _ in term_messages(comm)), 5)
    assert retry_until(lambda: not view._terminal.streaming, 5)
    # Opened afterwards: its last screen, not live.
    comm.clear()
    say(view, op="open", viewer="v2", cols=80, rows=24)
    assert retry_until(lambda: any(c["op"] == "screen" for c, _ in term_messages(comm)), 5)
    screen, data = next((c, b) for c, b in term_messages(comm) if c["op"] == "screen")
    assert screen["live"] is False
    assert b"echo: last words" in data[0]
    assert any(c["op"] == "ended" for c, _ in term_messages(comm))


def test_a_view_without_a_pane_says_so(comms: list[RecordingComm]) -> None:
    view = RunView(StubSource())
    comm = comms[-1]
    assert view.has_terminal is False
    say(view, op="open", viewer="v1", cols=80, rows=24)
    assert retry_until(lambda: any(c["op"] == "error" for c, _ in term_messages(comm)), 5)
    error = next(c for c, _ in term_messages(comm) if c["op"] == "error")
    assert error["viewer"] == "v1" and "no terminal" in error["message"]
    view.close()


def test_the_dashboard_opens_a_run_with_its_terminal(
    lab_home: Path, workdir: Path, comms: list[RecordingComm]
) -> None:
    run = fake_run(workdir)
    board = RunsDashboard([run])
    try:
        done = threading.Event()
        original = board.table.send

        def capture(content: dict[str, Any], buffers: Any = None) -> None:
            done.set()
            original(content, buffers)

        board.table.send = capture
        message = {"kind": "action", "id": "a1", "action": "open", "run_id": run.id}
        board._on_custom(board.table, {**message, "pane": "terminal"}, [])
        assert done.wait(20)
        assert board.children[-1] is run.view
        assert run.view.terminal_reveal != ""
        # Nothing streams until the pane's front end opens it.
        assert clients(run.pane) == []
    finally:
        board.close()
        run.stop()


def test_two_watchers_one_closes_the_other_dies_the_size_comes_back(
    lab_home: Path, workdir: Path
) -> None:
    # Two kernels watching one run: one closes cleanly, then the other dies.
    run = fake_run(workdir)
    first, second = PaneStream(run.pane, Recorder()), PaneStream(run.pane, Recorder())
    try:
        first.start(90, 25)
        second.start(70, 20)
        assert retry_until(lambda: window_size(run.pane) == "70x20", 5)
        first.close()
        assert len(clients(run.pane)) == 1
        client = second._client
        assert client is not None and client._proc is not None
        client._proc.kill()  # the second kernel's client dies with it
        assert retry_until(lambda: window_size(run.pane) == "200x50", 10), window_size(run.pane)
    finally:
        first.close()
        second.close()
        run.stop()
