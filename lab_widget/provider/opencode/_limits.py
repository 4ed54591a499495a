"""What an API error OpenCode recorded says about the account's limits.

OpenCode keeps no quota figures of its own; an assistant message whose request failed keeps
the provider's answer in ``info.error`` (``APIError``: ``statusCode``, ``responseHeaders``,
``responseBody``). A 429 says a limit was reached (and, with ``retry-after``, when it resets);
the rate-limit headers the API sent with it are the limits' own figures, kept as given.

Examples
--------
>>> from datetime import UTC, datetime
>>> when = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
>>> data = {"message": "You exceeded your current quota", "statusCode": 429,
...         "responseHeaders": {"retry-after": "30", "x-ratelimit-limit-requests": "500",
...                             "x-ratelimit-remaining-requests": "0",
...                             "x-ratelimit-reset-requests": "1m30s"},
...         "responseBody": '{"error": {"code": "insufficient_quota"}}'}
>>> for r in api_error_limits(data, when):
...     print(r.limit_id, r.kind, r.status, r.limit, r.remaining, r.resets_at.strftime("%M:%S"))
insufficient_quota usage reached None None 00:30
requests requests None 500 0 01:30
"""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta
from typing import Any

from ...schema import RateLimit, RateLimitKind
from ..kit import as_dict, exact
from . import _compat

__all__ = ["api_error_limits"]

_DURATION = re.compile(
    r"(?:(\d+(?:\.\d+)?)h)?(?:(\d+(?:\.\d+)?)m(?!s))?(?:(\d+(?:\.\d+)?)s)?(?:(\d+)ms)?$"
)


def _seconds(text: str) -> float | None:
    """An OpenAI reset duration (``"1m30s"``, ``"6ms"``) or plain seconds."""
    text = text.strip()
    try:
        return float(text)
    except ValueError:
        pass
    match = _DURATION.match(text)
    if not text or match is None:
        return None
    h, m, s, ms = (float(g) if g else 0.0 for g in match.groups())
    return h * 3600 + m * 60 + s + ms / 1000


def _body_code(body: Any) -> str | None:
    if not isinstance(body, str):
        return None
    try:
        parsed = json.loads(body)
    except ValueError:
        return None
    error = as_dict(as_dict(parsed).get("error"))
    for key in ("code", "type", "status"):
        value = error.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def api_error_limits(data: dict[str, Any], when: datetime | None) -> list[RateLimit]:
    """The limits an ``APIError``'s data reports: the one it hit, and the headers' figures."""
    headers = {str(k).lower(): str(v) for k, v in as_dict(data.get("responseHeaders")).items()}
    found: list[RateLimit] = []
    code = _body_code(data.get("responseBody"))
    if data.get("statusCode") == 429 or code in _compat.QUOTA_CODES:
        retry = _seconds(headers.get("retry-after", ""))
        kind: RateLimitKind = _compat.QUOTA_CODES.get(code or "", "requests")
        found.append(
            RateLimit(
                limit_id=code or "http_429",
                kind=kind,
                status="reached",
                resets_at=when + timedelta(seconds=retry) if when and retry is not None else None,
                observed_at=when,
                source="error",
            )
        )
    for family, kind in _compat.RATE_LIMIT_HEADERS:
        limit = exact(headers.get(f"x-ratelimit-limit-{family}"))
        remaining = exact(headers.get(f"x-ratelimit-remaining-{family}"))
        if limit is None and remaining is None:
            continue
        reset = _seconds(headers.get(f"x-ratelimit-reset-{family}", ""))
        found.append(
            RateLimit(
                limit_id=family,
                kind=kind,
                limit=limit,
                remaining=remaining,
                resets_at=when + timedelta(seconds=reset) if when and reset is not None else None,
                observed_at=when,
                source="error",
            )
        )
    return found
