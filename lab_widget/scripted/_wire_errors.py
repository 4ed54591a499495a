"""An :class:`~lab_widget.scripted.ApiError` as each wire API's vendor sends it.

This module is protocol data (the error types and ``@type`` URLs each API puts in its
bodies), like the compat pins: the vendors' names in it are wire identifiers, never copy.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from ._script import ApiError
from ._wire import WireResponse

__all__ = [
    "ErrorBody",
    "error_response",
    "generate_content_error",
    "messages_error",
    "openai_error",
]

ErrorBody = Callable[[ApiError], WireResponse]
"""How one wire API answers with an error."""

_Wire = Literal["anthropic", "responses", "chat", "gemini"]

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


def messages_error(error: ApiError) -> WireResponse:
    """The Messages API's error answer."""
    return error_response(error, "anthropic")


def openai_error(error: ApiError) -> WireResponse:
    """The Responses and Chat Completions APIs' error answer."""
    return error_response(error, "chat")


def generate_content_error(error: ApiError) -> WireResponse:
    """The Generative Language API's error answer."""
    return error_response(error, "gemini")


def error_response(error: ApiError, wire: _Wire) -> WireResponse:
    """The HTTP answer ``wire``'s API gives for ``error``.

    Examples
    --------
    >>> r = error_response(ApiError(retry_after=30), "gemini")
    >>> r.status, r.json_body["error"]["status"], r.headers
    (429, 'RESOURCE_EXHAUSTED', {'retry-after': '30'})
    >>> error_response(ApiError("quota"), "chat").json_body["error"]["code"]
    'insufficient_quota'
    """
    headers = {} if error.retry_after is None else {"retry-after": str(error.retry_after)}
    if wire == "anthropic":
        kind = "overloaded_error" if error.kind == "overloaded" else "rate_limit_error"
        body: dict[str, object] = {
            "type": "error",
            "error": {"type": kind, "message": error.text},
        }
        return WireResponse(json_body=body, status=error.status, headers=headers)
    if wire == "gemini":
        status = 503 if error.kind == "overloaded" else 429
        details: list[dict[str, object]] = []
        if error.kind != "overloaded":
            details.append(
                {
                    "@type": "type.googleapis.com/google.rpc.QuotaFailure",
                    "violations": [
                        {
                            "quotaMetric": "generativelanguage.googleapis.com/"
                            + (
                                "generate_content_requests"
                                if error.kind == "rate_limit"
                                else "generate_content_free_tier_requests"
                            ),
                            "quotaId": "GenerateRequestsPerMinutePerProjectPerModel"
                            if error.kind == "rate_limit"
                            else "GenerateRequestsPerDayPerProjectPerModel-FreeTier",
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
        return WireResponse(json_body=body, status=status, headers=headers)
    code = _OPENAI_CODES[error.kind]
    body = {
        "error": {
            "message": error.text,
            "type": "insufficient_quota" if error.kind == "quota" else "requests",
            "param": None,
            "code": code,
        }
    }
    return WireResponse(
        json_body=body, status=503 if error.kind == "overloaded" else 429, headers=headers
    )
