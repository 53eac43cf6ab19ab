"""Small helpers for reading what reached the upstream."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from proxy.memory.model import Evidence, Kind, Memory, Source, new_id
from proxy.recall import BLOCK_CLOSE, BLOCK_OPEN
from proxy.scope import Scope
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


def memory_record(scope: Scope, text: str, **fields: Any) -> Memory:
    """A stated semantic record, as the worker would write it, for tests that fill a store directly."""
    base = Memory(
        id=new_id(),
        kind=Kind.SEMANTIC,
        text=text,
        scope=scope,
        evidence=Evidence.STATED,
        confidence=0.9,
        source=Source(role="user", request_id="r", message_index=0, message_sha256="", span=text),
        observed_at=datetime.now(UTC),
    )
    return base.with_changes(**fields) if fields else base
