"""Metrics and health over the live runs and their history: a DataFrame, or Prometheus.

:func:`metrics` counts what the runs' transcripts say, each turn once: turns by provider
and outcome, model requests by provider and model, turn durations as a histogram, tool
calls by provider, tool and status, tokens by kind, and each provider's availability (its
CLI's health check, with its latency). :func:`serve_metrics` exposes the same figures in
the Prometheus text format on ``127.0.0.1`` (the optional ``metrics`` extra,
``prometheus_client``), computed when scraped: nothing polls.

Runs are read through their chat brains (their readers are incremental); the past
conversations of a run (before each clear) are read once and kept while their files are
unchanged, so a scrape costs what changed since the last one.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any, Protocol

from .._provider_table import ProviderTable, providers
from ..errors import MissingDependencyError
from ..provider import AgentProvider, TranscriptRef
from ..schema import Chat, SessionSummary, State, Turn
from ._transcripts import read_chat

__all__ = [
    "DURATION_BUCKETS",
    "METRIC_COLUMNS",
    "MetricsServer",
    "Sample",
    "collect",
    "metrics",
    "serve_metrics",
]

DURATION_BUCKETS = (0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 600.0, 1800.0)
"""Upper bounds (seconds) of the turn-duration histogram; a last bucket is ``+Inf``."""

METRIC_COLUMNS = ("metric", "provider", "labels", "value")
"""The columns of :func:`metrics`: ``labels`` is a dict (``outcome``, ``tool``, ``le``...)."""


@dataclass(frozen=True)
class Sample:
    """One figure: a metric's name, the provider it is about, its other labels, its value."""

    metric: str
    provider: str
    labels: tuple[tuple[str, str], ...] = ()
    value: float = 0.0

    def label(self, name: str) -> str | None:
        """The value of one label."""
        return dict(self.labels).get(name)


class _Run(Protocol):
    """What the metrics need of a run (``lab_widget.Run`` is one)."""

    @property
    def provider(self) -> AgentProvider: ...

    @property
    def state(self) -> State: ...

    @property
    def turns(self) -> list[Turn]: ...

    @property
    def session(self) -> SessionSummary: ...

    @property
    def past_epochs(self) -> Sequence[TranscriptRef]: ...


