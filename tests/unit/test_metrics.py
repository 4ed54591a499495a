"""Unit: metrics and health over runs (a DataFrame, the Prometheus endpoint over real HTTP),
and ``providers()``'s health check with its latency and time."""

from __future__ import annotations

import importlib
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from lab_widget import MissingDependencyError, providers, read_transcript, runs, serve_metrics
from lab_widget._reading._metrics import DURATION_BUCKETS, Sample, _live_runs, collect
from lab_widget.provider import AgentProvider, TranscriptRef, get_provider
from lab_widget.schema import Chat, SessionSummary, State, Turn
from tests.support.paths import FIXTURES

CLAUDE = FIXTURES / "claude-code"
CODEX = FIXTURES / "codex"


@dataclass
class StubRun:
    """A run as the metrics see it, over a recorded transcript."""

    provider_id: str
    chat: Chat
    past: Sequence[TranscriptRef] = field(default_factory=list)
    state: State = "idle"

    @property
    def provider(self) -> AgentProvider:
        return get_provider(self.provider_id)

    @property
    def turns(self) -> list[Turn]:
        return self.chat.turns

    @property
    def session(self) -> SessionSummary:
        return self.chat.session

    @property
    def past_epochs(self) -> Sequence[TranscriptRef]:
        return self.past


def stub(provider: str, path: Path, past: Sequence[Path] = ()) -> StubRun:
    refs = [TranscriptRef(transcript_id=p.stem, path=p) for p in past]
    return StubRun(provider, read_transcript(path, provider=provider), refs)


def values(
    samples: list[Sample], metric: str, provider: str
) -> dict[tuple[tuple[str, str], ...], float]:
    return {s.labels: s.value for s in samples if s.metric == metric and s.provider == provider}


def test_turns_tools_requests_and_durations_by_provider() -> None:
    claude = stub("claude-code", CLAUDE / "tools.jsonl")
    codex = stub("codex", CODEX / "tools.jsonl")
    samples = collect([claude, codex])
    assert values(samples, "turns", "claude-code") == {(("outcome", "ok"),): 2}
    assert values(samples, "tool_calls", "claude-code") == {(("tool", "Bash"),): 2}
    assert values(samples, "tool_errors", "claude-code") == {(): 1}
    assert values(samples, "tool_calls", "codex") == {(("tool", "exec_command"),): 2}
    requests = values(samples, "model_requests", "claude-code")
    assert requests == {(("model", "claude-opus-5-5"),): sum(t.requests for t in claude.turns)}
    tokens = values(samples, "tokens", "codex")
    assert tokens[(("kind", "reasoning"),)] == codex.chat.session.usage.reasoning_tokens
    buckets = values(samples, "turn_duration_seconds_bucket", "claude-code")
    assert len(buckets) == len(DURATION_BUCKETS) + 1
    seconds = [(t.duration_ms or 0) / 1000 for t in claude.turns]
    assert buckets[(("le", "+Inf"),)] == 2
    for bound in DURATION_BUCKETS:
        assert buckets[(("le", f"{bound:g}"),)] == sum(1 for d in seconds if d <= bound)
    summed = values(samples, "turn_duration_seconds_sum", "claude-code")[()]
    assert summed == pytest.approx(sum(seconds))
    assert values(samples, "runs", "claude-code") == {(("state", "idle"),): 1}


def test_history_counts_the_conversations_before_each_clear() -> None:
    run = stub("claude-code", CLAUDE / "clear_after.jsonl", past=[CLAUDE / "clear_before.jsonl"])
    with_history = values(collect([run]), "turns", "claude-code")
    alone = values(collect([run], history=False), "turns", "claude-code")
    before = read_transcript(CLAUDE / "clear_before.jsonl", provider="claude-code")
    assert with_history[(("outcome", "ok"),)] == alone.get((("outcome", "ok"),), 0) + len(
        before.turns
    )


