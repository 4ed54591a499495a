"""Browser: dialogs answered from the chat's form, for every agent that has them. In one real
JupyterLab in Debian's Chromium, on each agent's real pinned CLI (on the scripted model):

- every agent that takes the kernel's tools asks three times in three turns to run code in
  the notebook's kernel: the first ask is approved, the second approved for the run, and the
  third is then approved by the run itself (no form, the state never ``question``), each call
  shown answered;
- every agent with a question tool asks its questions: one answered by picking an option,
  one by typing an answer of the user's own, and, where the tool takes them, one with
  several answers ticked.

One JupyterLab and one page serve every agent (a cell each): each test starts its agent's run
in its own cell, having stopped the one before.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

import lab_widget
from lab_widget._install import tools_dir
from tests.support.browser import (
    chromium_page,
    jupyter_lab,
    run_cell,
    run_first_cell,
    show_failure,
    write_notebook,
)
from tests.support.kernel_calls import RUN_PYTHON
from tests.support.paths import ROOT
from tests.support.waiting import retry_until

AGENTS = sorted(RUN_PYTHON)
ARTIFACTS = ROOT / "build" / "test-artifacts"
PRICED = {"claude-code", "codex", "gemini"}
"""Agents whose scripted runs the meter must price (the model each reports is in the table)."""
CELLS = ".jp-Notebook .jp-Cell"

SETUP = """
import tempfile
import pandas as pd
import lab_widget
from lab_widget import Reply, Rule, Run, ScriptedModel, ToolUse
from tests.support.kernel_calls import RUN_PYTHON, model_call

df = pd.DataFrame({"a": range(7)})


def asking_run(provider_id):
    call = model_call(provider_id, RUN_PYTHON[provider_id], {"code": "x = len(df)"})
    turn = [Reply("Let me count them in your kernel.", tools=[call]), Reply("Done: x holds it.")]
    rules = [Rule(word, turn) for word in ("count the rows", "again", "once more")]
    model = ScriptedModel(rules=rules, fallback="ok")
    cwd = tempfile.mkdtemp(prefix="browser-work-")
    return Run(provider_id, cwd=cwd, model=model, kernel=True)


DATABASE = {"question": "Which database should we use?", "header": "Database",
            "options": [{"label": "SQLite", "description": "a file"},
                        {"label": "Postgres", "description": "a server"}]}
INTERFACE = {"question": "Which interface?", "header": "Interface",
             "options": [{"label": "CLI", "description": "a terminal"},
                         {"label": "Web", "description": "a browser"}]}
FEATURES = {"question": "Which features?", "header": "Features",
            "options": [{"label": "Auth", "description": "sign-in"},
                        {"label": "Export", "description": "CSV files"},
                        {"label": "Search", "description": "full text"}]}
ASK = {
    "claude-code": ToolUse("AskUserQuestion", {"questions": [
        {**DATABASE, "multiSelect": False}, {**INTERFACE, "multiSelect": False},
        {**FEATURES, "multiSelect": True}]}),
    "codex": ToolUse("request_user_input", {"questions": [
        {**DATABASE, "id": "db"}, {**INTERFACE, "id": "ui"}]}),
    "copilot": ToolUse("ask_user", {"message": "A few choices.", "requestedSchema": {
        "properties": {
            "db": {"type": "string", "title": "Database", "enum": ["SQLite", "Postgres"]},
            "ui": {"type": "string", "title": "Interface"},
            "features": {"type": "array", "title": "Features",
                         "items": {"type": "string", "enum": ["Auth", "Export", "Search"]}},
        },
        "required": ["db", "ui", "features"]}}),
    "opencode": ToolUse("question", {"questions": [
        DATABASE, INTERFACE, {**FEATURES, "multiple": True}]}),
}
# The mode an agent's question tool works in (Codex refuses it in its default mode).
ASKS_ONLY_IN = {"codex": "/plan"}


