"""Live: the agent works in the user's kernel. A real pinned CLI, driven by the scripted
model, calls the ``kernel`` server's ``run_python`` the way a real model would (a streamed
tool call); the chat shows the call as an approval dialog with the code; approving it sets
the variable in the kernel's namespace, rejecting it leaves the kernel untouched.

The kernel is a real IPython kernel started with ``jupyter_client``, as a notebook server
starts one; the run is pointed at its connection file, which is what ``kernel=True`` finds
inside a notebook (the unit tests cover that lookup).
"""

from __future__ import annotations

import ast
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jupyter_client.manager import KernelManager

from lab_widget import Run
from lab_widget._chat._allow import RUN_APPROVE, RUN_OUTCOME
from lab_widget.scripted import Reply, Rule, ScriptedModel, ToolUse
from tests.support.kernel_calls import RUN_PYTHON, model_call
from tests.support.kernels import run_cell, running_kernel, user_value

DESCRIBE = {
    "claude-code": "mcp__kernel__describe",
    "codex": "mcp__kernel__describe",
    "copilot": "kernel-describe",
    "gemini": "mcp_kernel_describe",
    "kilo": "kernel_describe",
    "mistral-vibe": "mcp_kernel.describe",
    "opencode": "kernel_describe",
    "qwen-code": "mcp__kernel__describe",
}
"""The providers whose reading tools are checked to run without asking: their name for
``describe``."""

CODE = "x = len(df)"
CALL = CODE + "\nprint('rows:', x)"
SLOW = "import time\ntime.sleep(8)\n" + CALL
"""Code that runs on well after its approval was given."""


def tool_names(body: dict[str, Any]) -> list[str]:
    """The names of the tools a request offers the model (Anthropic's wire)."""
    return [str(t.get("name")) for t in body.get("tools") or [] if isinstance(t, dict)]


@pytest.fixture
def kernel() -> Iterator[KernelManager]:
    with running_kernel("import pandas as pd\ndf = pd.DataFrame({'a': range(7)})") as manager:
        yield manager


def asking_run(provider_id: str, workdir: Path, kernel: KernelManager | None) -> Run:
    """A run whose model asks to run ``CALL`` in the kernel for each of two prompts (``SLOW``
    when asked to go slowly), and code that raises for a third (``kernel=None``: a run not
    given the kernel's tools)."""

    def turn_with(code: str) -> list[Reply]:
        return [
            Reply(
                "Let me count them in your kernel.",
                tools=[model_call(provider_id, RUN_PYTHON[provider_id], {"code": code})],
            ),
            Reply("Done: x holds the row count."),
        ]

    turn = turn_with(CALL)
    missing = [
        Reply(tools=[model_call(provider_id, RUN_PYTHON[provider_id], {"code": "df['missing']"})]),
        Reply("That column does not exist."),
    ]
    rules = [
        Rule("slowly", turn_with(SLOW)),
        Rule("again", turn),
        Rule("count the rows", turn),
        Rule("missing", missing),
    ]
    model = ScriptedModel(rules=rules, fallback="ok")
    tools = kernel.connection_file if kernel is not None else False
    return Run(provider_id, cwd=workdir, model=model, kernel=tools)


def ask(run: Run, provider_id: str, prompt: str) -> None:
    """Send ``prompt`` and check the approval the call to ``run_python`` asks for."""
    run.send(prompt)
    assert run.wait(timeout=120) == "question", run.screen()
    dialog = run.pending_dialog
    assert dialog is not None and dialog.kind == "approval", dialog
    assert dialog.tool_name == RUN_PYTHON[provider_id]
    assert CODE in dialog.body
    # Approved call by call, or for this run: no "don't ask again" that would outlive it.
    assert [o.label for o in dialog.questions[0].options] == ["Approve", RUN_APPROVE, "Reject"]


