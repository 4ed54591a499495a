"""The terminal pane in a real JupyterLab shown in Debian's Chromium.

- What it costs closed and open: the kernel's websocket frames carrying terminal messages
  (``"kind": "term"``) over the same busy stretch of a run (prompts typed into the agent
  from outside the browser), counted by Playwright at the page's websocket.
- Keystroke to echo, with the pane taken over: a key pressed in xterm.js, through the comm,
  the kernel, ``send-keys`` on the control client, the agent, tmux's ``%output``, back to
  the page, until the echoed character is drawn in the terminal's rows (a
  MutationObserver stamps it; the key's time is its ``keydown``). Once on the fake agent
  (it echoes at once: the pipeline alone) and once on the pinned Claude Code's prompt box.
- The floor under it: a bare anywidget's message to the kernel and its answer, in the same
  page (what any widget pays for one round trip through Jupyter here).
"""

from __future__ import annotations

import os
import string
import tempfile
import time
from pathlib import Path
from typing import Any

from _support import ROOT, Row, ms

import lab_widget
from lab_widget._install import tools_dir
from lab_widget._run._launch import runner as _runner
from tests.support.browser import chromium_page, jupyter_lab, run_first_cell, write_notebook

FAKE_CELL = f"""
import sys, tempfile
sys.path.insert(0, {str(ROOT)!r})
from lab_widget.provider import register
from tests.support.fake_provider import FakeProvider
register("fake", FakeProvider)
"""

# A bare widget beside the run: its front end sends a message, the kernel answers it.
ECHO_WIDGET = '''
import anywidget
class Echo(anywidget.AnyWidget):
    _esm = """
    export default { render({ model, el }) {
      el.textContent = "echo probe";
      const sent = {};
      window.__echo = { done: [] };
      model.on("msg:custom", (m) => window.__echo.done.push(performance.now() - sent[m.i]));
      window.__echo.ping = (i) => { sent[i] = performance.now(); model.send({ i }); };
    } };
    """
echo = Echo()
echo.on_msg(lambda widget, content, buffers: echo.send(content))
display(echo)
'''

FAKE_CELL += (
    ECHO_WIDGET
    + """
from lab_widget import Run
run = Run("fake", cwd=tempfile.mkdtemp(prefix="bench-terminal-"))
run
"""
)

CLAUDE_CELL = """
import tempfile
from lab_widget import Run, ScriptedModel
model = ScriptedModel(rules=[], fallback="ok")
run = Run("claude-code", cwd=tempfile.mkdtemp(prefix="bench-terminal-"), model=model)
run
"""

PANE = ".lw-chat .lw-term"

OBSERVE = """() => {
  window.__term = {down: [], seen: [], marker: ''};
  const area = document.querySelector('.lw-term .xterm-helper-textarea');
  area.addEventListener('keydown', (e) => {
    if (e.key.length === 1) window.__term.down.push(performance.now());
  }, true);
  const rows = document.querySelector('.lw-term .xterm-rows');
  new MutationObserver(() => {
    const t = window.__term;
    if (!t.marker) return;
    const text = rows.innerText.replace(/\\u00a0/g, ' ');
    const at = text.lastIndexOf(t.marker);
    if (at < 0) return;
    const typed = /^[a-z]*/.exec(text.slice(at + t.marker.length))[0].length;
    while (t.seen.length < typed) t.seen.push(performance.now());
  }).observe(rows, {subtree: true, childList: true, characterData: true});
}"""


class Frames:
    """Websocket frames the page receives, split into terminal messages and the rest."""

    def __init__(self, page: Any) -> None:
        self.term = [0, 0]
        self.other = [0, 0]
        page.on("websocket", self._attach)

    def _attach(self, ws: Any) -> None:
        ws.on("framereceived", self._frame)

    def _frame(self, payload: Any) -> None:
        data = payload if isinstance(payload, bytes) else str(payload).encode()
        bucket = self.term if b'"kind": "term"' in data or b'"kind":"term"' in data else self.other
        bucket[0] += 1
        bucket[1] += len(data)

    def reset(self) -> None:
        self.term, self.other = [0, 0], [0, 0]


def _busy(run: Any, page: Any, sends: int, tag: str) -> None:
    """Prompts typed into the agent from outside the browser, each shown in the chat."""
    for i in range(sends):
        run.send(f"{tag} {i}")
        page.wait_for_function(
            "(t) => document.querySelector('.lw-chat .lw-log').innerText.includes(t)",
            arg=f"echo: {tag} {i}",
            timeout=30_000,
        )


