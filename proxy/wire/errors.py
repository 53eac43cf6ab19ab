"""Error bodies in each API's own shape (DESIGN §8)."""

from __future__ import annotations

import json
from typing import Any, Literal

ApiShape = Literal["openai", "anthropic"]

_OPENAI_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "invalid_request_error",
    429: "rate_limit_error",
    502: "api_error",
    503: "api_error",
    504: "timeout_error",
}
_ANTHROPIC_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    502: "api_error",
    503: "overloaded_error",
    504: "timeout_error",
}


def error_body(
    shape: ApiShape, status: int, message: str, *, param: str | None = None, code: str | None = None
) -> dict[str, Any]:
    if shape == "anthropic":
        return {
            "type": "error",
            "error": {"type": _ANTHROPIC_TYPES.get(status, "api_error"), "message": message},
        }
    return {
        "error": {
            "message": message,
            "type": _OPENAI_TYPES.get(status, "api_error"),
            "param": param,
            "code": code,
        }
    }


def error_bytes(shape: ApiShape, status: int, message: str, **kwargs: Any) -> bytes:
    return json.dumps(error_body(shape, status, message, **kwargs)).encode()


def stream_error_frame(shape: ApiShape, status: int, message: str) -> bytes:
    """An error after the stream started goes out as an in-format event, not a status code."""
    body = json.dumps(error_body(shape, status, message))
    if shape == "anthropic":
        return f"event: error\ndata: {body}\n\n".encode()
    return f"data: {body}\n\n".encode()
