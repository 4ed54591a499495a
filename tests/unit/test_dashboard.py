"""The runs dashboard over fake agents under real tmux (the browser side is in js/test)."""

from __future__ import annotations

import os
import threading
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, cast

import lab_widget
from lab_widget import Run
from lab_widget._home import Holder
from lab_widget._run._registry import LiveRun
from lab_widget._run._spares import pool
from lab_widget._widgets._dashboard import RunList, RunsDashboard, _row
from lab_widget.schema import SessionSummary
from tests.support.dashboard import act
from tests.support.local import local_parts
from tests.support.recording import RecordingComm, from_browser
from tests.support.waiting import retry_until


def test_runs_is_a_list_that_displays_as_a_dashboard(
    lab_home: Path, workdir: Path, comms: list[RecordingComm]
) -> None:
    with Run("fake", cwd=workdir, name="one") as run:
        listed = lab_widget.runs()
        assert isinstance(listed, RunList)
        assert listed == [run]
        bundle = listed._repr_mimebundle_()
        assert "application/vnd.jupyter.widget-view+json" in bundle
        assert bundle["text/plain"] == "RunsDashboard(1 run)"


def test_rows_follow_runs_and_their_events(
    lab_home: Path, workdir: Path, comms: list[RecordingComm]
) -> None:
    first = Run("fake", cwd=workdir, name="first")
    board = RunsDashboard(lab_widget.runs())
    try:
        assert [r["id"] for r in board.table.rows] == ["first"]
        row = board.table.rows[0]
        assert (row["provider"], row["folder"], row["path"]) == (
            first.display_name,
            workdir.name,
            str(workdir),
        )
        # A run started later joins the table.
        second = Run("fake", cwd=workdir, name="second")
        # Rows are rebuilt on the table's publisher thread.
        assert retry_until(lambda: [r["id"] for r in board.table.rows] == ["first", "second"], 10)
        local_parts(second).chat.wait_ready(10)
        second.send("hello")
        second.wait(timeout=10)
        assert first.wait_for(
            lambda _r: (
                board.table.rows[1]["state"] == "idle" and board.table.rows[1]["tokens"] >= 0
            ),
            10,
        )
        # Stopping from the table ends the run and the row says so.
        assert act(board, "stop", "second") == {"kind": "result", "id": "r1", "ok": True}
        assert second.state == "ended"
        assert board.table.rows[1]["state"] == "ended"
    finally:
        board.close()
        for run in lab_widget.runs():
            run.stop()


def test_open_shows_the_chat_below_and_errors_come_back(
    lab_home: Path, workdir: Path, comms: list[RecordingComm]
) -> None:
    run = Run("fake", cwd=workdir, name="solo")
    board = RunsDashboard([run])
    try:
        assert act(board, "open", "solo")["ok"] is True
        assert board.table.opened == "solo"
        assert list(board.children) == [board.table, run.view]
        assert act(board, "close")["ok"] is True
        assert list(board.children) == [board.table] and board.table.opened == ""
        result = act(board, "open", "ghost")
        assert result["ok"] is False and "no run 'ghost'" in result["error"]
        result = act(board, "explode", "solo")
        assert result["ok"] is False and "unknown action" in result["error"]
    finally:
        board.close()
        run.stop()


def test_two_busy_runs_and_sync_requests_never_deadlock(
    lab_home: Path, workdir: Path, comms: list[RecordingComm]
) -> None:
    """Events of two runs, the table's rows and the views' sync requests all at once."""
    runs = [Run("fake", cwd=workdir, name=f"busy-{i}") for i in range(2)]
    board = RunsDashboard(runs)
    views = [run.view for run in runs]
    try:
        for run in runs:
            local_parts(run).chat.wait_ready(10)
        stop = threading.Event()

        def sync_requests(view: Any) -> None:
            while not stop.is_set():
                from_browser(view, {"kind": "sync"})

        def chatter(run: Run) -> None:
            for i in range(15):
                run.send(f"message {i}")
                run.wait(timeout=10)

        syncers = [threading.Thread(target=sync_requests, args=(v,), daemon=True) for v in views]
        talkers = [threading.Thread(target=chatter, args=(r,), daemon=True) for r in runs]
        for thread in [*syncers, *talkers]:
            thread.start()
        for thread in talkers:
            thread.join(60)
        stop.set()
        for thread in syncers:
            thread.join(10)
        assert not any(t.is_alive() for t in [*syncers, *talkers]), "deadlocked"
        assert all(len(run.messages) == 30 for run in runs)
        assert runs[0].wait_for(
            lambda _r: [row["state"] for row in board.table.rows] == ["idle", "idle"], 10
        )
    finally:
        board.close()
        for run in runs:
            run.stop()


