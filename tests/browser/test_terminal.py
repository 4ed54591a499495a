"""Browser: the terminal pane in a real JupyterLab in Debian's Chromium, on the real pinned
Claude Code: watch it work, take over to answer a screen the chat cannot, resize, and
hostile output that stays text."""

from __future__ import annotations

import json
import re
import shutil
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import TimeoutError as PlaywrightTimeout

import lab_widget
from lab_widget._install import tools_dir
from tests.support.browser import chromium_page, jupyter_lab, run_first_cell, send, write_notebook
from tests.support.paths import ROOT
from tests.support.waiting import retry_until

ARTIFACTS = ROOT / "build" / "test-artifacts"

TERMINAL_PAYLOAD = (
    '<img src=x onerror="window.__xss=1"> <script>window.__xss=2</script> '
    '<a href="javascript:window.__xss=3">a link</a> END-OF-TERM-PAYLOAD'
)

WORK_CELL = f"""
import tempfile
from lab_widget import Reply, Rule, Run, ScriptedModel, ToolUse

PAYLOAD = {TERMINAL_PAYLOAD!r}
model = ScriptedModel(
    rules=[
        Rule("hello", "Hello from the scripted model, in the terminal too."),
        Rule("payload", [
            Reply(tools=[ToolUse("Bash", {{"command": "printf '%s\\\\n' " + repr(PAYLOAD),
                                          "description": "Print the payload"}})]),
            Reply("Printed it: " + PAYLOAD),
        ]),
    ],
    fallback="ok",
)
run = Run("claude-code", cwd=tempfile.mkdtemp(prefix="browser-work-"), model=model)
run
"""

TRUST_CELL = """
import json, os, tempfile
from pathlib import Path
from lab_widget import Run, ScriptedModel

# The user's own setup: onboarded, this key approved, but the folder never trusted, so
# the real CLI asks before it starts, a screen the chat has no form for.
model = ScriptedModel(["Trusted and answering."]).start()
home = Path(tempfile.mkdtemp(prefix="browser-home-"))
state = {"hasCompletedOnboarding": True,
         "customApiKeyResponses": {"approved": [model.api_key[-20:]], "rejected": []}}
(home / ".claude.json").write_text(json.dumps(state))
os.environ.update(HOME=str(home), ANTHROPIC_API_KEY=model.api_key,
                  ANTHROPIC_BASE_URL=model.base_url, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1")
run = Run("claude-code", cwd=tempfile.mkdtemp(prefix="browser-work-"))
run
"""

PANE = ".lw-chat .lw-term"
SCREEN = ".lw-chat .lw-term .xterm-rows"


@contextmanager
def notebook(tmp_path: Path, lab_home: Path, cell: str, ready: str) -> Iterator[Any]:
    """A notebook running ``cell`` in a real JupyterLab, its chat shown in state ``ready``."""
    root = tmp_path / "notebooks"
    root.mkdir()
    write_notebook(root / "terminal.ipynb", [cell])
    env = {"LAB_WIDGET_HOME": str(lab_home), "LAB_WIDGET_TOOLS": str(tools_dir())}
    with jupyter_lab(root, env) as lab, chromium_page() as page:
        page.goto(lab.notebook_url("terminal.ipynb"))
        run_first_cell(page)
        page.wait_for_selector(f".lw-chat .lw-state[data-state='{ready}']", timeout=120_000)
        yield page


def as_text(serialized: str) -> str:
    """A serialized screen as plain text: cursor-forward runs as spaces, escapes dropped."""
    spaced = re.sub(r"\x1b\[(\d*)C", lambda m: " " * int(m[1] or 1), serialized)
    return re.sub(r"\x1b(\[[0-9;?<>=]*[ -/]*[@-~]|[()][0-9A-B]|[=>78])", "", spaced)


def screen_text(page: Any) -> str:
    text: str = page.evaluate(f"() => document.querySelector({SCREEN!r})?.innerText ?? ''")
    return text.replace("\u00a0", " ")


def wait_screen(page: Any, text: str, timeout: float = 60_000) -> None:
    """Wait until an open pane's screen shows ``text`` (JupyterLab may hold two views of
    the chat for a moment while it replaces one)."""
    page.wait_for_function(
        "([sel, t]) => [...document.querySelectorAll(sel)].some((el) => el.innerText"
        ".replace(/\\u00a0/g, ' ').includes(t))",
        arg=[f"{PANE}[data-open='true'] .xterm-rows", text],
        timeout=timeout,
    )


