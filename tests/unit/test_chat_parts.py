"""Unit: the chat brain's parts on their own (the transcript across clears, dialogs, work)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from lab_widget._chat._dialogs import DialogOverlay
from lab_widget._chat._epochs import EpochFollow
from lab_widget._chat._pending import PENDING_GRACE, WorkMarks
from lab_widget.provider import RunContext
from lab_widget.schema import Dialog, Message, ToolCall, ToolStatus
from tests.support.fake_provider import FakeProvider


def append(path: Path, *entries: tuple[str, str]) -> None:
    with path.open("a") as out:
        for role, text in entries:
            out.write(json.dumps({"type": role, "text": text}) + "\n")


def test_the_follow_counts_prompts_and_keeps_a_cleared_conversation(tmp_path: Path) -> None:
    context = RunContext(run_id="r", cwd=tmp_path, runtime_dir=tmp_path)
    follow = EpochFollow(FakeProvider(), context)
    first = tmp_path / "transcript.jsonl"
    append(first, ("user", "hello"))
    reading = follow.read(list)
    assert (reading.reset, reading.prompted, follow.count) == (False, True, 1)
    append(first, ("assistant", "hi"))
    reading = follow.read(list)
    assert ([m.text for m in reading.changed], reading.prompted) == (["hi"], False)
    assert follow.transcript_id == "fake" and follow.past == []

    # A clear: the old conversation is kept as it was shown, with what it wrote last.
    append(first, ("assistant", "bye"))
    append(tmp_path / "transcript.1.jsonl", ("user", "again"))
    reading = follow.read(lambda ms: [m.model_copy(update={"text": m.text.upper()}) for m in ms])
    assert (reading.reset, reading.prompted, follow.count) == (True, True, 1)
    assert follow.transcript_id == "fake-1"
    assert [ref.transcript_id for ref in follow.past_refs] == ["fake"]
    assert [m.text for m in follow.past[0].messages] == ["HELLO", "HI", "BYE"]
    assert [m.text for m in follow.messages] == ["again"]


def tool_message(status: ToolStatus = "running") -> Message:
    tool = ToolCall(id="t1", name="Bash", status=status)
    return Message(seq=3, kind="tool", role="assistant", tool=tool)


def test_a_signalled_permission_prompt_shows_its_call_as_a_dialog() -> None:
    dialogs = DialogOverlay(FakeProvider())
    asked = Dialog(kind="approval", tool_id="t1", body="rm -rf build")
    assert not dialogs.active
    assert dialogs.pending(asked, None, [tool_message()]) == asked
    assert dialogs.active and dialogs.approvals
    shown = dialogs.overlay(tool_message())
    assert shown.kind == "dialog" and shown.dialog == asked and dialogs.prompted(shown)

    # Once the call has a result, the prompt is over and the chosen answer shows.
    done = [tool_message("ok")]
    assert dialogs.pending(asked, None, done) is None
    dialogs.note_chosen("t1", "Approve")
    ended = dialogs.overlay(done[0]).dialog
    assert ended is not None and ended.status == "answered"
    assert ended.answers is not None and ended.answers[0].selected == ["Approve"]


def test_the_transcripts_dialog_takes_the_body_only_the_live_channel_has() -> None:
    dialogs = DialogOverlay(FakeProvider())
    signalled = Dialog(kind="plan", tool_id="t2", body="the plan")
    recorded = Dialog(kind="plan", tool_id="t2")
    pending = dialogs.pending(signalled, recorded, [])
    assert pending is not None and pending.body == "the plan"
    assert not dialogs.approvals  # only an approval turns a call into a dialog


def test_a_mismatch_warns_on_the_dialogs_message() -> None:
    dialogs = DialogOverlay(FakeProvider())
    dialog = Dialog(kind="question", tool_id="q1", status="answered")
    dialogs.note_mismatch("q1", "recorded otherwise")
    message = Message(seq=0, kind="dialog", role="assistant", dialog=dialog)
    shown = dialogs.overlay(message)
    assert shown.level == "warning"
    assert shown.dialog is not None and shown.dialog.outcome == "recorded otherwise"


def test_a_send_that_records_nothing_stops_counting_after_the_grace(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    now = [100.0]
    monkeypatch.setattr(time, "monotonic", lambda: now[0])
    marks = WorkMarks()
    marks.sent()
    now[0] += PENDING_GRACE - 0.1
    assert marks.send_pending
    now[0] += 0.2
    assert not marks.send_pending


def test_an_interrupt_is_trusted_until_the_transcript_moves_or_a_new_epoch_begins() -> None:
    marks = WorkMarks()
    marks.sent()
    marks.interrupted_at(5)
    assert marks.interrupted and not marks.send_pending
    marks.read(reset=False, prompted=False, count=5)
    assert marks.interrupted
    marks.read(reset=True, prompted=False, count=5)
    assert not marks.interrupted
    marks.interrupted_at(2)
    marks.clear_interrupt()
    assert not marks.interrupted
