"""Unit: what the vendor observes, as data. Rate limits and quotas, the CLI's own cost as
an exact decimal, per-turn facts, a model answering in place of the one asked for; read from
fixtures recorded from the pinned CLIs (``scripts/record_fixtures.py statusline
substitution``, ``scripts/record_codex_fixtures.py rate_limits``)."""

from __future__ import annotations

import json
import subprocess
from decimal import Decimal
from pathlib import Path

import pytest

from lab_widget import read_transcript, to_dataframe, turns_dataframe
from lab_widget._reading._pricing import enrich_summary, estimate_cost
from lab_widget._reading._turns import derive_turns
from lab_widget._widgets import RunView
from lab_widget.provider import Endpoint, RunContext, SpawnRequest, TranscriptRef, get_provider
from lab_widget.provider.claude_code import _compat as claude_compat
from lab_widget.provider.claude_code._statusline import (
    StatusSpool,
    is_gateway_token,
    mint_gateway_token,
    status_command,
)
from lab_widget.provider.codex._limits import rate_limits
from lab_widget.schema import Chat, Message, RateLimit, SessionSummary, ToolCall, Usage
from tests.support.paths import FIXTURES

from .test_view import StubSource, text_message

CLAUDE = FIXTURES / "claude-code"
CODEX = FIXTURES / "codex"
STATUS = CLAUDE / "status-line"


def lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


# -- Codex: token_count.rate_limits ----------------------------------------------------


def test_codex_rollout_shows_its_rate_limit_snapshots_latest_per_limit() -> None:
    chat = read_transcript(CODEX / "rate_limits.jsonl", provider="codex")
    limits = {r.key: r for r in chat.session.rate_limits}
    assert set(limits) == {("codex", "primary"), ("codex", "secondary"), ("codex", "credits")}
    primary = limits[("codex", "primary")]
    # The second turn's response reported 97 %: the latest snapshot wins, as reported.
    assert (primary.used_percent, primary.window_minutes, primary.kind) == (97.0, 300, "usage")
    assert primary.resets_at is not None and int(primary.resets_at.timestamp()) == 1796180400
    assert primary.used is None and primary.limit is None  # a share only: nothing derived
    assert limits[("codex", "secondary")].used_percent == 7.0
    credits = limits[("codex", "credits")]
    assert (credits.kind, credits.remaining, credits.unit, credits.unlimited) == (
        "credits",
        Decimal("12.34"),
        "credits",
        False,
    )
    assert credits.used_percent is None  # an absolute balance only
    payloads = [line.get("payload") for line in lines(CODEX / "rate_limits.jsonl")]
    raw = [
        p["rate_limits"] for p in payloads if isinstance(p, dict) and p.get("type") == "token_count"
    ]
    assert raw[-1]["primary"]["used_percent"] == 97.0  # what the CLI itself wrote last
    assert all(r.observed_at is not None and r.source == "token_count" for r in limits.values())


@pytest.mark.parametrize("folder", [CODEX, CODEX / "v0.150.1", CODEX / "v0.80.0"])
def test_codex_rollouts_without_quota_headers_have_no_snapshots(folder: Path) -> None:
    # The pinned CLI writes rate_limits full of nulls, 0.80.0 writes none: no snapshot.
    assert read_transcript(folder / "hello.jsonl", provider="codex").session.rate_limits == []


def test_codex_rate_limit_mapping_keeps_what_the_vendor_gave() -> None:
    named = rate_limits(
        {
            "limit_id": "codex_other",
            "limit_name": "gpt-other",
            "primary": {"used_percent": 88, "window_minutes": 60, "resets_at": None},
            "credits": {"has_credits": False, "unlimited": False, "balance": "0"},
            "plan_type": "pro",
            "rate_limit_reached_type": "primary",
        }
    )
    assert [(r.limit_id, r.name, r.window, r.plan_type, r.status) for r in named] == [
        ("codex_other", "gpt-other", "primary", "pro", "primary"),
        ("codex_other", "gpt-other", "credits", "pro", "primary"),
    ]
    assert rate_limits("nonsense") == [] and rate_limits({"primary": "x"}) == []
    exhausted = rate_limits({"credits": {"has_credits": False, "balance": "0"}})
    assert [(r.limit_id, r.status, r.remaining) for r in exhausted] == [
        ("codex", "exhausted", Decimal("0"))
    ]


