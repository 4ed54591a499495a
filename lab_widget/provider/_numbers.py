"""Money and quotas read from JSON as the exact decimals the CLI wrote, shared by adapters."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import Any

__all__ = ["exact"]


def exact(value: Any) -> Decimal | None:
    """A figure the CLI wrote (a JSON number or a decimal string) as an exact decimal.

    JSON numbers arrive as floats; the shortest repr of a float is the literal a CLI wrote
    (JavaScript and Rust's serde also write the shortest round-trip form), so the decimal
    is that figure, digit for digit, and never the float's binary approximation.

    Examples
    --------
    >>> exact(0.011996), exact(1e-07), exact("12.34"), exact(3)
    (Decimal('0.011996'), Decimal('1E-7'), Decimal('12.34'), Decimal('3'))
    >>> exact(True), exact("n/a"), exact(float("nan"))
    (None, None, None)
    """
    if isinstance(value, bool):
        return None
    try:
        if isinstance(value, float):
            found = Decimal(repr(value))
        elif isinstance(value, int):
            found = Decimal(value)
        elif isinstance(value, str) and value.strip():
            found = Decimal(value.strip())
        else:
            return None
    except InvalidOperation:
        return None
    return found if found.is_finite() else None
