"""Small pieces every wire format shares."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from core.errors import BadRequest


def json_object(raw: bytes) -> dict[str, Any]:
    """The request body as a JSON object, or a 400 in the caller's shape."""
    try:
        body = json.loads(raw)
    except RecursionError as exc:  # "[[[[...": nested past what any request needs
        raise BadRequest("request body nests too deep") from exc
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise BadRequest(f"request body is not valid JSON: {exc}") from exc
    if not isinstance(body, dict):
        raise BadRequest("request body must be a JSON object")
    try:  # a lone surrogate ("\ud800") is valid JSON but no text: it could never be relayed or stored
        json.dumps(body, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError as exc:
        raise BadRequest("request body holds an unpaired UTF-16 surrogate escape, which is no text") from exc
    return body


def item_hashes(items: list[Any], indexes: list[int]) -> dict[int, str]:
    """sha256 of each chosen message or item as canonical JSON: what a record's source points at."""
    return {
        i: hashlib.sha256(json.dumps(items[i], sort_keys=True, ensure_ascii=False).encode()).hexdigest()
        for i in indexes
    }