def test_codex_rate_limits_frame() -> None:
    chat = read_transcript(CODEX / "rate_limits.jsonl", provider="codex")
    frame = to_dataframe(chat, by="rate_limit")
    assert list(frame["window"]) == ["primary", "secondary", "credits"]
    assert frame.loc[frame["window"] == "credits", "remaining"].iloc[0] == Decimal("12.34")
    assert str(frame["resets_at"].dt.tz) == "UTC"
    with pytest.raises(ValueError, match="Chat"):
        to_dataframe(chat.messages, by="rate_limit")


def test_codex_turn_facts_and_reasoning_tokens() -> None:
    chat = read_transcript(CODEX / "tools.jsonl", provider="codex")
    turns = chat.turns
    assert [t.prompt for t in turns] == ["please use a tool", "now a failing tool"]
    assert [t.model_requested for t in turns] == ["gpt-5.1-codex", "gpt-5.1-codex"]
    assert [t.duration_ms for t in turns] == [861, 635]  # task_complete's own durations
    assert turns[0].usage.reasoning_tokens > 0  # the scripted reasoning, as Codex counted it
    assert sum((t.usage for t in turns), Usage()) == chat.session.usage
    assert [t.tool_calls for t in turns] == [{"exec_command": 1}, {"exec_command": 1}]
    assert [t.tool_errors for t in turns] == [0, 1]


# -- Claude Code: the status line ------------------------------------------------------


def status_session() -> tuple[Chat, SessionSummary]:
    """The status-line fixture's transcript as a run reads it (its real session id), merged
    with the run's spooled payloads."""
    path = CLAUDE / "statusline.jsonl"
    session_id = next(str(e["sessionId"]) for e in lines(path) if "sessionId" in e)
    provider = get_provider("claude-code")
    reader = provider.open_reader(TranscriptRef(transcript_id=session_id, path=path))
    reader.read()
    context = RunContext(run_id="fixture", cwd=Path("/fixture/work"), runtime_dir=STATUS)
    merged = enrich_summary(provider.live_session(context, reader.summary))
    chat = Chat(messages=reader.messages, state=reader.settled_state(), session=merged)
    return chat, merged


def test_status_line_gives_the_clis_cost_exactly_as_it_wrote_it() -> None:
    _, session = status_session()
    last = lines(STATUS / claude_compat.STATUS_SPOOL)[-1]["status"]
    written = last["cost"]["total_cost_usd"]  # type: ignore[index]
    assert isinstance(session.vendor_cost_usd, Decimal)
    # The CLI sums floats: its figure keeps its own rounding noise, recorded as written.
    assert session.vendor_cost_usd == Decimal(repr(written)) == Decimal("0.049316000000000006")
    assert session.currency == "USD"


def test_status_line_quotas_are_the_unified_limiters_windows() -> None:
    _, session = status_session()
    limits = {r.key: r for r in session.rate_limits}
    assert set(limits) == {("unified", "five_hour"), ("unified", "seven_day")}
    five = limits[("unified", "five_hour")]
    assert (five.used_percent, five.window_minutes, five.source) == (97.0, 300, "status line")
    assert five.resets_at is not None and int(five.resets_at.timestamp()) == 1796180400
    assert limits[("unified", "seven_day")].window_minutes == 10080


def test_status_line_context_window_beats_the_price_table() -> None:
    _, session = status_session()
    assert session.context_window == 1_000_000  # the CLI's own figure for its model


def test_each_turns_vendor_cost_is_what_the_clis_running_total_grew_by() -> None:
    chat, session = status_session()
    turns = derive_turns(chat.messages, session)
    assert [t.prompt for t in turns] == ["hello", "please use a tool", "quota again"]
    for turn in turns:
        assert turn.vendor_cost_usd is not None and turn.cost_usd_estimate is not None
        # The estimate prices the same tokens with the CLI's own catalog: equal but for
        # the CLI's float noise.
        assert abs(turn.vendor_cost_usd - turn.cost_usd_estimate) < Decimal("1e-12"), turn
    assert sum((t.vendor_cost_usd or Decimal(0) for t in turns), Decimal(0)) == (
        session.vendor_cost_usd
    )


