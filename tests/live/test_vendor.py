"""Live: what the vendor observes, from the real pinned CLIs under tmux against the scripted
model sending the headers each CLI derives its quotas from. Codex's rate limits in its
rollout; Claude Code's status line (its own cost, the quota windows behind a gateway); the
header, turns, metrics and the Prometheus endpoint over the same run."""

from __future__ import annotations

import time
import urllib.request
from decimal import Decimal
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from lab_widget import Reply, Rule, Run, ScriptedModel, ToolUse, metrics, serve_metrics
from lab_widget.provider.claude_code._statusline import mint_gateway_token
from lab_widget.scripted import ApiError
from tests.support.binaries import pinned_binary

RESET = int(time.time()) + 3 * 3600

CODEX_QUOTA = {
    "x-codex-primary-used-percent": "42.5",
    "x-codex-primary-window-minutes": "300",
    "x-codex-primary-reset-at": str(RESET),
    "x-codex-secondary-used-percent": "7",
    "x-codex-secondary-window-minutes": "10080",
    "x-codex-secondary-reset-at": str(RESET + 86400),
    "x-codex-credits-has-credits": "true",
    "x-codex-credits-unlimited": "false",
    "x-codex-credits-balance": "12.34",
}

CLAUDE_QUOTA = {
    "anthropic-ratelimit-unified-status": "allowed",
    "anthropic-ratelimit-unified-5h-utilization": "0.42",
    "anthropic-ratelimit-unified-5h-reset": str(RESET),
    "anthropic-ratelimit-unified-7d-utilization": "0.07",
    "anthropic-ratelimit-unified-7d-reset": str(RESET + 86400),
    "anthropic-ratelimit-unified-reset": str(RESET),
}


def rules(shell: str) -> list[Rule]:
    return [
        Rule(
            "use a tool",
            [
                Reply("Let me check.", tools=[ToolUse(shell, {"command": "echo tool-output-42"})]),
                Reply("The tool said tool-output-42."),
            ],
        ),
        Rule(
            "nearly spent",
            Reply(
                "Closer to the limit.",
                headers={
                    "x-codex-primary-used-percent": "97",
                    "anthropic-ratelimit-unified-5h-utilization": "0.97",
                },
            ),
        ),
        Rule("hello", Reply("Hello from the scripted model.")),
    ]


def limits_of(run: Run) -> dict[tuple[str, str | None], object]:
    return {r.key: r for r in run.session.rate_limits}


@pytest.mark.usefixtures("codex_binary")
def test_codex_rate_limits_reach_the_session_the_header_and_the_frames(
    lab_home: Path, workdir: Path, comms: list[object]
) -> None:
    model = ScriptedModel(rules=rules("Bash"), headers=CODEX_QUOTA)
    run = Run("codex", cwd=workdir, model=model)
    try:
        run.send("hello")
        assert run.wait(timeout=120) == "idle", run.screen()
        limits = {r.key: r for r in run.session.rate_limits}
        assert limits[("codex", "primary")].used_percent == 42.5
        assert limits[("codex", "primary")].window_minutes == 300
        credits = limits[("codex", "credits")]
        assert credits.remaining == Decimal("12.34")
        run.send("nearly spent")
        assert run.wait(timeout=120) == "idle", run.screen()
        assert run.wait_for(
            lambda r: (
                {x.key: x for x in r.session.rate_limits}[("codex", "primary")].used_percent == 97.0
            ),
            30,
        ), run.session.rate_limits
        view = run.view
        assert view.session is not None
        shown = {(r["limit_id"], r["window"]): r for r in view.session["rate_limits"]}
        assert shown[("codex", "primary")]["used_percent"] == 97.0
        assert shown[("codex", "credits")]["remaining"] == "12.34"  # exact, as a string
        frame = run.to_dataframe(by="rate_limit")
        assert set(frame["window"]) == {"primary", "secondary", "credits"}
        turns = run.turns
        assert [t.prompt for t in turns] == ["hello", "nearly spent"]
        assert all(t.finished and t.requests >= 1 for t in turns)
        assert [t.model_requested for t in turns] == [run.session.model_requested] * 2
    finally:
        run.stop()
        model.stop()