@pytest.mark.parametrize("provider_id", sorted(RUN_PYTHON))
def test_run_python_rejected_untouched_approved_sets_the_variable_and_an_error_comes_back(
    lab_home: Path, workdir: Path, kernel: KernelManager, provider_id: str
) -> None:
    # One run, three turns: what a rejection leaves, what an approval does, and an
    # exception in the approved code.
    run = asking_run(provider_id, workdir, kernel)
    try:
        ask(run, provider_id, "count the rows of df into x")
        final = run.answer("reject")
        assert final.status == "rejected"
        assert run.wait(timeout=120) == "idle", run.screen()
        assert user_value(kernel, "'x' in globals()") == "False"

        ask(run, provider_id, "please try that again, slowly")
        final = run.answer("approve")
        assert (final.status, final.outcome) == ("answered", "approved")
        # Answered as soon as the code began, though some CLIs record the approval only
        # with the call's result: the chat no longer asks while the code runs.
        assert run.pending_dialog is None
        assert run.state == "working", run.screen()
        slow = [m for m in run.messages if m.tool and m.tool.input.get("code") == SLOW]
        # No result yet (a CLI that writes the call only with its result shows no card).
        assert all(m.tool.status == "running" for m in slow if m.tool), slow
        assert not [m for m in run.messages if m.dialog and m.dialog.status == "pending"]
        assert run.wait(timeout=120) == "idle", run.screen()
        assert user_value(kernel, "x") == "7"
        cards = [m for m in run.messages if m.tool and m.tool.name == RUN_PYTHON[provider_id]]
        assert [c.tool.status for c in cards if c.tool is not None][-1] == "ok"
        card = cards[-1]
        assert card.tool is not None and card.tool.input.get("code") == SLOW
        assert "rows: 7" in (card.tool.output or "")

        run.send("show the missing column")
        assert run.wait(timeout=120) == "question", run.screen()
        run.answer("approve")
        assert run.wait(timeout=120) == "idle", run.screen()
        card = [m for m in run.messages if m.tool and m.tool.name == RUN_PYTHON[provider_id]][-1]
        assert card.tool is not None and card.tool.status == "error", card.tool
        assert "KeyError: 'missing'" in (card.tool.output or "")
        # What the model was sent back is the error, traceback included.
        model = run.scripted_model
        assert model is not None
        [back] = [r for r in model.scripted_requests if "KeyError" in json.dumps(r.body)]
        assert "Traceback" in json.dumps(back.body)
    finally:
        run.stop()


def test_approved_for_this_run_the_next_calls_run_without_asking(
    lab_home: Path, workdir: Path, kernel: KernelManager
) -> None:
    run = asking_run("claude-code", workdir, kernel)
    try:
        ask(run, "claude-code", "count the rows of df into x")
        first = run.answer(RUN_APPROVE)
        assert (first.status, first.outcome) == ("answered", RUN_OUTCOME)
        assert run.wait(timeout=120) == "idle", run.screen()
        assert user_value(kernel, "x") == "7"
        run.send("please do that again")
        # Asked again by the CLI, approved by the run: the chat shows it answered so.
        assert run.wait(timeout=120) == "idle", run.screen()
        cards = [m for m in run.messages if m.tool and m.tool.name == RUN_PYTHON["claude-code"]]
        assert [c.dialog.outcome for c in cards if c.dialog] == [RUN_OUTCOME, RUN_OUTCOME]
        assert [c.tool.status for c in cards if c.tool is not None] == ["ok", "ok"]
    finally:
        run.stop()


def test_a_run_without_kernel_has_no_kernel_server_until_restarted_with_it(
    lab_home: Path, workdir: Path, kernel: KernelManager
) -> None:
    run = asking_run("claude-code", workdir, None)
    try:
        run.send("hello")
        assert run.wait(timeout=120) == "idle"
        assert run.scripted_model is not None
        requests = [r for r in run.scripted_model.scripted_requests if r.user_text == "hello"]
        assert requests and all(tool_names(r.body) for r in requests)
        assert not any("kernel" in n for r in requests for n in tool_names(r.body))
        assert run.kernel_tools is False
        said = run.messages

        # The header's switch: the CLI reads its tool servers only as it starts.
        first_id = run.id
        run.restart(kernel=kernel.connection_file)
        assert run.kernel_tools is True and run.id != first_id
        ask(run, "claude-code", "count the rows of df into x")
        run.answer("approve")
        assert run.wait(timeout=120) == "idle", run.screen()
        assert user_value(kernel, "x") == "7"
        # The conversation before the restart is an earlier one; the new one has the call.
        assert [e.messages for e in run.past_conversations] == [said]
        assert [m.text for m in run.messages if m.role == "user"][:1] == [
            "count the rows of df into x"
        ]
    finally:
        run.stop()


