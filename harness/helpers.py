"""Helpers the tests and benchmarks share: waiting on a condition, reading what reached the
upstream, filling a store directly, watching the job queue drain."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal, TypeVar

import httpx
import openai
import redis

from core.model import Evidence, Kind, Memory, Source, new_id
from core.scope import Scope
from extractors import Extractor, Turn
from harness.serving import RunningMnemo
from harness.upstream import Recorded
from proxy.recall import BLOCK_CLOSE, BLOCK_OPEN
from proxy.worker.queue import STREAM

T = TypeVar("T")


def wait_until(
    condition: Callable[[], T | Literal[False] | None], what: str = "the condition", timeout_s: float = 30.0
) -> T:
    """Poll ``condition`` until it returns something truthy, and return that; fail after
    ``timeout_s`` saying what was awaited. The one way tests wait: on a condition, never a sleep."""
    deadline = time.monotonic() + timeout_s
    while True:
        found = condition()
        if found:
            return found
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout_s:.0f} s waiting for: {what}")
        time.sleep(0.05)


def openai_client(
    mnemo: RunningMnemo, project: str | None = None, api_key: str = "sk-client-key", **headers: str
) -> openai.OpenAI:
    """The OpenAI SDK pointed at a running Mnemo, as an agent would point it (no retries)."""
    default_headers = {"X-Mnemo-Project": project, **headers} if project else headers
    return openai.OpenAI(
        base_url=mnemo.openai_base, api_key=api_key, default_headers=default_headers, max_retries=0
    )


def chat(url: str, text: str, project: str | None = None, **headers: str) -> httpx.Response:
    """One user message to ``url``'s chat completions, over plain HTTP; the response as it came."""
    if project:
        headers = {"x-mnemo-project": project, **headers}
    return httpx.post(
        f"{url}/v1/chat/completions",
        headers=headers,
        json={"model": "m", "messages": [{"role": "user", "content": text}]},
        timeout=30,
    )


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


def export_line(project: str, text: str, at: datetime, **fields: Any) -> dict[str, Any]:
    """A record as a line of an export file carries it (the fields a foreign file would give)."""
    return {
        "id": new_id(),
        "kind": "semantic",
        "text": text,
        "scope": {"org": "local", "project": project, "user": None, "session": None},
        "evidence": "stated",
        "confidence": 0.9,
        "source": {
            "role": "user",
            "request_id": "r1",
            "message_index": 0,
            "message_sha256": "",
            "span": text,
        },
        "observed_at": at.isoformat(),
        "schema_version": 1,
        **fields,
    }


def coined_names(extractor: Extractor, count: int, fact: Callable[[str], str]) -> list[str]:
    """Made-up tool names no other fact has, each one the extractor reads a fact from when said as
    ``fact(name)``. Tests about losing or keeping jobs use them: the extractor misses about one such
    name in a thousand, which is extraction's business, and would otherwise pass for a lost job."""
    names: list[str] = []
    while len(names) < count:
        drawn = ["zq" + "".join(random.choice("bcdfghjklmnprstvz") for _ in range(8)) for _ in range(count)]
        found = extractor.extract_many([[Turn("user", fact(name), 0)] for name in drawn])
        names += [
            n for n, facts in zip(drawn, found, strict=True) if any(n in f.text_template for f in facts)
        ]
    return names[:count]
