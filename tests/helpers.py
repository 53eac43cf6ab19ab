"""Small helpers for reading what reached the upstream."""

from __future__ import annotations

from typing import Any

from proxy.recall import BLOCK_CLOSE, BLOCK_OPEN
from tests.upstream import Recorded


def injected_block(request: Recorded) -> str | None:
    """The memory block in a chat request as the upstream received it, if any."""
    for message in request.json()["messages"]:
        content = message.get("content")
        if isinstance(content, str) and content.startswith(BLOCK_OPEN):
            assert content.rstrip().endswith(BLOCK_CLOSE)
            return content
    return None


def roles(request: Recorded) -> list[str]:
    messages: list[dict[str, Any]] = request.json()["messages"]
    return [m["role"] for m in messages]