def test_availability_latency_and_time_of_each_health_check() -> None:
    before = datetime.now(UTC)
    table = providers(check_auth=False)
    for info in table:
        assert info.checked_at is not None and before <= info.checked_at <= datetime.now(UTC)
        assert info.latency_ms is not None and info.latency_ms >= 0
    samples = collect([], table)
    for info in table:
        assert values(samples, "up", info.id) == {(): 1.0 if info.health == "ok" else 0.0}
        assert values(samples, "health_check_seconds", info.id) == {
            (): round((info.latency_ms or 0) / 1000, 4)
        }
    frame = table.to_dataframe()
    assert list(frame["provider"]) == [info.id for info in table]
    assert {"available", "checked_at", "latency_ms", "note"} <= set(frame.columns)
    assert str(frame["checked_at"].dt.tz) == "UTC"
    assert repr(table) == repr(providers(check_auth=False))  # timings stay out of the text


def test_a_providers_health_note_shows_in_its_row(monkeypatch: pytest.MonkeyPatch) -> None:
    provider = get_provider("fake")
    monkeypatch.setattr(type(provider), "health_note", lambda self: "keys only since June")
    row = providers(check_auth=False).get("fake")
    assert row.note == "keys only since June"
    assert row.health_text.endswith("; keys only since June")


def test_the_prometheus_endpoint_serves_the_same_figures_over_http() -> None:
    runs = [stub("claude-code", CLAUDE / "tools.jsonl"), stub("codex", CODEX / "rate_limits.jsonl")]
    server = serve_metrics(0, runs=lambda: runs)
    try:
        assert server.url.startswith("http://127.0.0.1:") and server.port > 0
        with urllib.request.urlopen(server.url, timeout=30) as response:
            assert response.status == 200
            assert response.headers["content-type"].startswith("text/plain")
            body = response.read().decode()
    finally:
        server.stop()
    families = {f.name: f for f in text_string_to_metric_families(body)}
    turns = {
        (s.labels["provider"], s.labels["outcome"]): s.value
        for s in families["lab_widget_turns"].samples
        if s.name == "lab_widget_turns_total"
    }
    assert turns == {("claude-code", "ok"): 2.0, ("codex", "ok"): 2.0}
    tools = {
        (s.labels["provider"], s.labels["tool"]): s.value
        for s in families["lab_widget_tool_calls"].samples
    }
    assert tools == {("claude-code", "Bash"): 2.0}
    assert families["lab_widget_turns"].type == "counter"
    quota = {
        (s.labels["provider"], s.labels["window"]): s.value
        for s in families["lab_widget_rate_limit_used_percent"].samples
    }
    assert quota == {("codex", "primary"): 97.0, ("codex", "secondary"): 7.0}
    histogram = families["lab_widget_turn_duration_seconds"]
    assert histogram.type == "histogram"
    counts = {s.labels["provider"]: s.value for s in histogram.samples if s.name.endswith("_count")}
    assert counts == {"claude-code": 2.0, "codex": 2.0}
    up = {s.labels["provider"]: s.value for s in families["lab_widget_up"].samples}
    assert set(up) >= {"claude-code", "codex", "gemini", "opencode"}
    checked = families["lab_widget_health_checked_timestamp_seconds"].samples
    assert all(
        abs(s.value - datetime.now(UTC).timestamp()) < timedelta(minutes=5).total_seconds()
        for s in checked
    )


def test_serving_needs_its_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.import_module

    def missing(name: str, *args: object) -> object:
        if name.startswith("prometheus_client"):
            raise ImportError(name)
        return real(name, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(importlib, "import_module", missing)
    with pytest.raises(MissingDependencyError, match="metrics"):
        serve_metrics(0)


def test_metrics_read_the_live_runs_where_the_facade_keeps_them(lab_home: Path) -> None:
    # The live runs are looked up by module name (the façade is the layer above): a moved
    # function must fail here, not only when a real run is measured.
    assert _live_runs() == list(runs())
