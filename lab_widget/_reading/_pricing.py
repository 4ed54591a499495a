"""A pinned, versioned price and context-window table, for cost *estimates* only.

Prices are USD per million tokens, matched by the longest model-name prefix, and exact
decimals: an estimate is a :class:`decimal.Decimal`, never a float. Each entry of
``_prices.json`` says where its price comes from and when it was checked; the table as a
whole has a version, recorded on every summary it priced. An estimate is never a bill:
where the agent CLI records its own cost,
:attr:`~lab_widget.schema.SessionSummary.vendor_cost_usd` carries that figure beside it.

Examples
--------
>>> price_for("claude-sonnet-4-5-20250929").input
Decimal('3')
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
from decimal import Decimal
from importlib import resources

from ..schema import SessionSummary, Usage

__all__ = [
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


@dataclass(frozen=True)
class Price:
    """USD per million tokens of each kind, the context window, and where they come from."""

    input: Decimal
    output: Decimal
    cache_read: Decimal
    cache_write: Decimal
    context_window: int | None = None
    source: str = ""
    """Where the price was taken from (a price list, a CLI's own catalog)."""
    url: str = ""
    as_of: str = ""
    """When it was checked (an ISO date)."""


def _load() -> tuple[str, dict[str, Price]]:
    raw = json.loads(resources.files(__package__).joinpath("_prices.json").read_text())
    table = {
        prefix: Price(
            # Strings in the file: Decimal(str) keeps the digits exactly as written.
            input=Decimal(str(p["input"])),
            output=Decimal(str(p["output"])),
            cache_read=Decimal(str(p["cache_read"])),
            cache_write=Decimal(str(p["cache_write"])),
            context_window=int(p["context_window"]) if p.get("context_window") else None,
            source=str(p.get("source", "")),
            url=str(p.get("url", "")),
            as_of=str(p.get("as_of", "")),
        )
        for prefix, p in raw["models"].items()
    }
    return str(raw["version"]), table


PRICES_VERSION, PRICES = _load()
"""The table's version, and the table: model-name prefix to :class:`Price`."""

PRICES_AS_OF = max((p.as_of for p in PRICES.values()), default="")
"""The newest date an entry of the table was checked."""


def price_for(model: str | None) -> Price | None:
    """The pinned price of ``model`` (longest prefix match), or ``None`` if unknown."""
    if not model:
        return None
    best = max((p for p in PRICES if model.startswith(p)), key=len, default=None)
    return PRICES[best] if best is not None else None


def estimate_cost(model: str | None, usage: Usage | None) -> Decimal | None:
    """Estimated USD for ``usage`` answered by ``model``, exact; ``None`` for an unknown model.

    Examples
    --------
    >>> estimate_cost("claude-sonnet-4-5", Usage(cache_read_tokens=1))
    Decimal('3E-7')
    >>> estimate_cost("claude-sonnet-4-5", None) is None
    True
    """
    price = price_for(model)
    if price is None or usage is None:
        return None
    total = (
        usage.input_tokens * price.input
        + usage.output_tokens * price.output
        + usage.cache_read_tokens * price.cache_read
        + usage.cache_write_tokens * price.cache_write
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
    update: dict[str, object] = {"price_table": PRICES_VERSION}
    if summary.models:
        models = [
            m.model_copy(update={"cost_usd_estimate": estimate_cost(m.model, m.usage)})
            for m in summary.models
        ]
        known = [m.cost_usd_estimate for m in models if m.cost_usd_estimate is not None]
        update["models"] = models
        update["cost_usd_estimate"] = tidy(sum(known, Decimal(0))) if known else None
    else:
        update["cost_usd_estimate"] = estimate_cost(summary.model, summary.usage)
    price = price_for(summary.model)
    if price is not None and summary.context_window is None:
        update["context_window"] = price.context_window
    return summary.model_copy(update=update)
