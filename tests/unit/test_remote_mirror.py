"""Unit: the kernel's mirror of a worker's run, fed snapshots and events as the pipe brings
them (no worker: the messages are written here as the protocol carries them)."""

from __future__ import annotations

from typing import Any

from lab_widget._chat._session import ChatEvent
from lab_widget._remote._mirror import Mirror


def text(seq: int, body: str, role: str = "user") -> dict[str, Any]:
    return {"seq": seq, "role": role, "kind": "text", "text": body}


def snapshot(transcript_id: str, *messages: dict[str, Any], **more: Any) -> dict[str, Any]:
    return {"transcript_id": transcript_id, "messages": list(messages), "state": "idle", **more}


def follow(mirror: Mirror) -> list[ChatEvent]:
    seen: list[ChatEvent] = []
    mirror.subscribe(seen.append)
    return seen


def test_a_new_workers_snapshot_tells_listeners_only_what_differs() -> None:
    mirror = Mirror()
    mirror.take_snapshot(
        snapshot("t1", text(0, "hi"), text(1, "echo", "assistant")), announce=False
    )
    seen = follow(mirror)
    mirror.take_snapshot(
        snapshot("t1", text(0, "hi"), text(1, "echo: hi", "assistant"), text(2, "more")),
        announce=True,
    )
    assert len(seen) == 1 and not seen[0].reset
    assert [m.text for m in seen[0].changed] == ["echo: hi", "more"]
    assert [m.text for m in mirror.messages] == ["hi", "echo: hi", "more"]


def test_a_clear_while_the_pipe_was_down_is_a_reset_that_keeps_the_old_conversation() -> None:
    mirror = Mirror()
    mirror.take_snapshot(snapshot("t1", text(0, "old")), announce=False)
    seen = follow(mirror)
    mirror.take_snapshot(snapshot("t2", text(0, "new")), announce=True)
    assert seen[0].reset and [m.text for m in seen[0].changed] == ["new"]
    assert [(e.transcript_id, [m.text for m in e.messages]) for e in mirror.past] == [
        ("t1", ["old"])
    ]
    assert mirror.transcript_id == "t2"


def test_the_first_snapshot_is_the_picture_itself() -> None:
    mirror = Mirror()
    seen = follow(mirror)
    facts: dict[str, Any] = {"state_reason": "why", "pending_dialog": None, "commands": []}
    mirror.take_snapshot(snapshot("t1", text(0, "hi"), facts=facts), announce=False)
    assert seen == [] and mirror.fact("state_reason") == "why"
    assert mirror.fact("needs_input_reason") is None and mirror.dialog is None


def test_an_event_that_ends_the_run_says_so_once() -> None:
    mirror = Mirror()
    assert not mirror.apply_event({"changed": [text(0, "hi")], "state": "working"})
    assert mirror.apply_event({"changed": [], "state": "ended"})
    assert not mirror.apply_event({"changed": [], "state": "ended"})
    mirror.end("This run was stopped.")
    assert mirror.state == "ended" and mirror.fact("state_reason") is None  # not stopped here


def test_a_run_stopped_here_ends_with_the_reason_and_wakes_waiters() -> None:
    mirror = Mirror()
    seen = follow(mirror)
    mirror.end("This run was stopped.")
    assert mirror.wait_for(lambda: mirror.state == "ended", 1.0)
    assert [e.state for e in seen] == ["ended"] and mirror.fact("state_reason") == (
        "This run was stopped."
    )
