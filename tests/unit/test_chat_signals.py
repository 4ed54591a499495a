"""The chat's refresh asks the live channel inside one snapshot (a channel that costs a
request per look answers the whole refresh from one)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from lab_widget._chat._session import ChatSession
from lab_widget.provider import LiveSignals, RunContext
from lab_widget.schema import Dialog
from tests.support.fake_provider import FakeProvider


class CountingSignals(LiveSignals):
    """Counts looks; a look outside a snapshot is one request of its own."""

    def __init__(self) -> None:
        self.inside = False
        self.requests = 0
        self.questions = 0

    def _look(self) -> None:
        self.questions += 1
        if not self.inside:
            self.requests += 1

    def pending_dialog(self, context: RunContext) -> Dialog | None:
        self._look()
        return None

    def blocked(self, context: RunContext) -> str | None:
        self._look()
        return None

    def signature(self, context: RunContext) -> object:
        self._look()
        return ()

    def sweep(self, context: RunContext) -> None:
        return

    @contextmanager
    def snapshot(self, context: RunContext) -> Iterator[None]:
        self.inside = True
        self.requests += 1
        try:
            yield
        finally:
            self.inside = False


def test_a_refresh_asks_the_live_channel_in_one_snapshot(tmp_path: Path) -> None:
    provider = FakeProvider()
    signals = CountingSignals()
    provider.live_signals = signals
    context = RunContext(run_id="r", cwd=tmp_path, runtime_dir=tmp_path)
    chat = ChatSession(provider, context, terminal=None)  # type: ignore[arg-type]
    signals.requests = signals.questions = 0
    chat.refresh()
    assert signals.questions >= 2  # the state before and after, the signature
    assert signals.requests == 1
