"""Small helpers for reading what reached the upstream."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import redis

from core.model import Evidence, Kind, Memory, Source, new_id
from core.scope import Scope
from proxy.recall import BLOCK_CLOSE, BLOCK_OPEN
from proxy.worker.queue import STREAM
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


def wait_drained(redis_url: str, added_at_least: int, timeout_s: float = 60.0) -> None:
    """Until the job stream has taken ``added_at_least`` jobs in all and every one is done."""
    client = redis.Redis.from_url(redis_url)
    try:
        wait_drained_on(client, added_at_least, timeout_s)
    finally:
        client.close()


def wait_drained_on(client: redis.Redis, added_at_least: int, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        info: Any = client.xinfo_stream(STREAM)
        added = int(info.get("entries-added", info.get(b"entries-added", 0)))
        if added >= added_at_least and int(client.xlen(STREAM)) == 0:
            return
        time.sleep(0.05)
    raise AssertionError("the extraction queue did not drain in time")


def jobs_added(redis_url: str) -> int:
    client = redis.Redis.from_url(redis_url)
    try:
        if not client.exists(STREAM):
            return 0
        info: Any = client.xinfo_stream(STREAM)
        return int(info.get("entries-added", info.get(b"entries-added", 0)))
    finally:
        client.close()


def files_holding(directory: Path, needles: list[str]) -> dict[str, list[str]]:
    """Which of ``needles`` each file under ``directory`` holds (bytes as written, any encoding)."""
    found: dict[str, list[str]] = {}
    for path in directory.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            held = [n for n in needles if n.encode() in data]
            if held:
                found[str(path.relative_to(directory))] = held
    return found
