"""Live: OpenCode's permission requests of every kind answered from the chat, through the
real pinned binary's embedded server, verified in its store.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from lab_widget import Reply, Rule, Run, ScriptedModel, ToolUse
from tests.support.pages import PAGE_TEXT, served_page

pytestmark = [pytest.mark.live, pytest.mark.usefixtures("opencode_binary")]

FETCH_ASK: dict[str, Any] = {"permission": {"webfetch": "ask"}}
"""Run option: OpenCode asks before every web fetch."""


def fetching(url: str) -> ScriptedModel:
    fetch = {"url": url, "format": "text"}
    return ScriptedModel(
        rules=[
            Rule(
                "fetch it", [Reply("Fetching.", tools=[ToolUse("webfetch", fetch)]), Reply("Read.")]
            ),
            Rule("again", [Reply("Again.", tools=[ToolUse("webfetch", fetch)]), Reply("Reread.")]),
        ]
    )


def fetch_calls(run: Run) -> list[tuple[str, str]]:
    return [
        (m.tool.status, m.tool.output or "")
        for m in run.messages
        if m.tool is not None and m.tool.name == "webfetch"
    ]


def test_webfetch_permission_answered_from_the_chat(lab_home: Path, workdir: Path) -> None:
    with served_page() as url:
        run = Run("opencode", cwd=workdir, model=fetching(url), **FETCH_ASK)
        try:
            run.send("please fetch it", ready_timeout=90)
            assert run.wait_for(lambda r: r.pending_dialog is not None, timeout=90), run.screen()
            dialog = run.pending_dialog
            assert dialog is not None and dialog.kind == "approval"
            assert dialog.tool_name == "webfetch"
            assert dialog.questions[0].text == f"Permission required: fetch {url}?"
            assert url in dialog.body
            labels = [o.label for o in dialog.questions[0].options]
            assert labels == ["Approve", "Approve always", "Reject"]
            assert run.state == "question"
            final = run.answer("approve")
            assert (final.status, final.outcome) == ("answered", "approved"), final
            assert run.wait(timeout=60) == "idle", run.screen()
            assert run.messages[-1].text == "Read."
            [(status, output)] = fetch_calls(run)
            assert status == "ok" and PAGE_TEXT in output
        finally:
            run.stop()


def test_webfetch_allowed_always_is_not_asked_again(lab_home: Path, workdir: Path) -> None:
    with served_page() as url:
        run = Run("opencode", cwd=workdir, model=fetching(url), **FETCH_ASK)
        try:
            run.send("please fetch it", ready_timeout=90)
            assert run.wait_for(lambda r: r.pending_dialog is not None, timeout=90), run.screen()
            final = run.answer("approve_always")
            assert (final.status, final.outcome) == ("answered", "approved always"), final
            assert final.answers is not None and final.answers[0].selected == ["Approve always"]
            assert run.wait(timeout=60) == "idle", run.screen()
            run.send("do it again")
            assert run.wait_for(lambda r: r.messages[-1].text == "Reread.", 60), run.screen()
            assert [s for s, _ in fetch_calls(run)] == ["ok", "ok"]
            # Only the first fetch was asked: the second shows as a plain tool call.
            assert [m.kind for m in run.messages if m.tool and m.tool.name == "webfetch"] == [
                "dialog",
                "tool",
            ]
        finally:
            run.stop()


def test_webfetch_rejected_fetches_nothing(lab_home: Path, workdir: Path) -> None:
    with served_page() as url:
        run = Run("opencode", cwd=workdir, model=fetching(url), **FETCH_ASK)
        try:
            run.send("please fetch it", ready_timeout=90)
            assert run.wait_for(lambda r: r.pending_dialog is not None, timeout=90), run.screen()
            final = run.answer("reject")
            assert (final.status, final.outcome) == ("rejected", "rejected"), final
            assert run.wait(timeout=60) == "idle", run.screen()
            [(status, output)] = fetch_calls(run)
            assert status == "error" and PAGE_TEXT not in output
        finally:
            run.stop()


def planning() -> ScriptedModel:
    turn = [Reply("The plan is ready.", tools=[ToolUse("plan_exit", {})]), Reply("Building.")]
    return ScriptedModel(rules=[Rule("make a plan", turn)], fallback="Staying in plan mode.")


@pytest.mark.parametrize(("choice", "status"), [("approve", "answered"), ("reject", "rejected")])
def test_plan_exit_answered_from_the_chat(
    lab_home: Path, workdir: Path, choice: str, status: str
) -> None:
    with Run("opencode", cwd=workdir, model=planning(), agent="plan") as run:
        run.send("please make a plan", ready_timeout=90)
        assert run.wait_for(lambda r: r.pending_dialog is not None, timeout=90), run.screen()
        dialog = run.pending_dialog
        assert dialog is not None and dialog.kind == "plan" and dialog.tool_name == "plan_exit"
        assert run.state == "question"
        final = run.answer(choice)
        assert final.status == status, final
        tools = [m.tool for m in run.messages if m.tool]
        assert run.wait_for(lambda r: r.state == "idle", timeout=60), (tools, run.screen())
        [call] = [m for m in run.messages if m.tool and m.tool.name == "plan_exit"]
        assert call.kind == "dialog" and call.dialog is not None
        assert call.tool is not None and call.tool.status == (
            "ok" if choice == "approve" else "error"
        )
