"""Oracle: ccusage, an independent reader of the agents' own files, agrees with ours.

Each of the four pinned CLIs runs a short session under tmux against the scripted model
(two turns; the second calls a tool between two model responses; every response reports
its own token counts, cache reads and writes included), in the run's isolated home. Then
ccusage (pinned, ``lab_widget.compat.ORACLE``) reads that home and its session totals
must equal ``run.session.usage`` token for token; the cost estimates must agree within
2 % where both price tables know the model. The CLIs are asked for a model both tables
price (the scripted model answers as whatever model it is asked for).

A missing ccusage or CLI fails loudly: ``make setup`` installs them.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import TypedDict

import pytest

from lab_widget import Endpoint, Reply, Rule, Run, ScriptedModel, ToolUse, WaitTimeoutError
from lab_widget._run._launch import runner as _runner
from lab_widget.schema import SessionSummary
from tests.support.binaries import pinned_binary
from tests.support.local import local_parts
from tests.support.oracle import Report, ccusage, oracle_binary

PROVIDERS = ["claude-code", "codex", "gemini", "opencode"]

MODEL = "claude-sonnet-4-5"
"""A model lab_widget's pinned prices and ccusage's bundled prices both know. Each CLI
sends it to the scripted model, which answers as that model; Codex offers its shell tool
to it as to its own models."""

COST_MARGIN = 0.02


class ReplyUsage(TypedDict):
    """The figures a scripted reply reports (``Reply``'s usage keywords)."""

    input_tokens: int
    output_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    cache_write_1h_tokens: int


def _usage(step: int) -> ReplyUsage:
    # Different figures per response: a response counted twice, or one left out, shows.
    return {
        "input_tokens": 1000 + 100 * step,
        "output_tokens": 30 + step,
        "cache_read_tokens": 4000 + 10 * step,
        "cache_write_tokens": 200 + step,
        # Most writes to the one-hour cache, priced at 2x the input (5-minute: 1.25x): a
        # reader or a price table that takes them for 5-minute writes is 10 % off.
        "cache_write_1h_tokens": 150 + step,
    }


def script() -> ScriptedModel:
    return ScriptedModel(
        rules=[
            Rule("hello", Reply("Hello from the scripted model.", **_usage(1))),
            Rule(
                "use a tool",
                [
                    Reply(
                        "Let me check.",
                        tools=[ToolUse("Bash", {"command": "echo tool-output-42"})],
                        reasoning="The user wants a tool call.",
                        chunk_delay=0.05,
                        **_usage(2),
                    ),
                    Reply("The tool said tool-output-42.", chunk_delay=0.05, **_usage(3)),
                ],
            ),
        ]
    )


@dataclass(frozen=True)
class Recorded:
    provider: str
    session: SessionSummary
    home: Path
    report: Report


@pytest.fixture(scope="module", params=PROVIDERS)
def recorded(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Recorded]:
    """One real session of a provider, read by us and by ccusage (once per provider)."""
    provider = str(request.param)
    pinned_binary(provider)
    oracle_binary()
    base = tmp_path_factory.mktemp(provider)
    work = base / "work"
    work.mkdir()
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("LAB_WIDGET_HOME", str(base / "lab"))
        model = script().start()
        run = Run(provider, cwd=work, model=MODEL, endpoint=Endpoint(model.base_url, model.api_key))
        try:
            for prompt in ("hello", "please use a tool"):
                run.send(prompt)
                try:
                    state = run.wait(timeout=180)
                except WaitTimeoutError:
                    pytest.fail(f"{provider} never finished {prompt!r}:\n{run.screen()}")
                assert state == "idle", run.screen()
            assert run.messages[-1].text == "The tool said tool-output-42.", run.screen()
            calls = [(m.tool.name, m.tool.status, m.tool.output) for m in run.messages if m.tool]
            assert any(status == "ok" for _, status, _ in calls), (calls, run.screen())
            session = run.session
            home = local_parts(run).context.runtime_dir / "home"
        finally:
            run.stop()
            model.stop()
            _runner().kill_server()
        yield Recorded(provider, session, home, ccusage(provider, home))


def test_tokens_equal_ccusage_session_totals(recorded: Recorded) -> None:
    # Input, output, cache reads and cache writes, each equal: never a margin on tokens.
    assert recorded.report.sessions, f"ccusage found no session in {recorded.home}"
    ours = recorded.session.usage
    # ccusage reports cache writes whole; only the Anthropic wire splits them by lifetime.
    assert ours.cache_write_1h_tokens == (456 if recorded.provider == "claude-code" else 0)
    whole = ours.model_copy(update={"cache_write_1h_tokens": 0})
    assert whole == recorded.report.usage, json.dumps(recorded.report.totals)


def test_cost_estimate_within_two_percent_of_ccusages_offline_cost(recorded: Recorded) -> None:
    ours, cost = recorded.session.cost_usd_estimate, recorded.report.cost
    assert ours is not None, f"lab_widget's price table does not know {recorded.session.model}"
    assert cost is not None and not recorded.report.missing_pricing, recorded.report.raw
    theirs = Decimal(repr(cost))  # ccusage's JSON number, as the decimal it printed
    assert abs(ours - theirs) <= Decimal(str(COST_MARGIN)) * theirs, (ours, theirs)