def questioning_run(provider_id):
    turn = [Reply(tools=[ASK[provider_id]]), Reply("Thanks, noted.")]
    model = ScriptedModel(rules=[Rule("ask me", turn)], fallback="ok")
    run = Run(provider_id, cwd=tempfile.mkdtemp(prefix="browser-work-"), model=model)
    if provider_id in ASKS_ONLY_IN:
        run.send(ASKS_ONLY_IN[provider_id], ready_timeout=90)
    return run
"""

AGENT_CELL = """
for earlier in lab_widget.runs():
    earlier.stop()
run = asking_run({provider!r})
run
"""

QUESTION_AGENTS = ["claude-code", "codex", "copilot", "opencode"]
"""The agents whose pinned CLI has a question tool (Gemini CLI, Qwen Code, Kilo Code and
Mistral Vibe have none)."""

MANY_ANSWERS = {"claude-code", "copilot", "opencode"}
"""The agents whose question tool also takes a question with several answers (Codex's
``request_user_input`` takes one answer a question)."""

QUESTION_CELL = """
for earlier in lab_widget.runs():
    earlier.stop()
run = questioning_run({provider!r})
run
"""


@pytest.fixture(scope="module")
def lab_page(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A notebook with a cell per agent in a real JupyterLab, its set-up cell run."""
    base = tmp_path_factory.mktemp("dialogs")
    root = base / "notebooks"
    root.mkdir()
    cells = [
        SETUP,
        *(AGENT_CELL.format(provider=agent) for agent in AGENTS),
        *(QUESTION_CELL.format(provider=agent) for agent in QUESTION_AGENTS),
    ]
    write_notebook(root / "agents.ipynb", cells)
    home = base / "lab-home"
    env = {"LAB_WIDGET_HOME": str(home), "LAB_WIDGET_TOOLS": str(tools_dir())}
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("LAB_WIDGET_HOME", str(home))
        try:
            with jupyter_lab(root, env) as lab, chromium_page() as page:
                page.goto(lab.notebook_url("agents.ipynb"))
                run_first_cell(page)
                yield page
        finally:
            from lab_widget._run._launch import runner  # noqa: PLC0415 (the home set above)

            runner().kill_server()


def chat_of(page: Any, index: int) -> Any:
    """The chat cell ``index`` shows, once its run is idle."""
    run_cell(page, index)
    chat = page.locator(CELLS).nth(index).locator(".lw-chat")
    chat.locator(".lw-state[data-state='idle']").wait_for(timeout=120_000)
    return chat


def send(chat: Any, text: str) -> None:
    box = chat.locator(".lw-input")
    box.click()
    box.fill(text)
    box.press("Enter")


def approve(chat: Any, choice: str) -> None:
    """Answer the form that shows the kernel call with ``choice``; wait for the turn's end."""
    form = chat.locator(".lw-dialog-form")
    form.wait_for(timeout=120_000)
    assert chat.locator(".lw-state").get_attribute("data-state") == "question"
    assert "x = len(df)" in form.inner_text()
    options = [o.get_attribute("value") for o in form.locator("input[type='radio']").all()]
    assert options == ["Approve", "Approve for this run", "Reject"], options
    form.locator(f"input[value='{choice}']").check()
    chat.locator(".lw-dialog-submit").click()
    idle_after(chat, 1 + answered(chat))


def answered(chat: Any) -> int:
    return int(chat.locator(".lw-dialog[data-status='answered']").count())


def idle_after(chat: Any, calls: int) -> None:
    """Wait until ``calls`` kernel calls show answered and the agent is idle again (read
    afresh each time: the front end may redraw the chat meanwhile)."""
    done = retry_until(
        lambda: (
            chat.locator(".lw-dialog[data-status='answered']").count() >= calls
            and chat.locator(".lw-state[data-state='idle']").count() > 0
        ),
        120,
    )
    assert done, f"not idle with {calls} calls answered"


