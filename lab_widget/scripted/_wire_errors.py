"""An :class:`~lab_widget.scripted.ApiError` as each wire API's vendor sends it.

This module is protocol data (the error types and ``@type`` URLs each API puts in its
bodies), like the compat pins: the vendors' names in it are wire identifiers, never copy.
"""

from __future__ import annotations

from ._script import ApiError
from ._wire import WireResponse

__all__ = ["generate_content_error", "messages_error", "openai_error"]

_OPENAI_CODES = {
    "rate_limit": "rate_limit_exceeded",
    "quota": "insufficient_quota",
    "overloaded": "server_error",
}
_GEMINI_STATUS = {
    "rate_limit": "RESOURCE_EXHAUSTED",
    "quota": "RESOURCE_EXHAUSTED",
    "overloaded": "UNAVAILABLE",
}
_QUOTA_IDS = {
    "rate_limit": ("generate_content_requests", "GenerateRequestsPerMinutePerProjectPerModel"),
    "quota": (
        "generate_content_free_tier_requests",
        "GenerateRequestsPerDayPerProjectPerModel-FreeTier",
    ),
}


def _headers(error: ApiError) -> dict[str, str]:
    return {} if error.retry_after is None else {"retry-after": str(error.retry_after)}


def messages_error(error: ApiError) -> WireResponse:
    """The Messages API's error answer.

    Examples
    --------
    >>> r = messages_error(ApiError("overloaded"))
    >>> r.status, r.json_body["error"]["type"]
    (529, 'overloaded_error')
    """
    kind = "overloaded_error" if error.kind == "overloaded" else "rate_limit_error"
    body = {"type": "error", "error": {"type": kind, "message": error.text}}
    return WireResponse(json_body=body, status=error.status, headers=_headers(error))


def openai_error(error: ApiError) -> WireResponse:
    """The Responses and Chat Completions APIs' error answer.

    Examples
    --------
    >>> openai_error(ApiError("quota")).json_body["error"]["code"]
    'insufficient_quota'
    """
    body = {
        "error": {
            "message": error.text,
            "type": "insufficient_quota" if error.kind == "quota" else "requests",
            "param": None,
            "code": _OPENAI_CODES[error.kind],
        }
    }
    status = 503 if error.kind == "overloaded" else 429
    return WireResponse(json_body=body, status=status, headers=_headers(error))


def generate_content_error(error: ApiError) -> WireResponse:
    """The Generative Language API's error answer.

    Examples
    --------
    >>> r = generate_content_error(ApiError(retry_after=30))
    >>> r.status, r.json_body["error"]["status"], r.headers
    (429, 'RESOURCE_EXHAUSTED', {'retry-after': '30'})
    """
    status = 503 if error.kind == "overloaded" else 429
    details: list[dict[str, object]] = []
    if error.kind in _QUOTA_IDS:
        metric, quota_id = _QUOTA_IDS[error.kind]
        details.append(
            {
                "@type": "type.googleapis.com/google.rpc.QuotaFailure",
                "violations": [
                    {
                        "quotaMetric": f"generativelanguage.googleapis.com/{metric}",
                        "quotaId": quota_id,
                    }
                ],
            }
        )
    if error.retry_after is not None:
        details.append(
            {
                "@type": "type.googleapis.com/google.rpc.RetryInfo",
                "retryDelay": f"{error.retry_after}s",
            }
        )
    body = {
        "error": {
            "code": status,
            "message": error.text,
            "status": _GEMINI_STATUS[error.kind],
            "details": details,
        }
    }
    return WireResponse(json_body=body, status=status, headers=_headers(error))