@dataclass
class _History:
    """Past conversations read once, kept while their files are unchanged."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    chats: dict[tuple[str, Path], tuple[tuple[int, int], Chat]] = field(default_factory=dict)

    def chat(self, provider: AgentProvider, ref: TranscriptRef) -> Chat | None:
        try:
            stat = ref.path.stat()
        except OSError:
            return None
        key, mark = (provider.meta.id, ref.path), (stat.st_size, stat.st_mtime_ns)
        with self.lock:
            found = self.chats.get(key)
            if found is not None and found[0] == mark:
                return found[1]
        chat = read_chat(provider, ref)
        with self.lock:
            self.chats[key] = (mark, chat)
        return chat


_history = _History()


def _turn_samples(provider: str, turns: Iterable[Turn]) -> Iterator[Sample]:
    durations: list[float] = []
    cost: Decimal | None = None
    for turn in turns:
        yield Sample("turns", provider, (("outcome", turn.outcome),), 1)
        if turn.requests:
            model = turn.model or "unknown"
            yield Sample("model_requests", provider, (("model", model),), turn.requests)
        for tool, calls in sorted(turn.tool_calls.items()):
            yield Sample("tool_calls", provider, (("tool", tool),), calls)
        if turn.tool_errors:
            yield Sample("tool_errors", provider, (), turn.tool_errors)
        for kind in ("input", "output", "cache_read", "cache_write", "reasoning"):
            count = getattr(turn.usage, f"{kind}_tokens")
            if count:
                yield Sample("tokens", provider, (("kind", kind),), count)
        if turn.cost_usd_estimate is not None:
            cost = turn.cost_usd_estimate + (cost or Decimal(0))
        if turn.finished and turn.duration_ms is not None:
            durations.append(turn.duration_ms / 1000)
    if cost is not None:
        # Summed exactly, then a float for dashboards: never a bill (the turns keep decimals).
        yield Sample("cost_usd_estimate", provider, (), float(cost))
    for bound in DURATION_BUCKETS:
        yield Sample(
            "turn_duration_seconds_bucket",
            provider,
            (("le", f"{bound:g}"),),
            sum(1 for d in durations if d <= bound),
        )
    yield Sample("turn_duration_seconds_bucket", provider, (("le", "+Inf"),), len(durations))
    yield Sample("turn_duration_seconds_count", provider, (), len(durations))
    yield Sample("turn_duration_seconds_sum", provider, (), round(sum(durations), 3))


def _merge(samples: Iterable[Sample]) -> list[Sample]:
    """Samples with the same metric, provider and labels added up, in first-seen order."""
    totals: dict[tuple[str, str, tuple[tuple[str, str], ...]], float] = {}
    for s in samples:
        key = (s.metric, s.provider, s.labels)
        totals[key] = totals.get(key, 0.0) + s.value
    return [Sample(m, p, labels, value) for (m, p, labels), value in totals.items()]


def collect(
    runs: Iterable[_Run], table: ProviderTable | None = None, *, history: bool = True
) -> list[Sample]:
    """The samples of ``runs`` (and their past conversations) and of ``table``'s health.

    Parameters
    ----------
    runs
        Runs to count (:func:`lab_widget.runs` by default in :func:`metrics`).
    table
        A :func:`lab_widget.providers` table for availability; ``None`` leaves it out.
    history
        Count each run's conversations before its clears too.
    """
    samples: list[Sample] = []
    for run in runs:
        provider = run.provider.meta.id
        samples.append(Sample("runs", provider, (("state", run.state),), 1))
        turns = list(run.turns)
        if history:
            for ref in run.past_epochs:
                chat = _history.chat(run.provider, ref)
                if chat is not None:
                    turns = [*chat.turns, *turns]
        samples += _turn_samples(provider, turns)
        for limit in run.session.rate_limits:
            if limit.used_percent is not None:
                labels = (("limit_id", limit.limit_id), ("window", limit.window or ""))
                samples.append(
                    Sample("rate_limit_used_percent", provider, labels, limit.used_percent)
                )
    for info in table or ():
        samples.append(Sample("up", info.id, (), 1 if info.health == "ok" else 0))
        if info.latency_ms is not None:
            samples.append(
                Sample("health_check_seconds", info.id, (), round(info.latency_ms / 1000, 4))
            )
        if info.checked_at is not None:
            samples.append(
                Sample("health_checked_timestamp_seconds", info.id, (), info.checked_at.timestamp())
            )
    return _merge(samples)


def _pandas() -> Any:
    try:
        return importlib.import_module("pandas")
    except ImportError as exc:
        raise MissingDependencyError("pandas", "pandas") from exc


def _live_runs() -> list[_Run]:
    # The façade is the layer above: imported when asked, so this module stays below it.
    run_module = importlib.import_module("lab_widget._run._runs")
    return list(run_module.runs())


def metrics(*, history: bool = True, check_auth: bool = False) -> Any:
    """Metrics and health over the live runs (:func:`lab_widget.runs`) and their history.

    Parameters
    ----------
    history
        Count each run's conversations before its clears too.
    check_auth
        Ask each installed CLI for its login status in the health check (a subprocess each).

    Returns
    -------
    pandas.DataFrame
        The columns of :data:`METRIC_COLUMNS`, one row per figure: ``runs`` (by
        ``state``), ``turns`` (by ``outcome``: ok, error, interrupted, running),
        ``model_requests`` (by ``model``), ``tool_calls`` (by ``tool``), ``tool_errors``,
        ``tokens`` (by ``kind``), ``cost_usd_estimate``, ``rate_limit_used_percent`` (by
        ``limit_id`` and ``window``, the latest a run's vendor reported), the turn-duration
        histogram (``turn_duration_seconds_bucket`` by ``le``, ``_count``, ``_sum``), and per
        provider ``up`` (1 when its CLI is healthy), ``health_check_seconds`` and
        ``health_checked_timestamp_seconds``.
    """
    pd = _pandas()
    samples = collect(_live_runs(), providers(check_auth=check_auth), history=history)
    return pd.DataFrame(
        [(s.metric, s.provider, dict(s.labels), s.value) for s in samples],
        columns=list(METRIC_COLUMNS),
    )


_HELP = {
    "runs": ("gauge", "Live runs by state."),
    "turns": ("counter", "Turns (a prompt and what followed) by outcome."),
    "model_requests": ("counter", "Model API responses, by answering model."),
    "tool_calls": ("counter", "Tool calls by tool."),
    "tool_errors": ("counter", "Tool calls that failed."),
    "tokens": ("counter", "Tokens billed, by kind (reasoning is part of output)."),
    "cost_usd_estimate": ("counter", "Estimated cost in USD from the pinned price table."),
    "rate_limit_used_percent": ("gauge", "Share of a quota window used, as the vendor said."),
    "up": ("gauge", "Whether the provider's pinned CLI is installed and answers."),
    "health_check_seconds": ("gauge", "How long the provider's health check took."),
    "health_checked_timestamp_seconds": ("gauge", "When the provider's health was checked."),
}
_PREFIX = "lab_widget_"


@dataclass
class MetricsServer:
    """A running Prometheus endpoint (see :func:`serve_metrics`)."""

    url: str
    """``http://127.0.0.1:<port>/metrics``."""
    port: int
    _server: Any = field(repr=False)
    _thread: Any = field(repr=False)

    def stop(self) -> None:
        """Stop serving and release the port."""
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)