def test_claude_turn_facts_effort_tier_and_requested_model() -> None:
    chat = read_transcript(CLAUDE / "tools.jsonl", provider="claude-code")
    turns = chat.turns
    assert [t.reasoning_effort for t in turns] == ["medium", "medium"]
    assert [t.service_tier for t in turns] == ["standard", "standard"]
    assert [t.model_requested for t in turns] == ["claude-opus-5-5", "claude-opus-5-5"]
    recorded = [
        json.loads(line)["durationMs"]
        for line in (CLAUDE / "tools.jsonl").read_text().splitlines()
        if '"subtype":"turn_duration"' in line
    ]
    assert len(recorded) == 2 and [t.duration_ms for t in turns] == recorded
    assert [t.tool_calls for t in turns] == [{"Bash": 1}, {"Bash": 1}]
    assert [t.tool_errors for t in turns] == [0, 1]
    assert [t.outcome for t in turns] == ["ok", "ok"]
    total = sum((t.usage for t in turns), Usage())
    assert total == chat.session.usage
    assert sum(t.requests for t in turns) == len({m.seq for m in chat.messages if m.usage})


def test_a_substituted_model_is_a_visible_note_once_per_change() -> None:
    chat = read_transcript(CLAUDE / "substitution.jsonl", provider="claude-code")
    notes = [m for m in chat.messages if m.kind == "lifecycle"]
    assert [(m.text, m.level) for m in notes] == [
        ("Asked for claude-opus-5-5; claude-haiku-4-5 answered.", "warning")
    ]
    turns = chat.turns
    assert [(t.model_requested, t.model) for t in turns] == [
        ("claude-opus-5-5", "claude-opus-5-5"),
        ("claude-opus-5-5", "claude-haiku-4-5"),
        ("claude-opus-5-5", "claude-haiku-4-5"),
        ("claude-opus-5-5", "claude-opus-5-5"),
    ]
    # Each turn is priced with the model that answered it.
    assert turns[1].cost_usd_estimate == estimate_cost("claude-haiku-4-5", turns[1].usage)


def test_command_echoes_are_no_turns_and_subagent_work_counts_in_its_turn() -> None:
    after = read_transcript(CLAUDE / "clear_after.jsonl", provider="claude-code")
    assert all(t.prompt != "/clear" for t in after.turns)
    sub = read_transcript(CLAUDE / "subagent.jsonl", provider="claude-code")
    assert sum((t.usage for t in sub.turns), Usage()) == sub.session.usage
    assert any(t.tool_calls.get("Agent") for t in sub.turns)
    assert sub.turns[0].models == ["claude-opus-5-5"]


def test_status_spool_skips_cut_lines_and_keeps_sessions_apart(tmp_path: Path) -> None:
    spool = tmp_path / claude_compat.STATUS_SPOOL
    record = {
        "at": 1,
        "status": {"session_id": "a", "prompt_id": "p", "cost": {"total_cost_usd": 0.5}},
    }
    other = {"at": 2, "status": {"session_id": "b", "cost": {"total_cost_usd": 9}}}
    spool.write_text(
        json.dumps(record) + "\n" + '{"at": 3, "status": {"sess' + "\n" + json.dumps(other) + "\n"
    )
    reader = StatusSpool(spool)
    merged = reader.merge(SessionSummary(transcript_id="a"))
    assert merged.vendor_cost_usd == Decimal("0.5")
    assert reader.merge(SessionSummary(transcript_id="b")).vendor_cost_usd == Decimal("9")
    assert reader.merge(SessionSummary(transcript_id="c")).vendor_cost_usd is None
    # A cost the transcript recorded (cost-state) stays: the status line adds, never replaces.
    kept = reader.merge(SessionSummary(transcript_id="a", vendor_cost_usd=Decimal("0.4")))
    assert kept.vendor_cost_usd == Decimal("0.4")