def open_terminal(page: Any) -> None:
    """Open the pane with a click, and see it open.

    A click that lands on a view JupyterLab is replacing opens nothing that stays, and one
    on a pane the run has just opened by itself closes it: it clicks again until a pane
    stays open.
    """
    opened = f"{PANE}[data-open='true']"
    looks: list[bool] = []  # whether a pane was open, at each look

    def stays_open() -> bool:
        looks.append(page.locator(opened).count() > 0)
        if not looks[-1]:
            page.locator(f"{PANE}[data-open='false'] .lw-term-toggle").last.click(timeout=5_000)
        return looks[-2:] == [True, True]  # open at two looks in a row

    assert retry_until(stays_open, 30), "the terminal pane did not stay open"


def take_over(page: Any) -> None:
    switch = page.locator(f"{PANE} .lw-term-switch")
    switch.wait_for(state="visible", timeout=30_000)
    page.wait_for_selector(f"{PANE} .lw-term-switch:not([disabled])", timeout=30_000)
    switch.check()
    page.wait_for_selector(f"{PANE}[data-takeover='true']", timeout=5_000)
    page.locator(f"{PANE} .xterm-helper-textarea").focus()


def close_terminal(page: Any) -> None:
    """Close the pane with one click, and see that no view of the chat shows it open.

    A settled run's display is brought up to date a moment after its turn ends, and
    JupyterLab draws the new view before it drops the old one: the click may land on either,
    and the other must not open it again.
    """
    page.locator(f"{PANE}[data-open='true'] .lw-term-toggle").first.click()
    page.wait_for_function(
        "(sel) => document.querySelectorAll(sel).length === 0",
        arg=f"{PANE}[data-open='true']",
        timeout=10_000,
    )


