"""Unit: the action channel every widget uses, over a recording comm (no browser)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import anywidget
import pytest

from lab_widget._widgets import ActionChannel, ActionRequest, RunsDashboard, RunView, login
from lab_widget._widgets._auth_card import ProviderAuthCard
from lab_widget._widgets._channel import CANCELLED
from lab_widget.errors import RunEndedError
from tests.support.chat_source import StubSource
from tests.support.recording import RecordingComm


class Probe(anywidget.AnyWidget):
    _esm = "export default {}"


@pytest.fixture
def widget(comms: list[RecordingComm]) -> Iterator[Probe]:
    probe = Probe()
    yield probe
    probe.close()


def results(widget: Probe) -> list[dict[str, Any]]:
    comm = widget.comm
    assert isinstance(comm, RecordingComm)
    return [m for m in comm.customs() if m.get("kind") == "result"]


def action(request_id: str, name: str, **args: Any) -> dict[str, Any]:
    return {"kind": "action", "id": request_id, "action": name, **args}


def test_each_action_gets_one_result_with_its_id_in_any_order(widget: Probe) -> None:
    quick_done = threading.Event()

    def slow(_request: ActionRequest) -> None:
        assert quick_done.wait(5)

    channel = ActionChannel(
        widget, {"slow": slow, "quick": lambda _request: quick_done.set()}, workers=2
    )
    channel.receive(widget, action("a-1", "slow"))
    channel.receive(widget, action("a-2", "quick"))
    assert channel.idle(5)
    # The second finished first; each result still names its own request.
    assert [r["id"] for r in results(widget)] == ["a-2", "a-1"]
    assert all(r["ok"] is True and "error" not in r for r in results(widget))
    channel.close()


def test_actions_run_off_the_comm_thread(widget: Probe) -> None:
    release = threading.Event()
    threads: list[str] = []

    def blocks(_request: ActionRequest) -> None:
        threads.append(threading.current_thread().name)
        assert release.wait(5)

    channel = ActionChannel(widget, {"wait": blocks}, thread_name="probe-action")
    channel.receive(widget, action("a-1", "wait"))  # returns while the action still blocks
    assert results(widget) == []
    release.set()
    assert channel.idle(5)
    assert threads[0].startswith("probe-action") and threads[0] != threading.current_thread().name
    assert results(widget) == [{"kind": "result", "id": "a-1", "ok": True}]
    channel.close()


def test_the_handlers_errors_arrive_typed_text_and_all(widget: Probe) -> None:
    def ended(_request: ActionRequest) -> None:
        raise RunEndedError("the agent has ended; start a new run")

    def bare(_request: ActionRequest) -> None:
        raise RuntimeError

    channel = ActionChannel(widget, {"send": ended, "bare": bare})
    for request in (action("a-1", "send"), action("a-2", "bare"), action("a-3", "explode")):
        channel.receive(widget, request)
        assert channel.idle(5)
    assert results(widget) == [
        {
            "kind": "result",
            "id": "a-1",
            "ok": False,
            "error": "the agent has ended; start a new run",
        },
        {"kind": "result", "id": "a-2", "ok": False, "error": "RuntimeError"},
        {"kind": "result", "id": "a-3", "ok": False, "error": "unknown action 'explode'"},
    ]
    channel.close()


def test_a_cancelled_action_that_has_not_started_is_skipped(widget: Probe) -> None:
    """The front end timed out and sent a cancel: a queued action never runs."""
    busy = threading.Event()
    release = threading.Event()
    ran: list[str] = []

    def work(request: ActionRequest) -> None:
        ran.append(request.id)
        busy.set()
        assert release.wait(5)

    channel = ActionChannel(widget, {"work": work}, workers=1)
    channel.receive(widget, action("a-1", "work"))
    assert busy.wait(5)
    channel.receive(widget, action("a-2", "work"))  # queued behind a-1
    channel.receive(widget, {"kind": "cancel", "id": "a-2"})
    channel.receive(widget, {"kind": "cancel", "id": "a-1"})  # already running: it finishes
    release.set()
    assert channel.idle(5)
    assert ran == ["a-1"]
    assert results(widget) == [
        {"kind": "result", "id": "a-1", "ok": True},  # late: the front end ignores it
        {"kind": "result", "id": "a-2", "ok": False, "error": CANCELLED},
    ]
    channel.close()


def test_other_messages_go_to_the_widget_and_junk_is_ignored(widget: Probe) -> None:
    seen: list[dict[str, Any]] = []
    channel = ActionChannel(widget, {}, on_message=seen.append)
    channel.receive(widget, {"kind": "sync"})
    channel.receive(widget, "not a message")
    channel.receive(widget, None)
    assert channel.idle(5)
    assert seen == [{"kind": "sync"}] and results(widget) == []
    channel.close()


def test_run_does_one_action_now_and_a_closed_channel_takes_none(widget: Probe) -> None:
    calls: list[object] = []
    channel = ActionChannel(widget, {"go": lambda request: calls.append(request.args)})
    result = channel.run(action("a-1", "go", text="hi"))
    assert result.ok and calls == [{"text": "hi"}]
    assert results(widget) == [{"kind": "result", "id": "a-1", "ok": True}]
    channel.close()
    channel.receive(widget, action("a-2", "go"))
    assert channel.idle(5)
    assert len(calls) == 1 and len(results(widget)) == 1


def test_a_widget_without_a_front_end_sends_nothing(comms: list[RecordingComm]) -> None:
    probe = Probe()
    probe.close()  # no comm any more
    channel = ActionChannel(probe, {"go": lambda _request: None})
    assert channel.run(action("a-1", "go")).ok
    channel.close()


def test_every_widget_of_the_package_takes_actions_through_the_channel(
    comms: list[RecordingComm],
) -> None:
    widgets: list[RunView | RunsDashboard | ProviderAuthCard] = [
        RunView(StubSource()),
        RunsDashboard([]),
        login("fake"),
    ]
    try:
        for w in widgets:
            channel = w._channel
            assert isinstance(channel, ActionChannel)
            assert channel.actions  # each declares what it handles
    finally:
        for w in widgets:
            w.close()