def _collector(history: bool, check_auth: bool, runs: Any) -> Any:
    core = importlib.import_module("prometheus_client.core")

    class Collector:
        def collect(self) -> Iterator[Any]:
            found = runs() if runs is not None else _live_runs()
            samples = collect(found, providers(check_auth=check_auth), history=history)
            yield from _families(core, samples)

    return Collector()


def _families(core: Any, samples: list[Sample]) -> Iterator[Any]:
    by_metric: dict[str, list[Sample]] = {}
    for s in samples:
        by_metric.setdefault(s.metric.removesuffix("_bucket").removesuffix("_count"), []).append(s)
    histogram = by_metric.pop("turn_duration_seconds", []) + by_metric.pop(
        "turn_duration_seconds_sum", []
    )
    for name, group in by_metric.items():
        kind, text = _HELP.get(name, ("gauge", name.replace("_", " ")))
        labels = ["provider", *dict.fromkeys(k for s in group for k, _ in s.labels)]
        family_type = core.CounterMetricFamily if kind == "counter" else core.GaugeMetricFamily
        family = family_type(_PREFIX + name, text, labels=labels)
        for s in group:
            values = dict(s.labels)
            family.add_metric([s.provider, *(values.get(k, "") for k in labels[1:])], s.value)
        yield family
    providers_seen = dict.fromkeys(s.provider for s in histogram)
    family = core.HistogramMetricFamily(
        _PREFIX + "turn_duration_seconds",
        "How long finished turns took.",
        labels=["provider"],
    )
    for provider in providers_seen:
        mine = [s for s in histogram if s.provider == provider]
        buckets = [(s.label("le") or "+Inf", s.value) for s in mine if s.metric.endswith("_bucket")]
        total = next((s.value for s in mine if s.metric.endswith("_sum")), 0.0)
        family.add_metric([provider], buckets=buckets, sum_value=total)
    yield family


def serve_metrics(
    port: int = 9464,
    *,
    history: bool = True,
    check_auth: bool = False,
    runs: Any = None,
) -> MetricsServer:
    """Serve :func:`metrics` in the Prometheus text format on ``127.0.0.1:<port>``.

    Needs the ``metrics`` extra (``pip install 'lab_widget[metrics]'``). Metric names
    start with ``lab_widget_`` and carry a ``provider`` label: ``lab_widget_turns_total``
    (``outcome``), ``lab_widget_model_requests_total`` (``model``),
    ``lab_widget_tool_calls_total`` (``tool``), ``lab_widget_tokens_total`` (``kind``),
    ``lab_widget_turn_duration_seconds`` (a histogram), ``lab_widget_up``,
    ``lab_widget_health_check_seconds``, ``lab_widget_runs`` (``state``),
    ``lab_widget_rate_limit_used_percent`` (``limit_id``, ``window``). Figures are computed
    when scraped.

    Parameters
    ----------
    port
        The port; ``0`` picks a free one (see the returned ``url``).
    runs
        A callable returning the runs to count; :func:`lab_widget.runs` by default.

    Raises
    ------
    MissingDependencyError
        ``prometheus_client`` is not installed.
    """
    try:
        client = importlib.import_module("prometheus_client")
        registry_module = importlib.import_module("prometheus_client.registry")
    except ImportError as exc:
        raise MissingDependencyError("prometheus_client", "metrics") from exc
    registry = registry_module.CollectorRegistry(auto_describe=False)
    registry.register(_collector(history, check_auth, runs))
    server, thread = client.start_http_server(port, addr="127.0.0.1", registry=registry)
    bound = int(server.server_address[1])
    return MetricsServer(f"http://127.0.0.1:{bound}/metrics", bound, server, thread)