def test_status_command_spools_the_payload_and_runs_the_users_own(tmp_path: Path) -> None:
    spool = tmp_path / "spool.jsonl"
    seen = tmp_path / "seen.json"
    payload = json.dumps({"session_id": "s", "cost": {"total_cost_usd": 0.25}})
    own = f"cat > {seen}; printf 'my status'"
    out = subprocess.run(
        ["sh", "-c", status_command(spool, own)],
        input=payload,
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.returncode == 0 and out.stdout == "my status"  # the user's row still shows
    assert json.loads(seen.read_text()) == json.loads(payload)
    [line] = lines(spool)
    assert line["status"] == json.loads(payload) and isinstance(line["at"], int)
    alone = subprocess.run(
        ["sh", "-c", status_command(spool)],
        input=payload,
        capture_output=True,
        text=True,
        check=False,
    )
    assert alone.returncode == 0 and alone.stdout == ""
    assert len(lines(spool)) == 2


def test_a_run_spools_the_status_line_and_passes_a_gateway_token(tmp_path: Path) -> None:
    provider = get_provider("claude-code")
    context = RunContext(run_id="r", cwd=tmp_path, runtime_dir=tmp_path / "run")
    context.runtime_dir.mkdir()
    token = mint_gateway_token()
    assert is_gateway_token(token) and not is_gateway_token("sk-ant-0123456789")
    plan = provider.plan_spawn(
        SpawnRequest(context, Path("/bin/claude"), endpoint=Endpoint("http://127.0.0.1:9", token))
    )
    assert plan.env["ANTHROPIC_AUTH_TOKEN"] == token
    assert "ANTHROPIC_AUTH_TOKEN" in plan.secret_env
    settings = json.loads((context.runtime_dir / "claude-settings.json").read_text())
    assert settings["statusLine"]["type"] == "command"
    assert (
        str(context.runtime_dir / claude_compat.STATUS_SPOOL) in settings["statusLine"]["command"]
    )
    keyed = provider.plan_spawn(
        SpawnRequest(context, Path("/bin/claude"), endpoint=Endpoint("http://127.0.0.1:9", "sk-x"))
    )
    assert "ANTHROPIC_AUTH_TOKEN" not in keyed.env


# -- exact money: JSON, the widget's state, DataFrames --------------------------------


def test_decimal_costs_round_trip_exactly_through_json() -> None:
    _, session = status_session()
    dumped = session.model_dump(mode="json")
    assert dumped["vendor_cost_usd"] == "0.049316000000000006"  # a string, never a float
    assert isinstance(dumped["cost_usd_estimate"], str)
    back = SessionSummary.model_validate_json(session.model_dump_json())
    assert back == session
    assert back.vendor_cost_usd == session.vendor_cost_usd
    limit = RateLimit(limit_id="spend", kind="spend", used=Decimal("0.1"), limit=Decimal("20"))
    assert RateLimit.model_validate_json(limit.model_dump_json()).used == Decimal("0.1")


def test_decimal_costs_reach_the_widget_state_as_strings(comms: list[object]) -> None:
    source = StubSource()
    view = RunView(source)
    _, session = status_session()
    source.session = session
    source.append(text_message(0))
    assert view.session is not None
    assert view.session["vendor_cost_usd"] == "0.049316000000000006"
    assert Decimal(view.session["cost_usd_estimate"]) == session.cost_usd_estimate
    assert [r["window"] for r in view.session["rate_limits"]] == ["five_hour", "seven_day"]
    assert view.session["currency"] == "USD"


def test_decimal_costs_stay_exact_in_dataframes() -> None:
    chat, session = status_session()
    turns = derive_turns(chat.messages, session)
    frame = turns_dataframe(turns)
    assert str(frame["vendor_cost_usd"].dtype) == "object"
    assert all(isinstance(v, Decimal) for v in frame["vendor_cost_usd"])
    assert frame["vendor_cost_usd"].sum() == session.vendor_cost_usd  # decimal arithmetic
    messages = to_dataframe(chat)
    estimates = [v for v in messages["cost_usd_estimate"] if v is not None and v == v]
    assert all(isinstance(v, Decimal) for v in estimates)
    assert sum(estimates, Decimal(0)) == sum(
        (t.cost_usd_estimate or Decimal(0) for t in turns), Decimal(0)
    )


def test_turns_frame_columns_and_the_running_turn() -> None:
    ms = [
        Message(seq=0, kind="text", role="user", text="go"),
        Message(
            seq=1,
            kind="tool",
            role="assistant",
            tool=ToolCall(id="t", name="Bash", status="error"),
            model="m",
            usage=Usage(input_tokens=5, output_tokens=2, reasoning_tokens=1),
        ),
        Message(seq=2, kind="lifecycle", role="system", text="API error", level="error"),
    ]
    turns = derive_turns(ms, SessionSummary(model_requested="m"), state="working")
    assert [(t.outcome, t.finished, t.errors) for t in turns] == [("running", False, ["API error"])]
    frame = turns_dataframe(turns)
    assert frame.loc[0, "tools"] == {"Bash": 1} and frame.loc[0, "tool_calls"] == 1
    assert frame.loc[0, "reasoning_tokens"] == 1 and frame.loc[0, "tool_errors"] == 1
    done = derive_turns(ms, SessionSummary())
    assert done[0].outcome == "error"
    interrupted = derive_turns(
        [
            *ms[:2],
            Message(seq=2, kind="lifecycle", role="system", text="Interrupted", level="info"),
        ],
        SessionSummary(),
    )
    assert interrupted[0].outcome == "interrupted"


# -- quota errors: a turn the API refused -------------------------------------------------


def test_codex_turn_refused_over_its_quota_says_so_and_records_the_limit() -> None:
    chat = read_transcript(CODEX / "quota.jsonl", provider="codex")
    assert chat.state == "idle"
    last = chat.messages[-1]
    assert (last.kind, last.level, last.text) == (
        "lifecycle",
        "error",
        "Quota exceeded. Check your plan and billing details.",
    )
    [limit] = chat.session.rate_limits
    assert (limit.limit_id, limit.kind, limit.status, limit.source) == (
        "usage_limit_exceeded",
        "usage",
        "reached",
        "error",
    )
    assert limit.used_percent is None and limit.limit is None  # nothing the CLI did not say
    assert limit.observed_at is not None


def test_opencode_request_refused_over_its_quota_records_the_limit_and_the_headers(
    tmp_path: Path,
) -> None:
    from tests.unit.providers.opencode.test_transcript import read  # noqa: PLC0415

    reader = read(tmp_path, "quota.jsonl")
    assert reader.state == "idle"
    errors = [m for m in reader.messages if m.kind == "lifecycle" and m.level == "error"]
    assert [m.text for m in errors] == ["You exceeded your current quota"]
    limits = {r.limit_id: r for r in reader.summary.rate_limits}
    assert set(limits) == {"insufficient_quota", "requests"}
    quota = limits["insufficient_quota"]
    assert (quota.kind, quota.status, quota.source) == ("usage", "reached", "error")
    assert quota.observed_at is not None and quota.resets_at is not None
    assert 0 < (quota.resets_at - quota.observed_at).total_seconds() <= 1  # retry-after: 1
    requests = limits["requests"]
    assert (requests.kind, requests.limit, requests.remaining) == (
        "requests",
        Decimal("500"),
        Decimal("0"),
    )
    assert requests.used_percent is None  # absolute figures only: no share derived
    assert requests.resets_at is not None and requests.observed_at is not None
    assert (requests.resets_at - requests.observed_at).total_seconds() == 90


def test_claude_code_request_refused_at_its_rate_limit_says_so_and_records_the_limit() -> None:
    chat = read_transcript(CLAUDE / "rate_limited.jsonl", provider="claude-code")
    assert chat.state == "idle"
    [error] = [m for m in chat.messages if m.kind == "lifecycle" and m.level == "error"]
    assert error.text.startswith("API Error: Request rejected (429)")
    [limit] = chat.session.rate_limits
    assert (limit.limit_id, limit.kind, limit.status, limit.source) == (
        "rate_limit",
        "requests",
        "reached",
        "error",
    )
    assert limit.observed_at is not None and limit.used_percent is None
    assert chat.session.usage.output_tokens == 0  # the synthetic entry bills nothing


def test_a_turn_the_status_line_skipped_gives_no_cost_to_it_or_the_next(tmp_path: Path) -> None:
    # Turn p1 was over before the CLI ran its status command, and p2 came at once: the
    # payload of p2 holds what both cost. Neither turn gets that sum as its own.
    spool = tmp_path / "statusline.jsonl"
    payloads = [("s", None, 0), ("s", "p2", 0.03), ("s", "p3", 0.05)]
    spool.write_text(
        "".join(
            json.dumps(
                {
                    "at": 1,
                    "status": {"session_id": s, "prompt_id": p, "cost": {"total_cost_usd": c}},
                }
            )
            + "\n"
            for s, p, c in payloads
        )
    )
    reader = StatusSpool(spool)
    reader.read()
    assert reader.turn_costs("s", ["p1", "p2", "p3"]) == {"p3": Decimal("0.02")}
    # Without the transcript's order, the payloads' own order is all there is.
    assert reader.turn_costs("s") == {"p2": Decimal("0.03"), "p3": Decimal("0.02")}