class _Quiet:
    """A live run as the table reads it, last heard from two hours ago (or never)."""

    id, display_name, state, cwd = "q", "Quiet", "idle", Path("/tmp/q")
    memory, started_by, started_at = None, None, None

    def __init__(self, updated_at: datetime | None) -> None:
        self.session = SessionSummary(updated_at=updated_at)


def test_last_activity_is_the_transcripts_last_change_not_when_the_table_looked() -> None:
    two_hours_ago = datetime.now(UTC) - timedelta(hours=2)
    row = _row(cast(LiveRun, _Quiet(two_hours_ago)), seen="")
    assert row["last_activity"] == two_hours_ago.isoformat(timespec="seconds")
    # Nothing in the transcript yet: what the table heard, and nothing before it heard.
    assert _row(cast(LiveRun, _Quiet(None)), seen="")["last_activity"] == ""


def test_stop_all_ends_every_listed_run_in_one_call(lab_home: Path, workdir: Path) -> None:
    runs = [Run("fake", cwd=workdir, name=f"all-{i}") for i in range(2)]
    listed = lab_widget.runs()
    assert sorted(listed.stop_all()) == ["all-0", "all-1"]
    assert [r.state for r in runs] == ["ended", "ended"]
    assert lab_widget.runs() == []
    assert listed.stop_all() == []  # nothing left to stop


def test_rows_show_the_agents_memory_and_whether_its_kernel_still_holds_it(
    lab_home: Path, workdir: Path
) -> None:
    with Run("fake", cwd=workdir, name="held") as run:
        # Run() returns while the pane's launcher still execs into the agent, whose
        # memory for that moment is a few pages: read it once the agent is up.
        assert run.wait_for(lambda r: r.state == "idle", timeout=30)
        row = _row(run, seen="")
        assert row["started_by"] == "this process" == run.started_by
        # The fake agent is a small process: some megabytes.
        assert isinstance(row["memory_bytes"], int) and row["memory_bytes"] > 100_000
        # The record another kernel reads: started by a process that has ended.
        parts = local_parts(run)
        gone = Holder(pid=2**22 + 1, started=1)
        parts.record = replace(parts.record, owner=gone)
        assert _row(run, seen="")["started_by"] == "an ended process"
        parts.record = replace(parts.record, owner=Holder(pid=os.getppid(), started=None))
        assert _row(run, seen="")["started_by"] == "another process"
    assert run.memory is None  # ended: nothing of it runs


def test_spares_are_listed_below_the_runs_with_their_age_and_memory(
    lab_home: Path, workdir: Path, comms: list[RecordingComm]
) -> None:
    listed = lab_widget.runs()
    assert listed.spares is pool
    board = RunsDashboard(listed, listed.spares)
    try:
        with Run("fake", cwd=workdir, name="busy") as run:
            lab_widget.prestart("fake", cwd=workdir)
            assert retry_until(
                lambda: [r["kind"] for r in board.table.rows] == ["run", "spare"], 15
            )
            spare_row = board.table.rows[1]
            [spare] = lab_widget.spares()
            assert spare_row["id"] == spare.id and spare_row["state"] == "spare"
            assert spare_row["folder"] == workdir.name and spare_row["tokens"] == 0
            assert isinstance(spare_row["memory_bytes"], int) and spare_row["memory_bytes"] > 0
            started = datetime.fromisoformat(board.table.rows[0]["started_at"])
            assert started == run.started_at.replace(microsecond=0)  # type: ignore[union-attr]
            assert abs(datetime.now(UTC) - started) < timedelta(minutes=1)
            # A spare has no chat to open; Stop stops it and its row goes.
            opened = act(board, "open", spare.id)
            assert opened["ok"] is False and "spare agent" in opened["error"]
            assert act(board, "stop", spare.id)["ok"] is True
            assert lab_widget.spares() == [] and not spare.alive
            assert retry_until(lambda: [r["id"] for r in board.table.rows] == ["busy"], 10)
            assert run.state != "ended"  # stopping a spare left the run alone
    finally:
        board.close()
        pool.stop_all()