def _keystrokes(page: Any, keys: int, rounds: int) -> list[float]:
    page.click(f"{PANE} .lw-term-switch")
    page.wait_for_selector(f"{PANE}[data-takeover='true']", timeout=10_000)
    page.locator(f"{PANE} .xterm-helper-textarea").focus()
    page.evaluate(OBSERVE)
    latencies: list[float] = []
    for r in range(rounds):
        marker = f"Q{r}Z:"
        page.keyboard.type(marker.upper(), delay=30)  # no lower-case letter: not measured
        page.evaluate("(m) => { window.__term.marker = m; }", marker.upper())
        page.wait_for_timeout(300)
        page.evaluate("() => { window.__term.down = []; window.__term.seen = []; }")
        for i in range(keys):
            page.keyboard.press(string.ascii_lowercase[i % 26])
            page.wait_for_function(
                "(n) => window.__term.seen.length >= n", arg=i + 1, timeout=10_000
            )
            page.wait_for_timeout(40)
        down, seen = page.evaluate("() => [window.__term.down, window.__term.seen]")
        latencies += [(s - d) / 1000 for d, s in zip(down, seen, strict=False)]
        page.keyboard.press("Enter")
        page.wait_for_timeout(500)
    return latencies


def _round_trips(page: Any, count: int) -> list[float]:
    for i in range(count):
        page.evaluate("(i) => window.__echo.ping(i)", i)
        page.wait_for_function("(n) => window.__echo.done.length > n", arg=i, timeout=10_000)
        page.wait_for_timeout(40)
    done: list[float] = page.evaluate("() => window.__echo.done")
    return [d / 1000 for d in done]


def _lab(home: Path, name: str, cell: str) -> Any:
    """A JupyterLab of its own (own folder and workspace) on a notebook holding ``cell``."""
    root = home.parent / f"{home.name}-{name}"
    root.mkdir()
    write_notebook(root / f"{name}.ipynb", [cell])
    env = {"LAB_WIDGET_HOME": str(home), "LAB_WIDGET_TOOLS": str(tools_dir())}
    return jupyter_lab(root, env)


def _open(page: Any, lab: Any, name: str) -> Any:
    page.goto(lab.notebook_url(f"{name}.ipynb"))
    run_first_cell(page)
    page.wait_for_selector(".lw-chat .lw-state[data-state='idle']", timeout=120_000)
    [run] = lab_widget.runs()
    return run


def terminal(keys: int, sends: int) -> list[Row]:
    home = Path(tempfile.mkdtemp(prefix="lab-widget-bench-"))
    os.environ["LAB_WIDGET_HOME"] = str(home)
    rows: list[Row] = []
    try:
        with _lab(home, "fake", FAKE_CELL) as lab, chromium_page() as page:
            frames = Frames(page)
            run = _open(page, lab, "fake")

            frames.reset()
            _busy(run, page, sends, "closed")
            closed_term, closed_other = list(frames.term), list(frames.other)
            clients = run.pane.runner.tmux("list-clients", "-F", "#{client_name}").split()

            page.click(f"{PANE} .lw-term-toggle")
            page.wait_for_selector(f"{PANE}[data-live='true']", timeout=30_000)
            page.wait_for_timeout(500)
            frames.reset()
            _busy(run, page, sends, "open")
            open_term, open_other = list(frames.term), list(frames.other)

            fake = _keystrokes(page, keys, rounds=3)
            floor = _round_trips(page, keys * 3)
            page.click(f"{PANE} .lw-term-toggle")
            run.stop()
        rows += [
            (
                f"terminal closed, {sends} prompts: terminal frames to the browser",
                f"{closed_term[0]} frames, {closed_term[1]} B "
                f"(chat: {closed_other[0]} frames, {closed_other[1]} B; "
                f"tmux clients: {len(clients)})",
            ),
            (
                f"terminal open, {sends} prompts: terminal frames to the browser",
                f"{open_term[0]} frames, {open_term[1]} B "
                f"(chat: {open_other[0]} frames, {open_other[1]} B)",
            ),
            ("keystroke -> echo drawn, fake agent (the pipeline)", ms(fake)),
            ("bare widget message -> its answer, same page (the floor)", ms(floor)),
        ]
        with _lab(home, "claude", CLAUDE_CELL) as lab, chromium_page() as page:
            run = _open(page, lab, "claude")
            page.click(f"{PANE} .lw-term-toggle")
            page.wait_for_selector(f"{PANE}[data-live='true']", timeout=30_000)
            page.wait_for_timeout(1000)
            claude = _keystrokes(page, keys, rounds=1)
            run.stop()
        rows.append(("keystroke -> echo drawn, pinned Claude Code's prompt box", ms(claude)))
    finally:
        _runner().kill_server()
        time.sleep(0.1)
    return rows