@pytest.mark.parametrize("agent", AGENTS)
def test_two_approvals_in_two_turns_then_one_the_run_gives(lab_page: Any, agent: str) -> None:
    try:
        chat = chat_of(lab_page, 1 + AGENTS.index(agent))
        send(chat, "count the rows of df into x")
        approve(chat, "Approve")
        send(chat, "please do that again")
        approve(chat, "Approve for this run")
        # The third ask is the run's to answer: no form, never "question".
        cell = lab_page.locator(CELLS).nth(1 + AGENTS.index(agent))
        states = watch_states(cell)
        send(chat, "once more, please")
        idle_after(chat, 3)
        seen = set(lab_page.evaluate("(w) => w.seen", states))
        assert "working" in seen and "question" not in seen, seen
        assert chat.locator(".lw-dialog-form").count() == 0
        outcomes = [o.inner_text() for o in chat.locator(".lw-dialog-outcome").all()]
        assert len(outcomes) == 3, outcomes
        assert outcomes[0].endswith("approved"), outcomes
        assert all(o.endswith("approved for this run") for o in outcomes[1:]), outcomes
        # The meter prices the run where the price table knows its model.
        [run] = lab_widget.runs()
        estimate = run.session.cost_usd_estimate
        shown = chat.locator(".lw-cost-estimate").inner_text()
        assert (estimate is not None) == shown.startswith("≈ $"), (estimate, shown)
        assert estimate is not None or agent not in PRICED, agent
    except BaseException:
        show_failure(lab_page)
        raise


@pytest.mark.parametrize("agent", QUESTION_AGENTS)
def test_questions_picked_typed_and_several_answers(lab_page: Any, agent: str) -> None:
    try:
        chat = chat_of(lab_page, 1 + len(AGENTS) + QUESTION_AGENTS.index(agent))
        send(chat, "ask me")
        form = chat.locator(".lw-dialog-form")
        form.wait_for(timeout=120_000)
        assert chat.locator(".lw-state").get_attribute("data-state") == "question"
        assert chat.locator(".lw-input").is_disabled()
        form.locator("fieldset.lw-question[data-header='Database'] input[value='Postgres']").check()
        interface = form.locator("fieldset.lw-question[data-header='Interface']")
        other = interface.locator(".lw-other-input")
        if other.count():  # a question with options takes a typed answer as "Other"
            other.check()
        interface.locator(".lw-freetext").fill("a notebook widget")
        expected = [(["Postgres"], None), ([], "a notebook widget")]
        if agent in MANY_ANSWERS:
            features = form.locator("fieldset.lw-question[data-header='Features']")
            features.locator("input[value='Auth']").check()
            features.locator("input[value='Export']").check()
            expected.append((["Auth", "Export"], None))
        chat.locator(".lw-dialog-submit").click()
        outcome = chat.locator(".lw-dialog[data-status='answered'] .lw-dialog-outcome")
        outcome.wait_for(timeout=90_000)
        assert "Database → Postgres" in outcome.inner_text()
        assert "a notebook widget" in outcome.inner_text()
        if agent in MANY_ANSWERS:
            assert "Features → Auth, Export" in outcome.inner_text()
        chat.locator(".lw-msg", has_text="Thanks, noted.").wait_for(timeout=90_000)
        if agent == "claude-code":
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            chat.screenshot(path=str(ARTIFACTS / "dialog.png"))
        [run] = lab_widget.runs()
        [dialog] = [m.dialog for m in run.messages if m.dialog is not None]
        assert dialog.answers is not None
        assert [(a.selected, a.text) for a in dialog.answers] == expected
        run.stop()
    except BaseException:
        show_failure(lab_page)
        raise


def watch_states(cell: Any) -> Any:
    """Start recording every state the cell's chat shows, also across a redrawn view (the
    front end replaces a settled run's view); a handle to read them from."""
    return cell.evaluate_handle(
        """(cell) => {
            const w = { seen: [] };
            const look = () => {
                for (const badge of cell.querySelectorAll('.lw-chat .lw-state')) {
                    w.seen.push(badge.dataset.state);
                }
            };
            look();
            new MutationObserver(look).observe(cell, {
                subtree: true, childList: true, attributes: true, attributeFilter: ['data-state'],
            });
            return w;
        }"""
    )
