"""Unit: a chat view's static form, for front ends without the widget (nbviewer, GitHub,
nbconvert), and how a settled run brings its displays' copy up to date."""

from __future__ import annotations

import time
from decimal import Decimal
from typing import Any

import IPython.display
import nbformat
import pytest
from nbconvert import HTMLExporter

from lab_widget._chat._session import Epoch
from lab_widget._export._html import FRAGMENT_CLASS
from lab_widget._widgets import _view
from lab_widget._widgets._view import RunView
from lab_widget.schema import Chat, Message, SessionSummary, Usage
from tests.support.chat_source import StubSource, text_message
from tests.support.recording import RecordingComm

HOSTILE = "<script>window.__xss=1</script> <img src=x onerror=alert(1)> **bold**"
WIDGET = "application/vnd.jupyter.widget-view+json"


def reply(seq: int, text: str) -> Message:
    return Message(seq=seq, kind="text", role="assistant", text=text)


def test_no_html_before_the_first_message(comms: list[RecordingComm]) -> None:
    # A freshly displayed run shows the text form only (the notebooks' stored outputs).
    data = RunView(StubSource())._bundle()[0]
    assert set(data) == {WIDGET, "text/plain"}


def test_the_html_is_the_conversation_sanitised(comms: list[RecordingComm]) -> None:
    source = StubSource([text_message(0, "user"), reply(1, HOSTILE)])
    source.past_conversations = [Epoch("t0", [reply(0, "From before the clear.")])]
    page = RunView(source)._bundle()[0]["text/html"]
    assert page.startswith(f'<div class="{FRAGMENT_CLASS}">')
    assert "<script" not in page.replace("&lt;script", "") and "<img" not in page
    assert "&lt;script&gt;window.__xss=1&lt;/script&gt;" in page
    assert "<strong>bold</strong>" in page
    assert page.index("From before the clear.") < page.index("Message number 0")
    # Every rule is scoped: the page around the output keeps its own look.
    style = page.split("<style>")[1].split("</style>")[0]
    heads = [rule.split("{")[0] for rule in style.splitlines()]
    assert heads and all(
        all(s.strip().startswith(f".{FRAGMENT_CLASS}") for s in h.split(",")) for h in heads
    )


def test_nbconvert_shows_the_conversation_without_widget_state(
    comms: list[RecordingComm],
) -> None:
    data = RunView(StubSource([reply(0, "The saved answer. " + HOSTILE)]))._bundle()[0]
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("run")
    cell.outputs = [nbformat.v4.new_output("display_data", data=data)]
    nb.cells = [cell]
    body, _ = HTMLExporter().from_notebook_node(nb)  # type: ignore[no-untyped-call]
    assert "The saved answer." in body
    assert "window.__xss=1</script>" not in body


class Displays:
    """What IPython's display functions were asked to publish."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.shown: list[tuple[dict[str, Any], str]] = []
        self.updates: list[tuple[dict[str, Any], str]] = []
        monkeypatch.setattr(IPython.display, "display", self._display)
        monkeypatch.setattr(IPython.display, "update_display", self._update)
        monkeypatch.setattr(_view, "UPDATE_DELAY", 0.05)

    def _display(self, data: dict[str, Any], **kwargs: Any) -> None:
        assert kwargs["raw"] is True
        self.shown.append((data, kwargs["display_id"]))

    def _update(self, data: dict[str, Any], **kwargs: Any) -> None:
        self.updates.append((data, kwargs["display_id"]))


def settle() -> None:
    time.sleep(_view.UPDATE_DELAY * 6)


def test_a_settled_run_updates_its_display_once_per_change(
    comms: list[RecordingComm], monkeypatch: pytest.MonkeyPatch
) -> None:
    displays = Displays(monkeypatch)
    source = StubSource()
    view = RunView(source)
    view._ipython_display_()
    [(data, display_id)] = displays.shown
    assert display_id and "text/html" not in data and WIDGET in data

    source.state = "working"
    source.append(text_message(0, "user"))
    source.append(reply(1, "Half way"))
    settle()
    assert displays.updates == []  # only a settled run

    source.state = "idle"
    source.append(reply(2, "The whole answer."))
    source.emit([])
    settle()
    [(data, updated_id)] = displays.updates
    assert updated_id == display_id
    assert "The whole answer." in data["text/html"] and WIDGET in data

    source.emit([])  # settled again, nothing new: nothing sent
    settle()
    assert len(displays.updates) == 1
    view.close()


def test_a_turn_that_starts_again_at_once_updates_nothing(
    comms: list[RecordingComm], monkeypatch: pytest.MonkeyPatch
) -> None:
    displays = Displays(monkeypatch)
    source = StubSource()
    view = RunView(source)
    view._ipython_display_()
    source.append(reply(0, "First turn done."))  # idle
    source.state = "working"
    source.emit([])
    settle()
    assert displays.updates == []
    view.close()


# -- the meter's session part --------------------------------------------------------------


class WithHistory(StubSource):
    """A source whose earlier conversations can be read again, as a run's can."""

    def __init__(self) -> None:
        super().__init__()
        self.reads = 0
        self.earlier = [
            Chat(
                messages=[text_message(0)],
                state="idle",
                session=SessionSummary(
                    usage=Usage(input_tokens=100, output_tokens=20),
                    cost_usd_estimate=Decimal("0.25"),
                ),
            )
        ]

    def history(self) -> list[Chat]:
        self.reads += 1
        return self.earlier


def test_the_meter_keeps_the_earlier_conversations_after_a_clear(
    comms: list[RecordingComm],
) -> None:
    source = WithHistory()
    view = RunView(source)
    assert "earlier" not in view.session
    source.past_conversations = [Epoch("t0", [text_message(0)])]
    source.transcript_id = "t1"
    source.session = SessionSummary(usage=Usage(input_tokens=5), cost_usd_estimate=Decimal("0.01"))
    source.emit([], reset=True)
    earlier = view.session["earlier"]
    assert earlier["conversations"] == 1
    assert (earlier["usage"]["input_tokens"], earlier["usage"]["output_tokens"]) == (100, 20)
    assert Decimal(earlier["cost_usd_estimate"]) == Decimal("0.25")
    assert earlier["vendor_cost_usd"] is None
    assert view.session["usage"]["input_tokens"] == 5  # the current one's stays its own
    source.append(text_message(1))
    assert source.reads == 1  # read again only when the earlier ones change


def test_no_branch_where_git_names_none(comms: list[RecordingComm]) -> None:
    source = StubSource()
    source.session = SessionSummary(branch="HEAD")
    assert RunView(source).session["branch"] is None
    source.session = SessionSummary(branch="main")
    assert RunView(source).session["branch"] == "main"
