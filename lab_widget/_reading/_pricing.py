"""Prices for cost *estimates*: genai-prices first, a small sourced table for what it lacks.

Prices are USD per million tokens and exact decimals: an estimate is a
:class:`decimal.Decimal`, never a float. They come from `genai-prices
<https://github.com/pydantic/genai-prices>`_, pydantic's offline price data, pinned as a
dependency so an estimate does not change under a notebook without a version change. Where
it lacks a model the pinned CLIs answer as, ``_prices.json`` holds that model's price (longest
model-name prefix wins), each entry saying where it comes from and when it was checked.
Each price carries both cache-write rates: a five-minute write costs 1.25× the input price, a
one-hour write 2× at Anthropic, and sessions use the one-hour cache heavily, so pricing every
write at one rate estimates them well short. An estimate is never a bill: where the agent CLI
records its own cost, :attr:`~lab_widget.schema.SessionSummary.vendor_cost_usd` carries that
figure beside it.

Examples
--------
>>> price_for("claude-sonnet-4-5-20250929").input
Decimal('3')
>>> price_for("claude-sonnet-4-5").cache_write, price_for("claude-sonnet-4-5").cache_write_1h
(Decimal('3.75'), Decimal('6'))
>>> price_for("some-local-model") is None
True
>>> estimate_cost("claude-haiku-4-5", Usage(input_tokens=1_000_000, output_tokens=1_000_000))
Decimal('6')
>>> estimate_cost("claude-opus-5-5", Usage(input_tokens=2959, output_tokens=8))
Decimal('0.011996')
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from functools import cache
from importlib import metadata, resources
from typing import TYPE_CHECKING

from ..schema import SessionSummary, Usage

if TYPE_CHECKING:
    from genai_prices.types import ModelInfo, Provider

__all__ = [
    "GENAI_PRICES_URL",
    "PRICES",
    "PRICES_AS_OF",
    "PRICES_VERSION",
    "Price",
    "enrich_summary",
    "estimate_cost",
    "price_for",
    "tidy",
]

_MILLION = Decimal(1_000_000)

GENAI_PRICES_URL = "https://github.com/pydantic/genai-prices"


@dataclass(frozen=True)
class Price:
    """USD per million tokens of each kind, the context window, and where they come from."""

    input: Decimal
    output: Decimal
    cache_read: Decimal
    cache_write: Decimal
    """A five-minute cache write (the only kind where the vendor has one)."""
    cache_write_1h: Decimal
    """A one-hour cache write; the five-minute price where the vendor has no such cache."""
    context_window: int | None = None
    source: str = ""
    """Where the price was taken from (a price list, a CLI's own catalog)."""
    url: str = ""
    as_of: str = ""
    """When it was checked (an ISO date); empty for a price from genai-prices, whose
    version says it."""


def _load() -> tuple[str, dict[str, Price]]:
    raw = json.loads(resources.files(__package__).joinpath("_prices.json").read_text())
    table = {
        prefix: Price(
            # Strings in the file: Decimal(str) keeps the digits exactly as written.
            input=Decimal(str(p["input"])),
            output=Decimal(str(p["output"])),
            cache_read=Decimal(str(p["cache_read"])),
            cache_write=Decimal(str(p["cache_write"])),
            cache_write_1h=Decimal(str(p.get("cache_write_1h", p["cache_write"]))),
            context_window=int(p["context_window"]) if p.get("context_window") else None,
            source=str(p.get("source", "")),
            url=str(p.get("url", "")),
            as_of=str(p.get("as_of", "")),
        )
        for prefix, p in raw["models"].items()
    }
    return str(raw["version"]), table


_OWN_VERSION, PRICES = _load()
"""Our own table: model-name prefix to :class:`Price`, only for models genai-prices lacks."""

PRICES_VERSION = f"genai-prices {metadata.version('genai-prices')}; lab_widget {_OWN_VERSION}"
"""The prices' version, recorded on every summary they priced: genai-prices' and our table's."""

PRICES_AS_OF = max((p.as_of for p in PRICES.values()), default="")
"""The newest date an entry of our own table was checked."""


@cache
def _genai_model(model: str) -> tuple[Provider, ModelInfo] | None:
    # Imported on first use: its data is a large module, and most sessions are priced late.
    from genai_prices import data_snapshot  # noqa: PLC0415 (loaded at the first price asked)

    try:
        return data_snapshot.get_snapshot().find_provider_model(model, None, None, None)
    except LookupError:
        return None


def _rate(value: object) -> Decimal | None:
    # A tiered price (a higher rate above a prompt size) counts at its base rate: the
    # estimate prices a session's totals, not each request against its tier's threshold.
    base = getattr(value, "base", value)
    return base if isinstance(base, Decimal) else None


def _from_genai(model: str, at: datetime) -> Price | None:
    found = _genai_model(model)
    if found is None:
        return None
    provider, info = found
    prices = info.get_prices(at)
    rates = [
        _rate(getattr(prices, key, None))
        for key in ("input_mtok", "output_mtok", "cache_read_mtok", "cache_write_mtok")
    ]
    input_, output, cache_read, cache_write = rates
    if input_ is None or output is None:
        return None
    # A vendor without a cache-read or cache-write price bills those tokens as input.
    write = cache_write if cache_write is not None else input_
    write_1h = _rate(getattr(prices, "cache_write_1h_mtok", None))
    return Price(
        input=input_,
        output=output,
        cache_read=cache_read if cache_read is not None else input_,
        cache_write=write,
        cache_write_1h=write_1h if write_1h is not None else write,
        context_window=info.context_window,
        source=f"genai-prices {metadata.version('genai-prices')}: {provider.id} {info.id}",
        url=GENAI_PRICES_URL,
    )


def price_for(model: str | None, at: datetime | None = None) -> Price | None:
    """The price of ``model`` on ``at`` (default: now), or ``None`` if unknown.

    genai-prices is asked first; our own table (longest prefix match) only prices models it
    does not know.

    Examples
    --------
    >>> price_for("claude-mythos-5-1").source
    'Claude Code 2.1.332 model catalog, pricing tier tier_10_50_cache_read_0_25'
    >>> price_for("claude-opus-4-5").source
    'genai-prices 0.2.3: anthropic claude-opus-4-5'
    """
    if not model:
        return None
    when = at or datetime.now(UTC)
    found = _from_genai(model, when if when.tzinfo else when.replace(tzinfo=UTC))
    if found is not None:
        return found
    best = max((p for p in PRICES if model.startswith(p)), key=len, default=None)
    return PRICES[best] if best is not None else None


def estimate_cost(
    model: str | None, usage: Usage | None, at: datetime | None = None
) -> Decimal | None:
    """Estimated USD for ``usage`` answered by ``model``, exact; ``None`` for an unknown model.

    Each cache write is priced at its lifetime's rate.

    Examples
    --------
    >>> estimate_cost("claude-sonnet-4-5", Usage(cache_read_tokens=1))
    Decimal('3E-7')
    >>> estimate_cost("claude-sonnet-4-5", Usage(cache_write_tokens=3, cache_write_1h_tokens=1))
    Decimal('0.0000135')
    >>> estimate_cost("claude-sonnet-4-5", None) is None
    True
    """
    price = price_for(model, at)
    if price is None or usage is None:
        return None
    total = (
        usage.input_tokens * price.input
        + usage.output_tokens * price.output
        + usage.cache_read_tokens * price.cache_read
        + usage.cache_write_5m_tokens * price.cache_write
        + usage.cache_write_1h_tokens * price.cache_write_1h
    )
    return tidy(total / _MILLION)


def tidy(amount: Decimal) -> Decimal:
    """``amount`` without trailing zeros, never in exponent form for a whole number.

    Examples
    --------
    >>> tidy(Decimal("0.0119960")), tidy(Decimal("10.00"))
    (Decimal('0.011996'), Decimal('10'))
    """
    normal = amount.normalize()
    return normal.quantize(Decimal(1)) if normal.as_tuple().exponent > 0 else normal  # type: ignore[operator]


def enrich_summary(summary: SessionSummary) -> SessionSummary:
    """``summary`` with the table's cost estimates and context window filled in.

    Each model of the breakdown is priced on its own (a sub-agent may run a cheaper
    model); the session's estimate is their sum, over the models the table knows. A
    summary without a breakdown is priced as its answering model's. A context window the
    reader already knows (the CLI reported it) is kept.

    Examples
    --------
    >>> from lab_widget.schema import ModelUsage
    >>> s = SessionSummary(model="claude-haiku-4-5", usage=Usage(output_tokens=2_000_000),
    ...     models=[ModelUsage(model="claude-haiku-4-5", usage=Usage(output_tokens=1_000_000)),
    ...             ModelUsage(model="claude-haiku-4-5", scope="subagent",
    ...                        usage=Usage(output_tokens=1_000_000))])
    >>> e = enrich_summary(s)
    >>> e.cost_usd_estimate, [m.cost_usd_estimate for m in e.models]
    (Decimal('10'), [Decimal('5'), Decimal('5')])
    """
    # Priced as of the session's start: a price change after it was not billed to it.
    at = summary.started_at
    update: dict[str, object] = {"price_table": PRICES_VERSION}
    if summary.models:
        models = [
            m.model_copy(update={"cost_usd_estimate": estimate_cost(m.model, m.usage, at)})
            for m in summary.models
        ]
        known = [m.cost_usd_estimate for m in models if m.cost_usd_estimate is not None]
        update["models"] = models
        update["cost_usd_estimate"] = tidy(sum(known, Decimal(0))) if known else None
    else:
        update["cost_usd_estimate"] = estimate_cost(summary.model, summary.usage, at)
    price = price_for(summary.model, at)
    if price is not None and summary.context_window is None:
        update["context_window"] = price.context_window
    return summary.model_copy(update=update)
