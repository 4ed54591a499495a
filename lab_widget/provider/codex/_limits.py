"""Codex CLI's rate-limit snapshots (``token_count.rate_limits``) in the schema's terms.

Codex reads its quotas from the model server's ``x-<limit>-primary-used-percent`` /
``-window-minutes`` / ``-reset-at`` and ``x-codex-credits-*`` response headers (or a
``codex.rate_limits`` event) and writes the latest snapshot into every ``token_count`` of the
rollout (see ``_compat.RATE_LIMIT_FIELDS``). Windows report a share used only; credits an
absolute balance only: each is kept as given.

Examples
--------
>>> snap = {"limit_id": "codex", "plan_type": "pro",
...         "primary": {"used_percent": 42.5, "window_minutes": 300, "resets_at": 1796142793},
...         "secondary": None,
...         "credits": {"has_credits": True, "unlimited": False, "balance": "12.34"}}
>>> [(r.limit_id, r.window, r.kind, r.used_percent, r.remaining) for r in rate_limits(snap)]
[('codex', 'primary', 'usage', 42.5, None), ('codex', 'credits', 'credits', None, Decimal('12.34'))]
>>> rate_limits({"limit_id": "codex", "primary": None, "secondary": None, "credits": None})
[]
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from ...schema import RateLimit
from ..kit import exact
from . import _compat

__all__ = ["quota_error", "rate_limits"]


def _epoch(value: Any) -> datetime | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        return datetime.fromtimestamp(value, UTC)
    except (OverflowError, OSError, ValueError):
        return None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def rate_limits(raw: Any, observed_at: datetime | None = None) -> list[RateLimit]:
    """The snapshots of one ``rate_limits`` object: one per window, one for credits."""
    if not isinstance(raw, dict):
        return []
    limit_id = _text(raw.get("limit_id")) or _compat.DEFAULT_LIMIT_ID
    common: dict[str, Any] = {
        "limit_id": limit_id,
        "name": _text(raw.get("limit_name")),
        "plan_type": _text(raw.get("plan_type")),
        "status": _text(raw.get("rate_limit_reached_type")),
        "observed_at": observed_at,
        "source": "token_count",
    }
    found: list[RateLimit] = []
    for window in _compat.RATE_LIMIT_WINDOWS:
        entry = raw.get(window)
        if not isinstance(entry, dict):
            continue
        percent = entry.get("used_percent")
        minutes = entry.get("window_minutes")
        found.append(
            RateLimit(
                **common,
                window=window,
                window_minutes=minutes if isinstance(minutes, int) else None,
                used_percent=float(percent)
                if isinstance(percent, int | float) and not isinstance(percent, bool)
                else None,
                resets_at=_epoch(entry.get("resets_at")),
            )
        )
    credits = raw.get("credits")
    if isinstance(credits, dict):
        unlimited = credits.get("unlimited")
        has = credits.get("has_credits")
        found.append(
            RateLimit(
                **{**common, "status": common["status"] or ("exhausted" if has is False else None)},
                window="credits",
                kind="credits",
                remaining=exact(credits.get("balance")),
                unit="credits",
                unlimited=unlimited if isinstance(unlimited, bool) else None,
            )
        )
    return found


def quota_error(error: Any, observed_at: datetime | None = None) -> RateLimit | None:
    """The limit a turn's ``task_complete.error`` says was reached, if it names a quota.

    Examples
    --------
    >>> r = quota_error({"message": "Quota exceeded.", "codex_error_info": "usage_limit_exceeded"})
    >>> r.limit_id, r.kind, r.status, r.source
    ('usage_limit_exceeded', 'usage', 'reached', 'error')
    >>> quota_error({"message": "boom", "codex_error_info": "internal_server_error"}) is None
    True
    """
    if not isinstance(error, dict):
        return None
    info = error.get("codex_error_info")
    kind = _compat.QUOTA_ERRORS.get(info) if isinstance(info, str) else None
    if kind is None or not isinstance(info, str):
        return None
    return RateLimit(
        limit_id=info,
        kind=kind,
        status="reached",
        observed_at=observed_at,
        source="error",
    )
