"""Unit: session-wide facts (usage, cost, context, turn durations) and the price table."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from lab_widget import Run, read_transcript
from lab_widget._reading._pricing import (
    GENAI_PRICES_URL,
    PRICES,
    PRICES_VERSION,
    enrich_summary,
    estimate_cost,
    price_for,
)
from lab_widget.schema import SessionSummary, Usage
from tests.support.local import local_parts
from tests.support.paths import FIXTURES

CLAUDE = FIXTURES / "claude-code"
ALL = sorted(p.name for p in CLAUDE.glob("*.jsonl"))


def entries(name: str) -> list[dict[str, object]]:
    """A session's entries, its sub-agents' transcripts (beside it) included."""
    files = [CLAUDE / name, *sorted((CLAUDE / name.removesuffix(".jsonl")).glob("*/*.jsonl"))]
    return [json.loads(line) for file in files for line in file.read_text().splitlines()]


def with_subagents(name: str) -> list[dict[str, object]]:
    """The entries of a session and of its sub-agents' files (the session's usage counts
    both)."""
    found = entries(name)
    for path in sorted((CLAUDE / Path(name).stem / "subagents").glob("*.jsonl")):
        found += [json.loads(line) for line in path.read_text().splitlines()]
    return found


def session(name: str) -> SessionSummary:
    return read_transcript(CLAUDE / name, provider="claude-code").session


@pytest.mark.parametrize("name", ALL)
def test_usage_totals_count_each_api_message_once(name: str) -> None:
    per_id: dict[str, dict[str, Any]] = {}
    for e in with_subagents(name):
        message = e.get("message")
        if e.get("type") == "assistant" and isinstance(message, dict) and "usage" in message:
            # The last copy of a response carries its final figures.
            per_id[str(message["id"])] = message["usage"]
    expected = Usage(
        input_tokens=sum(u["input_tokens"] for u in per_id.values()),
        output_tokens=sum(u["output_tokens"] for u in per_id.values()),
        cache_read_tokens=sum(u["cache_read_input_tokens"] for u in per_id.values()),
        cache_write_tokens=sum(u["cache_creation_input_tokens"] for u in per_id.values()),
        cache_write_1h_tokens=sum(
            u.get("cache_creation", {}).get("ephemeral_1h_input_tokens", 0) for u in per_id.values()
        ),
    )
    assert session(name).usage == expected


def test_tools_fixture_repeats_usage_across_blocks_but_counts_it_once() -> None:
    ids = [
        e["message"]["id"]  # type: ignore[index]
        for e in entries("tools.jsonl")
        if e.get("type") == "assistant"
    ]
    assert len(ids) > len(set(ids))  # the guard below is not vacuous
    c = read_transcript(CLAUDE / "tools.jsonl", provider="claude-code")
    per_message = [m.usage for m in c.messages if m.usage is not None]
    assert len(per_message) == len(set(ids))
    total = Usage()
    for u in per_message:
        total = total + u
    assert c.session.usage == total


def _durations(name: str) -> list[object]:
    return [
        e["durationMs"]
        for e in entries(name)
        if e.get("type") == "system" and e.get("subtype") == "turn_duration"
    ]


def test_turn_durations_come_from_turn_duration_entries() -> None:
    assert len(_durations("tools.jsonl")) == 2
    assert session("tools.jsonl").turn_durations_ms == _durations("tools.jsonl")
    assert len(_durations("hello.jsonl")) == 1
    assert session("hello.jsonl").turn_durations_ms == _durations("hello.jsonl")
    assert session("interrupt.jsonl").turn_durations_ms == []


def test_vendor_cost_comes_from_the_last_cost_state_entry() -> None:
    recorded = [e for e in entries("clear_before.jsonl") if e.get("type") == "cost-state"]
    assert recorded, "the fixture records a cost-state entry"
    cost = session("clear_before.jsonl").vendor_cost_usd
    # Exactly the figure the CLI wrote, as a decimal: never the float's approximation.
    assert cost == Decimal(str(recorded[-1]["totalCostUSD"])) == Decimal("0.011996")
    assert isinstance(cost, Decimal)
    assert session("hello.jsonl").vendor_cost_usd is None


def test_vendor_cost_takes_the_last_of_several(tmp_path: Path) -> None:
    lines = (CLAUDE / "hello.jsonl").read_text().splitlines()
    lines += [
        json.dumps({"type": "cost-state", "totalCostUSD": 0.5}),
        json.dumps({"type": "cost-state", "totalCostUSD": 0.75}),
    ]
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(lines) + "\n")
    assert read_transcript(path, provider="claude-code").session.vendor_cost_usd == Decimal("0.75")


def test_estimate_matches_the_clis_own_cost_for_the_pinned_model() -> None:
    s = session("clear_before.jsonl")
    assert s.model == "claude-opus-5-5"
    # The CLI's own catalog prices the pinned model (4 / 20 per million): the estimate is
    # the CLI's figure to the last digit.
    assert s.cost_usd_estimate == s.vendor_cost_usd == Decimal("0.011996")
    assert s.price_table == PRICES_VERSION


def test_model_requested_and_model_answered() -> None:
    s = session("tools.jsonl")
    assert s.model_requested == "claude-opus-5-5"  # the api-request entry's params
    assert s.model == "claude-opus-5-5"  # the scripted model echoes the requested name


def test_context_is_the_latest_responses_input_side() -> None:
    assistants = [
        e["message"]["usage"]  # type: ignore[index]
        for e in entries("tools.jsonl")
        if e.get("type") == "assistant"
    ]
    last = assistants[-1]
    s = session("tools.jsonl")
    assert s.context_tokens == (
        last["input_tokens"] + last["cache_read_input_tokens"] + last["cache_creation_input_tokens"]
    )
    assert s.context_window == 1_000_000  # the pinned CLI's catalog: Opus 5.5 has 1M
    assert s.context_tokens is not None
    assert s.context_tokens < s.usage.input_tokens  # not a total


def test_unknown_model_has_no_estimate_or_window() -> None:
    summary = SessionSummary(model="local-llama", usage=Usage(input_tokens=10))
    enriched = enrich_summary(summary)
    assert enriched.cost_usd_estimate is None
    assert enriched.context_window is None
    assert enrich_summary(SessionSummary()).cost_usd_estimate is None


def test_prices_come_from_genai_prices_and_our_table_only_fills_its_gaps() -> None:
    # Dated ids resolve to their model's price; genai-prices knows all these.
    assert price_for("claude-opus-4-1-20250805") == price_for("claude-opus-4-1")
    assert price_for("claude-opus-4-5-20251101") == price_for("claude-opus-4-5")
    assert price_for("claude-haiku-4-5-20251001") == price_for("claude-haiku-4-5")
    assert price_for("claude-3-5-haiku-latest") == price_for("claude-3-5-haiku")
    opus = price_for("claude-opus-5-5")
    assert opus is not None and opus.url == GENAI_PRICES_URL
    assert opus != price_for("claude-opus-5")
    # The models the pinned CLIs answer as, of every vendor.
    for model in ("gpt-5.1-codex", "gemini-2.5-pro", "gemini-3-pro-preview"):
        price = price_for(model)
        assert price is not None and price.url == GENAI_PRICES_URL, model
    # Our own table holds only what genai-prices lacks, and is consulted for it.
    assert set(PRICES) == {"claude-mythos-5", "claude-mythos-5-1"}
    assert price_for("claude-mythos-5-1-20261101") == PRICES["claude-mythos-5-1"]
    assert price_for("claude-mythos-5-2") != PRICES["claude-mythos-5"]  # genai-prices' own
    assert price_for(None) is None
    assert price_for("local-llama") is None


def test_every_price_says_where_it_comes_from_and_when() -> None:
    for prefix, price in PRICES.items():
        assert price.source and price.url.startswith("https://"), prefix
        assert len(price.as_of) == 10 and price.as_of[4] == "-", prefix
        for value in (
            price.input,
            price.output,
            price.cache_read,
            price.cache_write,
            price.cache_write_1h,
        ):
            assert isinstance(value, Decimal)
            assert value >= 0, prefix
    assert PRICES_VERSION.startswith("genai-prices 0.2.3; lab_widget ")


def test_prices_match_the_pinned_clis_catalog() -> None:
    # Claude Code computes its own cost (the status line, cost-state) from its catalog; the
    # two sources agree on the models both list (checked on all 27 at 2.1.332).
    opus = price_for("claude-opus-5-5")
    assert opus is not None
    assert (opus.input, opus.cache_read, opus.cache_write, opus.cache_write_1h) == (
        Decimal("4"),
        Decimal("0.2"),
        Decimal("5"),
        Decimal("8"),
    )
    assert price_for("claude-opus-5").input == Decimal("5")  # type: ignore[union-attr]
    assert price_for("claude-sonnet-5").output == Decimal("10")  # type: ignore[union-attr]
    assert price_for("claude-haiku-5-5").input == Decimal("0.1")  # type: ignore[union-attr]
    mythos = PRICES["claude-mythos-5"]
    assert (mythos.cache_write, mythos.cache_write_1h) == (Decimal("12.5"), Decimal("20"))


def test_estimate_cost_prices_every_token_kind() -> None:
    usage = Usage(
        input_tokens=1_000_000,
        output_tokens=1_000_000,
        cache_read_tokens=1_000_000,
        cache_write_tokens=1_000_000,
    )
    assert estimate_cost("claude-sonnet-4-5", usage) == Decimal("22.05")  # 3 + 15 + 0.3 + 3.75
    # A one-hour write costs 2x the input price, a five-minute one 1.25x.
    hour = usage.model_copy(update={"cache_write_1h_tokens": 400_000})
    assert estimate_cost("claude-sonnet-4-5", hour) == Decimal("22.05") + Decimal("0.9")
    only_1h = Usage(cache_write_tokens=1_000_000, cache_write_1h_tokens=1_000_000)
    assert estimate_cost("claude-mythos-5", only_1h) == 20
    assert estimate_cost("claude-sonnet-4-5", None) is None
    assert estimate_cost("unknown", usage) is None


def test_run_usage_and_session_facts(lab_home: Path, workdir: Path) -> None:
    run = Run("fake", cwd=workdir, model="claude-sonnet-4-5")
    try:
        local_parts(run).chat.wait_ready(10)
        run.send("hello")
        assert run.wait(timeout=10) == "idle"
        assert run.usage == run.session.usage
        assert run.session.model_requested == "claude-sonnet-4-5"
        frame = run.to_dataframe()
        assert list(frame["role"]) == ["user", "assistant"]
    finally:
        run.stop()
