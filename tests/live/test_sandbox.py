"""Live: the real pinned CLIs sandboxed under bubblewrap, against the scripted model."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from lab_widget import Reply, Rule, Run, ScriptedModel, ToolUse
from lab_widget._workspace._sandbox import bwrap_binary
from lab_widget.errors import SandboxError
from tests.support.questions import DATABASE


@pytest.fixture(autouse=True)
def bubblewrap() -> str:
    try:
        return bwrap_binary()
    except SandboxError as exc:
        pytest.fail(f"{exc} (the sandbox tests need it)")


@pytest.fixture
def secret() -> Iterator[Path]:
    """A file in the kernel user's real home that no sandboxed agent may read."""
    path = Path.home() / f".lab-widget-sandbox-probe-{uuid.uuid4().hex[:8]}"
    path.write_text("the kernel user's secret\n")
    path.chmod(0o600)
    try:
        yield path
    finally:
        path.unlink(missing_ok=True)


def tool_results(run: Run) -> list[tuple[str, str]]:
    return [(m.tool.status, m.tool.output or "") for m in run.messages if m.tool is not None]


@pytest.mark.usefixtures("claude_binary")
def test_a_sandboxed_agent_cannot_read_the_users_home_but_edits_its_folder(
    lab_home: Path, workdir: Path, secret: Path
) -> None:
    model = ScriptedModel(
        rules=[
            Rule(
                "look around",
                [
                    Reply(tools=[ToolUse("Bash", {"command": f"cat {secret}"})]),
                    Reply(tools=[ToolUse("Bash", {"command": f"ls -A {Path.home()}"})]),
                    Reply(tools=[ToolUse("Bash", {"command": "echo landed > edited.txt"})]),
                    Reply("Looked around."),
                ],
            ),
            Rule(
                "ask",
                [
                    Reply(tools=[ToolUse("AskUserQuestion", {"questions": [DATABASE]})]),
                    Reply("Thanks, noted."),
                ],
            ),
        ]
    )
    run = Run("claude-code", cwd=workdir, model=model, sandbox=True)
    try:
        run.send("look around")
        assert run.wait(timeout=90) == "idle", run.screen()
        # The pane's process is bubblewrap (the launcher exec'd into it), which ends with
        # the agent: the exit watch works unchanged.
        assert Path(f"/proc/{run.pane.pid()}/exe").resolve().name == "bwrap"
        [cat, listing, edit] = tool_results(run)
        assert cat[0] == "error" and "No such file" in cat[1], cat
        assert "kernel user's secret" not in cat[1]
        # The user's home is not there at all (the agent's home is the run's isolated one).
        assert secret.name not in listing[1] and "No such file" in listing[1], listing
        assert edit[0] == "ok"
        assert (workdir / "edited.txt").read_text() == "landed\n"
        assert run.messages[-1].text == "Looked around."
        # The hooks spooled into the run folder from inside the sandbox.
        spool = lab_home / "runs" / run.id / "signals"
        events = {json.loads(p.read_text())["hook_event_name"] for p in spool.glob("*.json")}
        assert "SessionStart" in events
        # And a dialog is answered as outside.
        run.send("ask me")
        assert run.wait(timeout=60) == "question", run.screen()
        final = run.answer({"Database": "Postgres"})
        assert final.status == "answered" and final.outcome == "Database → Postgres"
        assert run.wait(timeout=60) == "idle"
        assert run.messages[-1].text == "Thanks, noted."
    finally:
        run.stop()
    assert run.state == "ended"


@pytest.mark.usefixtures("codex_binary")
def test_an_agent_that_sandboxes_its_own_commands_runs_them_inside_the_sandbox(
    lab_home: Path, workdir: Path, secret: Path
) -> None:
    # Codex CLI runs each command in a bubblewrap sandbox of its own: a user namespace
    # nested in the run's.
    model = ScriptedModel(
        rules=[
            Rule(
                "work",
                [
                    Reply(tools=[ToolUse("Bash", {"command": "echo nested > nested.txt"})]),
                    Reply(tools=[ToolUse("Bash", {"command": f"cat {secret}"})]),
                    Reply("Worked."),
                ],
            )
        ]
    )
    run = Run("codex", cwd=workdir, model=model, sandbox=True)
    try:
        run.send("work please")
        assert run.wait(timeout=90) == "idle", run.screen()
        [edit, cat] = tool_results(run)
        assert edit[0] == "ok", edit
        assert (workdir / "nested.txt").read_text() == "nested\n"
        assert cat[0] == "error" and "kernel user's secret" not in cat[1], cat
        assert run.messages[-1].text == "Worked."
    finally:
        run.stop()
