"""Oracle: a Copilot CLI session's tokens equal what the scripted model billed, and
ccusage's (pinned, ``lab_widget.compat.ORACLE``) reading of the same session.

The pinned CLI runs under tmux against the scripted model (chat completions): two prompts,
the second calling a tool between two responses, each response billing its own figures
(cache reads inside the prompt tokens, as the API counts them). ccusage 20.0.24 reads a
Copilot session's ``session.shutdown`` totals only, which the CLI writes when the session
ends: the run clears, and ccusage reads the session the clear closed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TypedDict

from lab_widget import Reply, Rule, Run, ScriptedModel, ToolUse
from lab_widget._run._launch import runner as _runner
from lab_widget.schema import Usage
from tests.support.binaries import pinned_binary
from tests.support.local import local_parts
from tests.support.oracle import ccusage, oracle_binary


class Figures(TypedDict):
    """What a scripted reply bills (``Reply``'s usage keywords)."""

    input_tokens: int
    output_tokens: int
    cache_read_tokens: int


FIGURES: list[Figures] = [
    {"input_tokens": 1100, "output_tokens": 31, "cache_read_tokens": 4010},
    {"input_tokens": 1200, "output_tokens": 32, "cache_read_tokens": 4020},
    {"input_tokens": 1300, "output_tokens": 33, "cache_read_tokens": 4030},
]
"""Different figures per response: one counted twice, or left out, shows."""


def script() -> ScriptedModel:
    echo = ToolUse("Bash", {"command": "echo tool-output-42"})
    return ScriptedModel(
        rules=[
            Rule("hello", Reply("Hello from the scripted model.", **FIGURES[0])),
            Rule(
                "use a tool",
                [
                    Reply("Let me check.", tools=[echo], **FIGURES[1]),
                    Reply("The tool said tool-output-42.", **FIGURES[2]),
                ],
            ),
        ]
    )


def test_tokens_equal_what_the_model_billed_and_ccusages(
    lab_home: Path, workdir: Path, tmp_path: Path
) -> None:
    pinned_binary("copilot")
    oracle_binary()
    model = script()
    run = Run("copilot", cwd=workdir, model=model)
    try:
        run.send("hello", ready_timeout=120)
        assert run.wait(timeout=90) == "idle", run.screen()
        run.send("please use a tool")
        assert run.wait_for(
            lambda r: r.messages[-1].text == "The tool said tool-output-42.", timeout=90
        ), run.screen()
        assert run.wait(timeout=60) == "idle", run.screen()
        # Every request was the script's: no side query billed tokens beside it.
        assert len(model.requests) == len(model.scripted_requests) == 3
        ours = run.session.usage
        first = run.transcript_id
        run.clear()
        assert run.wait_for(lambda r: r.transcript_id != first, timeout=60), run.screen()
        home = local_parts(run).context.runtime_dir / "home"
    finally:
        run.stop()
        _runner().kill_server()
    billed = Usage(
        input_tokens=sum(f["input_tokens"] for f in FIGURES),
        output_tokens=sum(f["output_tokens"] for f in FIGURES),
        cache_read_tokens=sum(f["cache_read_tokens"] for f in FIGURES),
    )
    assert ours == billed
    # ccusage reads COPILOT_HOME=<home>/.copilot: the run's own home is that folder.
    oracle_home = tmp_path / "oracle"
    oracle_home.mkdir()
    (oracle_home / ".copilot").symlink_to(home)
    report = ccusage("copilot", oracle_home)
    assert [s.get("sessionId") for s in report.sessions] == [first], report.raw
    assert report.usage == ours, json.dumps(report.totals)