@pytest.mark.parametrize("provider_id", sorted(DESCRIBE))
def test_reading_tools_run_without_asking_and_describe_a_dataframe(
    lab_home: Path, workdir: Path, kernel: KernelManager, provider_id: str
) -> None:
    describe = DESCRIBE[provider_id]
    turn = [
        Reply("Let me look at df.", tools=[model_call(provider_id, describe, {"name": "df"})]),
        Reply("df has 7 rows."),
    ]
    model = ScriptedModel(rules=[Rule("describe", turn)], fallback="ok")
    with Run(provider_id, cwd=workdir, model=model, kernel=kernel.connection_file) as run:
        run.send("describe df")
        assert run.wait(timeout=120) == "idle", run.screen()
        [card] = [m for m in run.messages if m.tool and m.tool.name == describe]
        assert card.kind != "dialog" and card.tool is not None and card.tool.status == "ok"
        assert "`df`: pandas DataFrame, 7 rows × 1 columns" in (card.tool.output or "")


def test_a_cell_waiting_on_the_run_runs_the_calls_it_waits_for(
    lab_home: Path, workdir: Path
) -> None:
    # As nbval and "Run All" send cells: each as soon as the last one ended, so every call
    # reaches the kernel while a cell waits on the run and holds the kernel's main thread.
    setup = (
        "import pandas as pd\n"
        "from lab_widget import Run\n"
        "from lab_widget.scripted import Reply, Rule, ScriptedModel, ToolUse\n"
        "df = pd.DataFrame({'a': range(7)})"
    )
    describe = [
        Reply(tools=[ToolUse(DESCRIBE["claude-code"], {"name": "df"})]),
        Reply("df has 7 rows."),
    ]
    count = [Reply(tools=[ToolUse(RUN_PYTHON["claude-code"], {"code": CALL})]), Reply("Done.")]
    start = (
        f"model = ScriptedModel(rules=[Rule('describe', {describe!r}), "
        f"Rule('count the rows', {count!r})])\n"
        f"run = Run('claude-code', cwd={str(workdir)!r}, model=model, kernel=True)\n"
        "run.send('describe df')\n"
        "print(run.wait(timeout=120))"
    )
    with running_kernel(setup) as kernel:
        described = run_cell(kernel, start, "start")
        assert described.stdout.split() == ["idle"], described
        asked = run_cell(kernel, "run.send('count the rows of df')\nprint(run.wait())", "ask")
        assert asked.stdout.split() == ["question"], asked
        approved = run_cell(
            kernel, "print(run.answer('approve').status)\nprint(run.wait())\nprint(x)", "approve"
        )
        # The call's own print went to the agent, not into the cell that ran it.
        assert approved.stdout.split() == ["answered", "idle", "7"], approved
        outputs = run_cell(
            kernel, "print(repr([m.tool.output for m in run.messages if m.tool]))", "look"
        )
        described_df, counted = ast.literal_eval(outputs.stdout.strip())
        assert "`df`: pandas DataFrame, 7 rows × 1 columns" in described_df
        assert "rows: 7" in counted
        assert run_cell(kernel, "run.stop()", "stop").status == "ok"


CUT_OFF = ("codex", "kilo", "mistral-vibe", "opencode")
"""The CLIs whose own limit on one call is 60 s, told the server's (``call_timeout``)."""


@pytest.mark.parametrize("provider_id", CUT_OFF)
def test_the_cli_gives_a_call_the_time_the_server_asks_for(
    lab_home: Path,
    workdir: Path,
    kernel: KernelManager,
    provider_id: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The run gives calls 360 s; told 5 s instead, the CLI gives up on a 12 s call at 5 s:
    # the limit reaches it (without it, its own 60 s cut a 70 s cell short).
    monkeypatch.setattr("lab_widget._kernel._spec.CALL_TIMEOUT", 5.0)
    code = "import time\ntime.sleep(12)\nslept = 1"
    turn = [
        Reply(tools=[model_call(provider_id, RUN_PYTHON[provider_id], {"code": code})]),
        Reply("That took too long."),
    ]
    model = ScriptedModel(rules=[Rule("sleep", turn)], fallback="ok")
    with Run(provider_id, cwd=workdir, model=model, kernel=kernel.connection_file) as run:
        run.send("please sleep a while")
        assert run.wait(timeout=120) == "question", run.screen()
        run.answer("approve", timeout=60)
        assert run.wait(timeout=120) == "idle", run.screen()
        [card] = [m for m in run.messages if m.tool and m.tool.name == RUN_PYTHON[provider_id]]
        assert card.tool is not None and card.tool.status == "error", card.tool
        # Cut off by the CLI, not ended by the server: the code ran on to its end.
        assert "slept" not in (card.tool.output or "")
    assert user_value(kernel, "slept") == "1"
