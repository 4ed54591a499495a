"""Run, chat brain, runner and tailer over the seam: a fake agent under real tmux."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest

import lab_widget
import lab_widget._run._launch
from lab_widget import (
    CLINotFoundError,
    Run,
    RunEndedError,
    RunStoppedWarning,
    UnknownProviderError,
    WaitTimeoutError,
    runs,
)
from lab_widget._home import Holder
from lab_widget._runtime._tmux import sanitize_input
from tests.support.cpu_hog import cpu_hog
from tests.support.local import local_parts
from tests.support.paths import ROOT
from tests.support.waiting import retry_until

CLEARS = 20
"""Clears in a row: enough that a race of one in a few runs shows."""


def fake_run(workdir: Path) -> Run:
    run = Run("fake", cwd=workdir)
    local_parts(run).chat.wait_ready(10)
    return run


def test_send_echo_and_idle(lab_home: Path, workdir: Path) -> None:
    with fake_run(workdir) as run:
        run.send("hello")
        assert run.wait(timeout=10) == "idle"
        assert [(m.role, m.text) for m in run.messages] == [
            ("user", "hello"),
            ("assistant", "echo: hello"),
        ]
        assert run.transcript_id == "fake"


def test_a_with_block_stops_the_agent_even_when_it_fails(lab_home: Path, workdir: Path) -> None:
    with pytest.raises(ZeroDivisionError), fake_run(workdir) as run:
        run.send("hello")
        assert run.wait(timeout=10) == "idle"
        1 / 0  # noqa: B018 - the block fails; the agent must not outlive it
    assert run.state == "ended"
    assert not lab_widget._run._launch.runner().server.has_session(run.id)


HOSTILE = "a; $(rm -rf /) `x` C-c Enter\n\x03\x1b[201~tail\x1b\x07\r\nline3\ttab"


def test_text_is_delivered_literally_as_one_submission(lab_home: Path, workdir: Path) -> None:
    with fake_run(workdir) as run:
        run.send(HOSTILE)
        assert run.wait(timeout=10) == "idle"
        users = [m.text for m in run.messages if m.role == "user"]
        assert users == [sanitize_input(HOSTILE)]
        assert users[0] == "a; $(rm -rf /) `x` C-c Enter\n[201~tail\nline3\ttab"
        assert not any(m.kind == "lifecycle" for m in run.messages)  # no interrupt happened


def test_interrupt_reaches_the_agent(lab_home: Path, workdir: Path) -> None:
    with fake_run(workdir) as run:
        run.interrupt()
        assert run.wait_for(lambda r: any(m.text == "Interrupted" for m in r.messages), 10)


def test_events_are_pushed_to_subscribers(lab_home: Path, workdir: Path) -> None:
    run = fake_run(workdir)
    seen: list[str] = []
    unsubscribe = run.subscribe(lambda e: seen.extend(m.text for m in e.changed))
    try:
        run.send("ping")
        run.wait(timeout=10)
        assert run.wait_for(lambda r: "echo: ping" in seen, 5)
        unsubscribe()
        run.send("pong")
        run.wait(timeout=10)
        assert "echo: pong" not in seen
    finally:
        run.stop()


def test_killed_session_ends_within_two_seconds(lab_home: Path, workdir: Path) -> None:
    run = fake_run(workdir)
    socket = str(local_parts(run).terminal.runner.socket_path)
    subprocess.run(["tmux", "-S", socket, "kill-session", "-t", run.id], check=True)
    started = time.monotonic()
    assert run.wait_for(lambda r: r.state == "ended", 2.0)
    assert time.monotonic() - started < 2.0
    with pytest.raises(RunEndedError):
        run.send("anyone?")


def test_agent_that_exits_by_itself_is_ended(lab_home: Path, workdir: Path) -> None:
    run = fake_run(workdir)
    run.send("/quit")
    assert run.wait_for(lambda r: r.state == "ended", 5)
    assert run.messages[-1].text == "/quit"


def test_agent_that_fails_to_start_says_why(
    lab_home: Path, workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_AGENT_FAIL", "fatal: no such model 'x'")
    run = Run("fake", cwd=workdir)
    with pytest.raises(RunEndedError, match=r"(?s)before it was ready.*fatal: no such model 'x'"):
        run.send("hello")
    assert run.state == "ended"
    assert run.state_reason.endswith("continue.\nfatal: no such model 'x'")
    assert run.view.state_reason == run.state_reason
    # The kept pane is dropped once read: no session of the run is left behind.
    runner = lab_widget._run._launch.runner()
    assert not runner.server.has_session(run.id)
    assert runs() == []


def test_a_pane_kept_without_a_watcher_is_not_live_and_frees_its_name(
    lab_home: Path, workdir: Path
) -> None:
    # No kernel watches this agent (as after a restart): when it ends, its pane stays.
    runner = lab_widget._run._launch.runner()
    terminal = runner.spawn("kept", ["sh", "-c", "echo last words"], {}, workdir)
    assert retry_until(lambda: "kept" not in runner.sessions(), 5)
    assert "kept" in runner.tmux("list-sessions", "-F", "#{session_name}").split()
    assert terminal.last_words() == "last words"
    assert not terminal.alive() and terminal.pid() is None
    # A new agent takes the name.
    again = runner.spawn("kept", ["sleep", "30"], {}, workdir)
    try:
        assert again.alive() and "kept" in runner.sessions()
    finally:
        again.kill()


def test_runs_returns_live_runs_once(lab_home: Path, workdir: Path) -> None:
    with fake_run(workdir) as run:
        assert runs() == [run]
        assert lab_widget.get_run(run.id) is run
    assert runs() == []


def test_readopted_in_a_fresh_process(lab_home: Path, workdir: Path) -> None:
    with fake_run(workdir) as run:
        run.send("remember me")
        run.wait(timeout=10)
        script = (
            f"import sys; sys.path.insert(0, {str(ROOT)!r})\n"
            "from tests.conftest import *\n"
            "import lab_widget\n"
            "[r] = lab_widget.runs()\n"
            "print(r.id, '|'.join(m.text for m in r.messages))\n"
        )
        out = subprocess.run(
            [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=60
        ).stdout.strip()
        assert out == f"{run.id} remember me|echo: remember me"


def test_a_run_followed_here_is_stopped_once_its_models_kernel_has_ended(
    lab_home: Path, workdir: Path
) -> None:
    # A process that listed a run (a dashboard in another notebook) follows it: when the
    # kernel serving its model ends, the next runs() there stops it as any other would.
    with fake_run(workdir) as run:
        gone = subprocess.Popen(["true"])
        gone.wait()
        local_parts(run).held_by(Holder(pid=gone.pid, started=None))
        with pytest.warns(RunStoppedWarning, match="kernel that has ended"):
            assert runs() == []
        assert run.wait_for(lambda r: r.state == "ended", timeout=10)


def test_unknown_provider_lists_known_ones(lab_home: Path, workdir: Path) -> None:
    with pytest.raises(UnknownProviderError, match="claude-code"):
        Run("no-such-agent", cwd=workdir)


def test_missing_cli_names_the_install_command(
    lab_home: Path, workdir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with monkeypatch.context() as patch:
        patch.setenv("LAB_WIDGET_TOOLS", str(tmp_path / "no-tools"))
        patch.setenv("PATH", str(tmp_path / "empty-bin"))
        with pytest.raises(CLINotFoundError, match="install-clis"):
            Run("claude-code", cwd=workdir)


def test_cwd_must_exist(lab_home: Path, tmp_path: Path) -> None:
    with pytest.raises(lab_widget.LabWidgetError, match="not a folder"):
        Run("fake", cwd=tmp_path / "missing")


def test_clear_follows_the_new_epoch(lab_home: Path, workdir: Path) -> None:
    with fake_run(workdir) as run:
        run.send("hello")
        run.wait(timeout=10)
        run.clear()
        # The new file can be seen before its first line is written: wait covers both.
        assert run.wait(timeout=10) == "idle"
        assert run.transcript_id == "fake-1"
        assert [(m.text, m.command) for m in run.messages] == [("/clear", "/clear")]
        assert run.state == "idle"
        assert [m.text for m in run.history()[0].messages] == ["hello", "echo: hello"]


def test_wait_after_each_of_many_clears_returns_on_the_new_epoch_with_its_echo(
    lab_home: Path, workdir: Path
) -> None:
    # Beside two busy processes, as on a loaded laptop: the new transcript file shows
    # before its first line is written, and the echo lands a moment after the Enter.
    run = fake_run(workdir)
    try:
        with cpu_hog(2):
            for epoch in range(1, CLEARS + 1):
                if epoch % 2:
                    run.clear()
                else:
                    run.send(run.clear_command)
                assert run.wait(timeout=30) == "idle", epoch
                assert run.transcript_id == f"fake-{epoch}", epoch
                assert [m.command for m in run.messages] == ["/clear"], epoch
                assert run.state == "idle", epoch
        assert len(run.past_conversations) == CLEARS
    finally:
        run.stop()


def forgetting(run: Run, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Make ``/forget`` the run's clear command (the fake agent records it in place, as a
    reply) and return the run's folder, where a test writes the new epoch itself.
    """
    meta = dataclasses.replace(run.provider.meta, clear_command="/forget")
    monkeypatch.setattr(run.provider, "meta", meta)
    return local_parts(run).context.runtime_dir