def shot(page: Any, tmp_path: Path, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    # JupyterLab may draw the output's view anew while the picture is taken (the saved copy
    # brought up to date): the chat is then found again.
    assert retry_until(lambda: _took(page, tmp_path / name), 10), name
    shutil.copy(tmp_path / name, ARTIFACTS / name)


def _took(page: Any, path: Path) -> bool:
    try:
        page.locator(".lw-chat").screenshot(path=str(path), timeout=5_000)
    except PlaywrightError:
        return False
    return True


def window_size(run: Any) -> tuple[int, int]:
    out = run.pane.runner.tmux(
        "display-message", "-p", "-t", run.pane.target, "#{window_width} #{window_height}"
    )
    cols, rows = out.split()
    return int(cols), int(rows)


def test_watch_the_agent_work_resize_and_hostile_output(tmp_path: Path, lab_home: Path) -> None:
    with notebook(tmp_path, lab_home, WORK_CELL, "idle") as page:
        [run] = lab_widget.runs()
        # Closed: nothing watches the pane.
        assert run.pane.runner.tmux("list-clients", "-F", "#{client_name}").strip() == ""
        assert page.locator(f"{PANE}[data-open='false']").count() == 1

        open_terminal(page)
        page.wait_for_selector(f"{PANE}[data-live='true']", timeout=30_000)
        assert "read-only" in page.locator(f"{PANE} .lw-term-status").inner_text()
        # The TUI's own screen, with the pane at the view's size.
        page.wait_for_function(
            "(sel) => (document.querySelector(sel)?.innerText ?? '').trim().length > 0",
            arg=SCREEN,
            timeout=30_000,
        )
        rows = page.evaluate(f"() => document.querySelector({SCREEN!r}).children.length")
        assert retry_until(lambda: window_size(run)[1] == rows, 10), (window_size(run), rows)

        # Watch it work: a message sent in the chat shows in the terminal too.
        send(page, "hello")
        wait_screen(page, "Hello from the scripted model, in the terminal too.")
        page.wait_for_function(
            "() => document.querySelector('.lw-chat .lw-log').innerText"
            ".includes('Hello from the scripted model, in the terminal too.')",
            timeout=30_000,
        )
        shot(page, tmp_path, "terminal-watch.png")

        # Resize the pane: tmux follows the view.
        before = window_size(run)
        page.evaluate(
            f"() => document.querySelector('{PANE} .lw-term-screen').style.height = '180px'"
        )
        assert retry_until(lambda: window_size(run)[1] < before[1], 10), window_size(run)
        page.wait_for_function(
            "([sel, n]) => document.querySelector(sel).children.length === n",
            arg=[SCREEN, window_size(run)[1]],
            timeout=10_000,
        )

        # A tool prints markup, a link and a script: the terminal shows text, runs nothing.
        page.wait_for_selector(".lw-chat .lw-state[data-state='idle']", timeout=30_000)
        page.evaluate(
            f"() => document.querySelector('{PANE} .lw-term-screen').style.height = '520px'"
        )
        send(page, "payload please")
        wait_screen(page, "Printed it:", timeout=90_000)
        page.wait_for_timeout(500)
        assert page.evaluate("() => window.__xss") is None
        pane = page.locator(PANE)
        assert pane.locator("script, iframe, img, [onerror], a").count() == 0
        assert "<img src=x" in screen_text(page)
        shot(page, tmp_path, "terminal-payload.png")

        # Closed again: the client goes and the window gets its own size back.
        close_terminal(page)

        def clients() -> str:
            return run.pane.runner.tmux("list-clients", "-F", "#{client_name}").strip()

        assert retry_until(lambda: clients() == "", 20), clients()
        assert retry_until(lambda: window_size(run) == (200, 50), 10), window_size(run)
        run.stop()


def test_take_over_to_answer_the_folder_trust_screen(tmp_path: Path, lab_home: Path) -> None:
    with notebook(tmp_path, lab_home, TRUST_CELL, "needs_input") as page:
        # The pane opened by itself, and the reason line points at it.
        page.wait_for_selector(f"{PANE}[data-open='true']", timeout=30_000)
        reason = page.locator(".lw-chat .lw-reason").inner_text()
        assert reason.endswith("— answer it in the terminal below."), reason
        assert page.locator(".lw-chat .lw-input").get_attribute("placeholder") is not None
        wait_screen(page, "trust", timeout=60_000)
        shot(page, tmp_path, "terminal-trust.png")

        # Read-only: keys typed before taking over go nowhere.
        page.locator(f"{PANE} .xterm-helper-textarea").focus()
        page.keyboard.press("Enter")
        page.wait_for_timeout(1000)
        assert page.locator(".lw-chat .lw-state").get_attribute("data-state") == "needs_input"

        # Take over and answer it the way a user would: down to "Yes", Enter.
        take_over(page)
        for _attempt in range(10):  # the screen drops keys for a moment after it appears
            page.keyboard.press("ArrowDown")
            try:
                wait_screen(page, "\u276f Yes, I trust this folder", timeout=2_000)
                break
            except Exception:
                continue
        for _attempt in range(5):
            page.keyboard.press("Enter")
            try:
                page.wait_for_function(
                    "(sel) => !(document.querySelector(sel)?.innerText ?? '')"
                    ".includes('trust this folder')",
                    arg=SCREEN,
                    timeout=3_000,
                )
                break
            except Exception:
                continue
        try:
            page.wait_for_selector(".lw-chat .lw-state[data-state='idle']", timeout=90_000)
        except Exception:
            shot(page, tmp_path, "terminal-trust-failed.png")
            [run] = lab_widget.runs()
            raise AssertionError(run.screen()) from None
        assert page.locator(".lw-chat .lw-reason").inner_text().strip() == ""

        # The run goes on, in the chat and in the terminal alike.
        send(page, "hello")
        page.wait_for_function(
            "() => document.querySelector('.lw-chat .lw-log').innerText"
            ".includes('Trusted and answering.')",
            timeout=90_000,
        )
        wait_screen(page, "Trusted and answering.")
        shot(page, tmp_path, "terminal-trusted.png")
        [run] = lab_widget.runs()
        assert run.messages[-1].text == "Trusted and answering."
        run.stop()


QUESTION_CELL = """
import tempfile
from lab_widget import Reply, Rule, Run, ScriptedModel, ToolUse

QUESTIONS = [{"question": "Which database should we use?", "header": "Database",
              "multiSelect": False,
              "options": [{"label": "SQLite", "description": "A file"},
                          {"label": "Postgres", "description": "A server"}]}]
model = ScriptedModel(rules=[Rule("ask", [Reply(tools=[ToolUse("AskUserQuestion",
                                                               {"questions": QUESTIONS})]),
                                          Reply("Noted, in both places.")])])
run = Run("claude-code", cwd=tempfile.mkdtemp(prefix="browser-work-"), model=model)
run
"""


def test_a_question_answered_in_the_terminal_resolves_the_form(
    tmp_path: Path, lab_home: Path
) -> None:
    with notebook(tmp_path, lab_home, QUESTION_CELL, "idle") as page:
        send(page, "ask me")
        form = page.locator(".lw-chat .lw-dialog-form")
        form.wait_for(timeout=60_000)
        open_terminal(page)
        wait_screen(page, "Which database should we use?")
        shot(page, tmp_path, "terminal-question.png")
        # The picker's first option is highlighted: Enter picks it (one question: no
        # review screen).
        take_over(page)
        outcome = page.locator(".lw-chat .lw-dialog[data-status='answered'] .lw-dialog-outcome")
        # The picker takes no key for a moment after it is drawn (a loaded machine makes
        # that longer); Enter again until it took one. An Enter after the answer lands on
        # the empty prompt box, where it does nothing.
        deadline = time.monotonic() + 90
        while True:
            page.keyboard.press("Enter")
            try:
                outcome.wait_for(timeout=5_000)
                break
            except PlaywrightTimeout:
                assert time.monotonic() < deadline, "the terminal's Enter never answered"
        assert "Database → SQLite" in outcome.inner_text()
        assert form.count() == 0  # the form is gone: nothing left to answer there
        wait_screen(page, "Noted, in both places.")
        [run] = lab_widget.runs()
        run.stop()


SAVE_WIDGET_STATE = {
    "@jupyter-widgets/jupyterlab-manager/plugin.jupyterlab-settings": {"saveState": True}
}


def test_a_saved_notebook_shows_the_last_screen_without_a_kernel(
    tmp_path: Path, lab_home: Path
) -> None:
    root = tmp_path / "notebooks"
    root.mkdir()
    path = root / "saved.ipynb"
    write_notebook(path, [WORK_CELL])
    env = {"LAB_WIDGET_HOME": str(lab_home), "LAB_WIDGET_TOOLS": str(tools_dir())}
    with jupyter_lab(root, env, SAVE_WIDGET_STATE) as lab, chromium_page() as page:
        page.goto(lab.notebook_url("saved.ipynb"))
        run_first_cell(page)
        page.wait_for_selector(".lw-chat .lw-state[data-state='idle']", timeout=120_000)
        open_terminal(page)
        page.wait_for_selector(f"{PANE}[data-live='true']", timeout=30_000)
        send(page, "hello")
        wait_screen(page, "Hello from the scripted model, in the terminal too.")
        page.wait_for_timeout(1500)  # the pane keeps its screen a moment after output
        # Save from the notebook, not from inside the widget (whose keys stay its own).
        page.evaluate("() => document.activeElement?.blur()")
        page.locator(".jp-Notebook .jp-Cell .jp-InputPrompt").first.click()
        page.keyboard.press("Control+s")
        try:
            page.wait_for_function("() => !document.querySelector('.jp-mod-dirty')", timeout=30_000)
        except Exception:
            page.screenshot(path=str(ARTIFACTS / "terminal-save-failed.png"))
            raise
        [run] = lab_widget.runs()
        run.stop()

    saved = json.loads(path.read_text())
    state = saved["metadata"]["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
    [view] = [m["state"] for m in state.values() if "_terminal_screen" in m["state"]]
    assert "Hello from the scripted model" in as_text(view["_terminal_screen"]["data"])
    # Reopened in a new server and kernel: nothing in it knows the run (its widget comes
    # back from the saved state alone, with no kernel side to talk to).
    with jupyter_lab(root, env, SAVE_WIDGET_STATE) as lab, chromium_page() as page:
        page.goto(lab.notebook_url("saved.ipynb"))
        page.wait_for_selector(".lw-chat", timeout=90_000)
        open_terminal(page)
        try:
            wait_screen(page, "Hello from the scripted model, in the terminal too.", timeout=30_000)
        except Exception:
            shot(page, tmp_path, "terminal-saved-failed.png")
            raise
        page.wait_for_function(
            "([sel, t]) => document.querySelector(sel).innerText.includes(t)",
            arg=[f"{PANE} .lw-term-status", "needs a running kernel"],
            timeout=30_000,
        )
        shot(page, tmp_path, "terminal-saved.png")


BOARD_CELL = """
import tempfile
import lab_widget
from lab_widget import Run, ScriptedModel

model = ScriptedModel(rules=[], sequence=["Hello from the board."])
run = Run("claude-code", cwd=tempfile.mkdtemp(prefix="browser-work-"), model=model, name="board")
run.send("hello")
run.wait(timeout=90)
lab_widget.runs()
"""


def test_the_dashboard_opens_a_runs_terminal(tmp_path: Path, lab_home: Path) -> None:
    root = tmp_path / "notebooks"
    root.mkdir()
    write_notebook(root / "board.ipynb", [BOARD_CELL])
    env = {"LAB_WIDGET_HOME": str(lab_home), "LAB_WIDGET_TOOLS": str(tools_dir())}
    with jupyter_lab(root, env) as lab, chromium_page() as page:
        page.goto(lab.notebook_url("board.ipynb"))
        run_first_cell(page)
        row = ".lw-runs tr[data-run='board']"
        page.wait_for_selector(f"{row} .lw-state[data-state='idle']", timeout=120_000)
        page.click(f"{row} .lw-runs-terminal")
        page.wait_for_selector(f"{PANE}[data-open='true'][data-live='true']", timeout=60_000)
        wait_screen(page, "Hello from the board.")
        [run] = lab_widget.runs()
        run.stop()
        page.wait_for_selector(f"{row} .lw-state[data-state='ended']", timeout=30_000)
        page.wait_for_function(
            "([sel, t]) => document.querySelector(sel).innerText.includes(t)",
            arg=[f"{PANE} .lw-term-status", "has ended"],
            timeout=30_000,
        )
        # Its last screen stays.
        assert "Hello from the board." in screen_text(page)
