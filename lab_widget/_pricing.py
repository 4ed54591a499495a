"""A pinned price and context-window table, for cost *estimates* only.

Prices are USD per million tokens, matched by the longest model-name prefix. They are an
estimate pinned on 2026-11-30, not a bill: update them with the vendor's price list. Where
the agent CLI records its own cost, :attr:`~lab_widget.schema.SessionSummary.vendor_cost_usd`
carries that figure beside the estimate.

Examples
--------
>>> price_for("claude-sonnet-4-5-20250929").input
3.0
>>> price_for("some-local-model") is None
True
>>> estimate_cost("claude-haiku-4-5", Usage(input_tokens=1_000_000, output_tokens=1_000_000))
6.0
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources

from .schema import SessionSummary, Usage

__all__ = ["PRICES", "PRICES_AS_OF", "Price", "enrich_summary", "estimate_cost", "price_for"]

# The table itself is data, in ``_prices.json`` beside this module (model names are data,
# not user-facing copy): pinned on 2026-11-30, an estimate; update it with the vendor's
# price list. Cache reads cost 0.1x and (5-minute) cache writes 1.25x the input price.


@dataclass(frozen=True)
class Price:
    """USD per million tokens of each kind, and the model's context window in tokens."""

    input: float
    output: float
    cache_read: float
    cache_write: float
    context_window: int | None = 200_000


def _load() -> tuple[str, dict[str, Price]]:
    raw = json.loads(resources.files(__package__).joinpath("_prices.json").read_text())
    table = {
        prefix: Price(
            input=float(p["input"]),
            output=float(p["output"]),
            cache_read=float(p["cache_read"]),
            cache_write=float(p["cache_write"]),
            context_window=int(p["context_window"]) if p.get("context_window") else None,
        )
        for prefix, p in raw["models"].items()
    }
    return str(raw["as_of"]), table


PRICES_AS_OF, PRICES = _load()
"""When the table was last checked, and the table: model-name prefix to :class:`Price`."""


def price_for(model: str | None) -> Price | None:
    """The pinned price of ``model`` (longest prefix match), or ``None`` if unknown."""
    if not model:
        return None
    best = max((p for p in PRICES if model.startswith(p)), key=len, default=None)
    return PRICES[best] if best is not None else None


def estimate_cost(model: str | None, usage: Usage | None) -> float | None:
    """Estimated USD for ``usage`` answered by ``model``; ``None`` for an unknown model."""
    price = price_for(model)
    if price is None or usage is None:
        return None
    total = (
        usage.input_tokens * price.input
        + usage.output_tokens * price.output
        + usage.cache_read_tokens * price.cache_read
        + usage.cache_write_tokens * price.cache_write
    )
    return round(total / 1_000_000, 9)


def enrich_summary(summary: SessionSummary) -> SessionSummary:
    """``summary`` with the table's cost estimates and context window filled in.

    Each model of the breakdown is priced on its own (a sub-agent may run a cheaper
    model); the session's estimate is their sum, over the models the table knows. A
    summary without a breakdown is priced as its answering model's.

    Examples
    --------
    >>> from lab_widget.schema import ModelUsage
    >>> s = SessionSummary(model="claude-haiku-4-5", usage=Usage(output_tokens=2_000_000),
    ...     models=[ModelUsage(model="claude-haiku-4-5", usage=Usage(output_tokens=1_000_000)),
    ...             ModelUsage(model="claude-haiku-4-5", scope="subagent",
    ...                        usage=Usage(output_tokens=1_000_000))])
    >>> e = enrich_summary(s)
    >>> e.cost_usd_estimate, [m.cost_usd_estimate for m in e.models]
    (10.0, [5.0, 5.0])
    """
    update: dict[str, object] = {}
    if summary.models:
        models = [
            m.model_copy(update={"cost_usd_estimate": estimate_cost(m.model, m.usage)})
            for m in summary.models
        ]
        known = [m.cost_usd_estimate for m in models if m.cost_usd_estimate is not None]
        update["models"] = models
        update["cost_usd_estimate"] = round(sum(known), 9) if known else None
    else:
        update["cost_usd_estimate"] = estimate_cost(summary.model, summary.usage)
    price = price_for(summary.model)
    if price is not None:
        update["context_window"] = price.context_window
    return summary.model_copy(update=update)