def test_a_clear_is_work_until_a_new_epoch_shows_its_echo(
    lab_home: Path, workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = fake_run(workdir)
    folder = forgetting(run, monkeypatch)
    try:
        run.send("/forget")
        # Its echo in the old epoch, then a new epoch with no line yet: still a clear.
        assert run.wait_for(lambda r: any(m.command for m in r.messages), 10)
        (folder / "transcript.1.jsonl").touch()
        assert run.wait_for(lambda r: r.transcript_id == "fake-1", 10)
        assert run.state == "working"
        with pytest.raises(WaitTimeoutError):
            run.wait(timeout=0.5)
        with (folder / "transcript.1.jsonl").open("a") as f:
            f.write(json.dumps({"type": "user", "text": "/forget"}) + "\n")
        assert run.wait(timeout=10) == "idle"
        assert [m.command for m in run.messages] == ["/forget"]
    finally:
        run.stop()


def test_a_clear_that_never_shows_stops_counting_after_its_grace(
    lab_home: Path, workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = fake_run(workdir)
    forgetting(run, monkeypatch)
    monkeypatch.setattr(run.provider, "clear_grace", 1.0)
    try:
        run.send("/forget")
        assert run.state == "working"
        assert run.wait(timeout=10) == "idle"
        assert run.transcript_id == "fake"
    finally:
        run.stop()


def test_a_state_changed_by_time_alone_reaches_the_listeners(
    lab_home: Path, workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No read of the agent follows a clear that never shows: the chat view learns the run
    is idle again from the run itself, with nobody waiting on it."""
    run = fake_run(workdir)
    forgetting(run, monkeypatch)
    monkeypatch.setattr(run.provider, "clear_grace", 1.0)
    states: list[str] = []
    run.subscribe(lambda event: states.append(event.state))
    try:
        run.send("/forget")
        assert retry_until(lambda: states[-1:] == ["idle"], 10), states
        assert "working" in states
    finally:
        run.stop()


def test_a_clear_recorded_only_with_the_next_message_is_settled_once_submitted(
    lab_home: Path, workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = fake_run(workdir)
    forgetting(run, monkeypatch)
    monkeypatch.setattr(run.provider, "clear_opens_epoch", lambda context: False)
    try:
        run.send("/forget")
        assert run.state == "idle"
        assert run.wait(timeout=1) == "idle"
    finally:
        run.stop()


def test_a_clear_keeps_the_conversation_for_the_chat_and_the_export(
    lab_home: Path, workdir: Path, comms: list[object]
) -> None:
    with fake_run(workdir) as run:
        view = run.view
        run.send("hello")
        run.wait(timeout=10)
        run.clear()
        assert run.wait(timeout=10) == "idle"  # the new epoch with its echo
        [earlier] = run.past_conversations
        assert [m.text for m in earlier.messages] == ["hello", "echo: hello"]
        # What a notebook opened now (or saved now) gets: both conversations.
        snapshot = view._snapshot_payload()
        assert [p["transcript_id"] for p in snapshot["past"]] == [earlier.transcript_id]
        assert "1 earlier conversation, 2 messages" in view.as_text()
        path = run.export(workdir / "run.ipynb")
        nb = nbformat.read(path, as_version=4)
        nbformat.validate(nb)
        text = "\n".join(c.source for c in nb.cells)
        assert "## Conversation 1 of 2" in text and "## Conversation 2 of 2" in text
        assert text.index("echo: hello") < text.index("`/clear`")


def test_send_with_context_types_the_expanded_prompt(lab_home: Path, workdir: Path) -> None:
    with fake_run(workdir) as run:
        run.send("double @n, keep @token", context={"n": 21, "token": "abc"})
        assert run.wait(timeout=10) == "idle"
        [prompt] = [m.text for m in run.messages if m.role == "user"]
        assert prompt.startswith("double `n`, keep `token`\n\nNotebook variables mentioned")
        assert "`n`: int = 21" in prompt
        assert "`token`: not expanded: its name looks like a secret." in prompt
        assert "abc" not in prompt


def test_a_paste_and_its_enter_are_one_tmux_process(lab_home: Path, workdir: Path) -> None:
    run = fake_run(workdir)
    runner = run.pane.runner
    inner = runner.tmux
    calls: list[tuple[str, ...]] = []

    def counted(*args: str, data: bytes | None = None) -> str:
        calls.append(args)
        return inner(*args, data=data)

    runner.tmux = counted  # type: ignore[method-assign]
    try:
        run.pane.paste_keys("one line\nand another", "Enter")
        assert run.wait_for(lambda r: len(r.messages) == 2, 10)
        assert [m.text for m in run.messages if m.role == "user"] == ["one line\nand another"]
        assert len(calls) == 1, calls
        assert calls[0][0] == "display-message"  # the alive check comes first
    finally:
        run.stop()
    with pytest.raises(RunEndedError):
        run.pane.paste_keys("after the end", "Enter")
    with pytest.raises(RunEndedError):
        run.pane.keys("Enter")


def test_an_idle_timeout_stops_a_run_left_idle_and_says_so(lab_home: Path, workdir: Path) -> None:
    with pytest.raises(ValueError, match="positive number of seconds"):
        Run("fake", cwd=workdir, idle_timeout=0)
    assert lab_widget.runs() == []  # refused before anything started
    with pytest.warns(RunStoppedWarning, match="idle for 3 s") as said:
        run = Run("fake", cwd=workdir, idle_timeout=3)
        local_parts(run).chat.wait_ready(10)
        # Each message starts the count again: working on, it outlives its timeout.
        for text in ("one", "two", "three", "four", "five"):
            run.send(text)
            assert run.wait(timeout=10) == "idle"
            time.sleep(0.8)  # idle, not long enough
        assert run.state == "idle"
        # The warning comes from the timer's thread right after the stop: wait for both.
        assert retry_until(lambda: run.state == "ended" and len(said) > 0, 10)
    assert run.id in str(said[0].message)
    assert not lab_widget._run._launch.runner().server.has_session(run.id)
