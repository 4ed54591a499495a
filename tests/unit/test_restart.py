"""Unit: ``Run.restart`` puts a new agent under the same run (the chat header's kernel tools
switch), over the fake agent under real tmux."""

from __future__ import annotations

from pathlib import Path

import pytest

import lab_widget
from lab_widget import Run
from lab_widget._chat._session import ChatEvent
from lab_widget._run._local import LocalBackend
from lab_widget._run._runs import adopt
from lab_widget._widgets._dashboard import RunsDashboard
from lab_widget.errors import KernelToolsError, NotRestartableError, TmuxError
from tests.support.local import local_parts
from tests.support.recording import RecordingComm, from_browser
from tests.support.waiting import retry_until


def said(run: Run, text: str) -> None:
    local_parts(run).chat.wait_ready(10)
    run.send(text)
    assert run.wait_for(lambda r: any(m.text == f"echo: {text}" for m in r.messages), 10)


def test_a_restart_is_a_new_agent_under_the_same_run_and_the_conversation_stays(
    lab_home: Path, workdir: Path, comms: list[RecordingComm]
) -> None:
    with Run("fake", cwd=workdir) as run:
        view = run.view
        heard: list[ChatEvent] = []
        run.subscribe(heard.append)
        board = RunsDashboard(lab_widget.runs())
        try:
            said(run, "hello")
            before = run.messages
            first_id, first_pane, lock, workspace = run.id, run.pane, run.lock, run.workspace
            first_transcript = run.transcript_id
            comm = next(c for c in comms if c is view.comm)
            comm.clear()

            run.restart()

            assert run.id != first_id and run.pane.alive()
            assert retry_until(lambda: not first_pane.alive(), 10)
            assert run.state != "ended" and run.messages == []
            # One lock for the run's life (its views hold it), its workspace carried over.
            assert run.lock is lock and run.workspace is workspace
            assert [(e.transcript_id, e.messages) for e in run.past_conversations] == [
                (first_transcript, before)
            ]
            assert [c.messages for c in run.history()] == [before]
            assert [r.transcript_id for r in run.past_epochs] == [first_transcript]
            # The view was told of a new conversation naming the old one, and follows the
            # new session.
            resets = [c for c in comm.customs() if c.get("kind") == "delta" and c["reset"]]
            assert resets and resets[-1]["past"] == [first_transcript]
            assert view.attach_command == run.attach_command and first_id not in run.attach_command
            # The dashboard lists the run under its new id, once.
            assert retry_until(lambda: [r["id"] for r in board.table.rows] == [run.id], 10)

            # Listeners of the run hear its new agent.
            heard.clear()
            said(run, "again")
            assert any(m.text == "again" for e in heard for m in e.changed)
            assert [m.text for m in run.messages if m.role == "user"] == ["again"]
        finally:
            board.close()


def test_a_watched_terminal_follows_the_new_session_and_a_failed_start_changes_nothing(
    lab_home: Path, workdir: Path, comms: list[RecordingComm], monkeypatch: pytest.MonkeyPatch
) -> None:
    with Run("fake", cwd=workdir) as run:
        view = run.view
        try:
            comm = next(c for c in comms if c is view.comm)

            def screens() -> list[dict[str, object]]:
                return [
                    c for c in comm.customs() if c.get("kind") == "term" and c["op"] == "screen"
                ]

            local_parts(run).chat.wait_ready(10)
            open_pane = {"kind": "term", "op": "open", "viewer": "v1", "cols": 90, "rows": 20}
            from_browser(view, open_pane)
            assert retry_until(lambda: bool(screens()), 10)
            comm.clear()
            states: list[str] = []
            view.observe(lambda change: states.append(change["new"]), names="state")
            run.restart()
            # The viewer gets the new session's screen, live, and never hears of an end.
            assert retry_until(lambda: bool(screens()), 10)
            assert screens()[-1]["viewer"] == "v1" and screens()[-1]["live"] is True
            ended = [c for c in comm.customs() if c.get("kind") == "term" and c["op"] == "ended"]
            assert ended == []
            assert "ended" not in states

            # A new agent that cannot start leaves the one the run has.
            def cannot_start(*_args: object, **_kwargs: object) -> None:
                raise TmuxError("no server")

            monkeypatch.setattr(LocalBackend, "start", cannot_start)
            second_id = run.id
            with pytest.raises(TmuxError):
                run.restart()
            assert run.id == second_id and run.pane.alive() and run.state != "ended"
        finally:
            view.close()  # its terminal's worker thread goes with it


def test_the_header_switch_restarts_through_an_action_and_refusals_stop_nothing(
    lab_home: Path, workdir: Path, comms: list[RecordingComm]
) -> None:
    with Run("fake", cwd=workdir) as run:
        view = run.view
        # The fake agent takes no tool servers: no switch, and a restart with them is refused
        # before the agent it has is stopped.
        assert run.kernel_tools is None and view.kernel_tools is None
        first_id = run.id
        with pytest.raises(KernelToolsError):
            run.restart(kernel=True)
        assert run.id == first_id and run.pane.alive()

        comm = next(c for c in comms if c is view.comm)
        from_browser(view, {"kind": "action", "id": "r1", "action": "restart", "kernel": False})

        def results() -> list[dict[str, object]]:
            return [c for c in comm.customs() if c.get("kind") == "result"]

        assert retry_until(lambda: bool(results()), 30)
        assert results() == [{"kind": "result", "id": "r1", "ok": True}]
        assert run.id != first_id and run.pane.alive()


def test_a_run_adopted_from_its_record_cannot_be_restarted(lab_home: Path, workdir: Path) -> None:
    with Run("fake", cwd=workdir, name="adopted") as run:
        # What a later kernel holds: a run over the record this one left.
        parts = local_parts(run)
        other = adopt(parts.record, parts.terminal)
        assert other.kernel_tools is None
        with pytest.raises(NotRestartableError, match="start a new Run"):
            other.restart()
        assert run.pane.alive()
