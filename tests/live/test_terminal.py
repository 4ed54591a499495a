"""Live: the terminal view's stream on the real pinned Claude Code under real tmux."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest

from lab_widget import Run, ScriptedModel
from lab_widget._runtime._pane_stream import PaneStream
from lab_widget._runtime._screen import Screen, final_screen
from tests.support.local import local_parts
from tests.support.waiting import retry_until

pytestmark = [pytest.mark.usefixtures("claude_binary")]


class Watcher:
    """A stream listener keeping the viewer's first screen and the output after it."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.screens: list[Screen] = []
        self.output = b""
        self.ended = ""

    def on_screen(self, tag: object, screen: Screen) -> None:
        with self.lock:
            self.screens.append(screen)
            self.output = b""

    def on_output(self, data: bytes) -> None:
        with self.lock:
            self.output += data

    def on_size(self, cols: int, rows: int) -> None:
        pass

    def on_end(self, reason: str) -> None:
        self.ended = reason

    def seen(self, text: str) -> bool:
        # Text as the TUI drew it: words may be placed by cursor moves, not spaces.
        with self.lock:
            drawn = b"".join(self.screens[-1].lines) if self.screens else b""
            return all(word.encode() in drawn + self.output for word in text.split())


def test_watch_and_type_into_the_real_tui(lab_home: Path, workdir: Path) -> None:
    model = ScriptedModel(rules=[], sequence=["Typed in the terminal, answered in both."])
    run = Run("claude-code", cwd=workdir, model=model)
    watcher = Watcher()
    stream = PaneStream(run.pane, watcher)
    try:
        local_parts(run).chat.wait_ready(60)
        stream.start(110, 35)
        stream.request_screen("v")
        assert retry_until(lambda: watcher.seen("Claude Code"), 30), watcher.output[-2000:]

        def on_alternate_screen() -> bool:
            # The run is ready at its first hook, a moment before the TUI switches screens.
            stream.request_screen("v")
            return bool(watcher.screens) and watcher.screens[-1].modes.get("alternate_on") == 1

        # The pinned version draws on the alternate screen and hides its cursor.
        assert retry_until(on_alternate_screen, 30), watcher.screens[-1].modes
        screen = watcher.screens[-1]
        assert (screen.cols, screen.rows) == (110, 35)
        assert screen.modes.get("cursor_flag") == 0
        # Take over: type a prompt the way a terminal would, key by key, then Enter.
        for ch in "hello from the terminal":
            stream.send(ch.encode())
            time.sleep(0.02)
        time.sleep(0.5)
        stream.send(b"\r")
        assert run.wait_for(
            lambda r: any(m.text == "hello from the terminal" for m in r.messages), 60
        )
        assert run.wait(timeout=90) == "idle"
        assert run.messages[-1].text == "Typed in the terminal, answered in both."
        assert retry_until(lambda: watcher.seen("Typed in the terminal, answered in both."), 30)
    finally:
        stream.close()
        run.stop()
        model.stop()
    assert watcher.ended in ("closed", "")
    last = final_screen(run.pane)
    assert last is not None
    assert b"answered in both." in b"".join(last.lines)


def test_the_trust_screen_answered_in_the_terminal(
    lab_home: Path, workdir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The user's own setup, onboarded and this key approved, but the folder never
    # trusted (see tests/live/claude_code/test_run.py): only the TUI can answer.
    model = ScriptedModel(["Trusted from the terminal."]).start()
    home = tmp_path / "user-home"
    home.mkdir()
    state = {
        "hasCompletedOnboarding": True,
        "customApiKeyResponses": {"approved": [model.api_key[-20:]], "rejected": []},
    }
    (home / ".claude.json").write_text(json.dumps(state))
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("ANTHROPIC_API_KEY", model.api_key)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", model.base_url)
    monkeypatch.setenv("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
    run = Run("claude-code", cwd=workdir)
    watcher = Watcher()
    stream = PaneStream(run.pane, watcher)
    try:
        assert run.state == "needs_input"
        stream.start(100, 30)
        stream.request_screen("v")
        assert retry_until(lambda: watcher.seen("Yes, I trust this folder"), 60), watcher.output

        # As a user does, looking before each key: Down (as a terminal sends it) while "No,
        # exit" is highlighted, Enter once "Yes" has stayed highlighted. The screen drops keys
        # for a moment after it appears, and a Down taken early is undone by a redraw back onto
        # "No, exit" 0.05-0.17 s later (a Down pressed blindly again wraps onto it too).
        def on_yes() -> bool:
            return "\u276f Yes, I trust this folder" in run.screen()

        def settled_on_yes() -> bool:
            if "\u276f No, exit" in run.screen():
                stream.send(b"\x1b[B")
                retry_until(on_yes, 2)
            if not on_yes():
                return False
            time.sleep(0.5)  # longer than the redraw that undoes an early Down
            return on_yes()

        def confirmed() -> bool:
            if not retry_until(settled_on_yes, 20):
                return False
            stream.send(b"\r")
            return retry_until(lambda: "Yes, I trust this folder" not in run.screen(), 3)

        assert retry_until(confirmed, 40), run.screen()
        # Nothing else happens: the chat must notice the TUI is ready by itself.
        assert run.wait_for(lambda r: r.state == "idle", 60), (run.state, watcher.output[-3000:])
        run.send("hello")
        assert run.wait(timeout=90) == "idle"
        assert run.messages[-1].text == "Trusted from the terminal."
        saved = json.loads((home / ".claude.json").read_text())
        assert saved["projects"][str(workdir)]["hasTrustDialogAccepted"] is True
    finally:
        stream.close()
        run.stop()
        model.stop()