@pytest.mark.usefixtures("claude_binary")
def test_claude_status_line_facts_reach_the_session_turns_header_and_metrics(
    lab_home: Path, workdir: Path, comms: list[object]
) -> None:
    # A gateway's token as the key: the pinned CLI then reads the quota headers.
    model = ScriptedModel(rules=rules("Bash"), headers=CLAUDE_QUOTA, api_key=mint_gateway_token())
    run = Run("claude-code", cwd=workdir, model=model)
    try:
        for prompt in ("hello", "please use a tool", "nearly spent"):
            run.send(prompt)
            assert run.wait(timeout=120) == "idle", run.screen()
            # The status line reports a turn when the CLI gets to run it, after the turn:
            # the next prompt waits for it, as a user reading the answer would.
            assert run.wait_for(
                lambda r: bool(r.turns) and r.turns[-1].vendor_cost_usd is not None, 30
            ), run.turns

        def settled(r: Run) -> bool:
            s = r.session
            five = {x.key: x for x in s.rate_limits}.get(("unified", "five_hour"))
            turns = r.turns
            return (
                five is not None
                and five.used_percent == 97.0
                and len(turns) == 3
                and all(t.vendor_cost_usd is not None for t in turns)
                and s.vendor_cost_usd == sum((t.vendor_cost_usd or 0 for t in turns), Decimal(0))
            )

        assert run.wait_for(settled, 30), (run.session, run.turns)
        session = run.session
        assert isinstance(session.vendor_cost_usd, Decimal) and session.vendor_cost_usd > 0
        assert session.cost_usd_estimate is not None
        # The CLI prices with the catalog the table pins: the two agree but for its float noise.
        assert abs(session.vendor_cost_usd - session.cost_usd_estimate) < Decimal("1e-12")
        limits = {r.key: r for r in session.rate_limits}
        assert limits[("unified", "seven_day")].used_percent == 7.0
        assert limits[("unified", "five_hour")].resets_at is not None
        assert session.context_window == 1_000_000  # the CLI's own window for its model
        turns = run.turns
        assert [t.tool_calls for t in turns] == [{}, {"Bash": 1}, {}]
        assert [t.reasoning_effort for t in turns] == ["medium"] * 3

        # The header: both costs as exact decimal strings, and the quota windows.
        header = run.view.session
        assert header is not None
        assert Decimal(header["vendor_cost_usd"]) == session.vendor_cost_usd
        assert Decimal(header["cost_usd_estimate"]) == session.cost_usd_estimate
        assert {r["window"] for r in header["rate_limits"]} == {"five_hour", "seven_day"}

        # metrics() and the Prometheus endpoint count this live run's turns and tools.
        frame = metrics()
        mine = frame[frame["provider"] == "claude-code"]
        turns_row = mine[mine["metric"] == "turns"]
        assert turns_row["value"].sum() == 3
        tools_row = mine[mine["metric"] == "tool_calls"]
        assert [(r["labels"]["tool"], r["value"]) for _, r in tools_row.iterrows()] == [
            ("Bash", 1.0)
        ]
        server = serve_metrics(0)
        try:
            with urllib.request.urlopen(server.url, timeout=60) as response:
                body = response.read().decode()
        finally:
            server.stop()
        families = {f.name: f for f in text_string_to_metric_families(body)}
        counted = {
            s.labels["outcome"]: s.value
            for s in families["lab_widget_turns"].samples
            if s.labels["provider"] == "claude-code" and s.name.endswith("_total")
        }
        assert counted == {"ok": 3.0}
        tools = {
            s.labels["tool"]: s.value
            for s in families["lab_widget_tool_calls"].samples
            if s.labels["provider"] == "claude-code"
        }
        assert tools == {"Bash": 1.0}
    finally:
        run.stop()
        model.stop()


REFUSALS = {
    # provider: (what the API refuses with, the kind of limit recorded)
    "claude-code": ("rate_limit", "requests"),
    "codex": ("quota", "usage"),
    "opencode": ("quota", "usage"),
}


@pytest.mark.parametrize("provider_id", sorted(REFUSALS))
def test_a_turn_refused_at_a_limit_says_so_and_records_the_limit(
    provider_id: str, lab_home: Path, workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The API refuses every attempt with a 429: Codex gives up at once, OpenCode and Claude
    # Code after their retries (Claude Code's cut to one: its ten take minutes); each records
    # the error, which is all the vendor said.
    monkeypatch.setenv("CLAUDE_CODE_MAX_RETRIES", "1")
    refusal, kind = REFUSALS[provider_id]
    pinned_binary(provider_id)
    model = ScriptedModel(
        rules=[
            Rule("over the limit", Reply("Never sent.", error=ApiError(refusal, retry_after=1))),  # type: ignore[arg-type]
            *rules("Bash"),
        ]
    )
    run = Run(provider_id, cwd=workdir, model=model)
    try:
        run.send("hello", ready_timeout=120)
        assert run.wait(timeout=120) == "idle", run.screen()
        assert not [r for r in run.session.rate_limits if r.source == "error"]
        run.send("over the limit")
        assert run.wait_for(
            lambda r: any(m.kind == "lifecycle" and m.level == "error" for m in r.messages),
            timeout=120,
        ), run.screen()
        assert run.wait(timeout=60) == "idle", run.screen()
        reached = [r for r in run.session.rate_limits if r.status == "reached"]
        assert [(r.kind, r.source) for r in reached] == [(kind, "error")], reached
        assert not any(m.text == "Never sent." for m in run.messages)
        refused = [r for r in model.scripted_requests if r.user_text.endswith("over the limit")]
        assert refused, model.requests  # the request reached the API and was refused
    finally:
        run.stop()
        model.stop()
