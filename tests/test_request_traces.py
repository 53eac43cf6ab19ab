"""Per-request traces (issue 15): each relayed call leaves a short record of what it was given and
why, and of what learning later made of it, by id; never its prompt text. Kept by the policy's
retention, reached by deletion, and shown under the memories' access rules."""

from __future__ import annotations

import asyncio
import hashlib
import json
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis
import redis.asyncio as aioredis

from core.scope import Scope, scope_tag
from harness.helpers import chat, injected_block, wait_until
from harness.processes import Store
from harness.upstream import UpstreamStub
from policies.loader import load_policy, parse_policy
from policies.model import TraceRetention
from policies.yaml_check import PolicyError
from proxy.memory.traces import INDEX_PREFIX, TRACE_PREFIX, CallTrace, TraceQuery, TraceStore
from proxy.recall import estimate_tokens
from tests.conftest import RunningMnemo, mnemo_on_own_store

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[1]
TEACH = "This repo uses pnpm, not npm."
ASK = "Which package manager should I install dependencies with?"


def trace(mnemo: RunningMnemo, request_id: str, **headers: str) -> httpx.Response:
    return httpx.get(f"{mnemo.url}/mnemo/v1/requests/{request_id}", headers=headers, timeout=30)


def listed(mnemo: RunningMnemo, headers: dict[str, str] | None = None, **params: Any) -> dict[str, Any]:
    response = httpx.get(f"{mnemo.url}/mnemo/v1/requests", params=params, headers=headers, timeout=30)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def kept(mnemo: RunningMnemo, request_id: str, learned: bool = False) -> dict[str, Any]:
    """The call's trace once it is written (after the reply), and, if asked, once its job is learned."""

    def ready() -> dict[str, Any] | None:
        response = trace(mnemo, request_id)
        if response.status_code != 200:
            return None
        body: dict[str, Any] = response.json()
        return body if body["learning"]["learned_at"] or not learned else None

    return wait_until(ready, f"the trace of {request_id}")


def test_a_recalled_fact_is_traced_with_its_scope_rank_block_and_what_learning_wrote(
    mnemo: RunningMnemo, fresh_upstream: UpstreamStub, unique: Callable[[str], str]
) -> None:
    project, user = unique("traced"), unique("dana")  # the shared store holds other users' standing records
    said = {"x-mnemo-session": "s1", "x-mnemo-user": user, "user-agent": "trace-test/1.0"}
    taught = chat(mnemo.url, TEACH, project, **said)
    assert taught.status_code == 200
    before = [i for i in taught.headers["x-mnemo-recalled-ids"].split(",") if i]  # org-wide records, if any
    assert len(before) == int(taught.headers["x-mnemo-recalled"])
    (fact,) = [m for m in mnemo.wait_for_memories(1, project=project) if m["value"] == "pnpm"]

    teaching = kept(mnemo, taught.headers["x-mnemo-request-id"], learned=True)
    assert fact["id"] in teaching["learning"]["written"]
    assert teaching["learning"]["queued"] and teaching["learning"]["turns"]["user"] == 1
    assert (teaching["client"], teaching["api"], teaching["http_status"]) == (
        "trace-test/1.0",
        "openai.chat",
        200,
    )
    assert teaching["scope"] == {"org": "local", "project": project, "user": user, "session": "s1"}
    assert teaching["scope_sources"] == {
        "org": "principal",
        "project": "header",
        "user": "header",
        "session": "header",
    }

    fresh_upstream.requests.clear()
    asked = chat(mnemo.url, ASK, project)
    recalled = asked.headers["x-mnemo-recalled-ids"].split(",")
    assert fact["id"] in recalled and len(recalled) == int(asked.headers["x-mnemo-recalled"])
    block = injected_block(fresh_upstream.chat_requests()[-1])
    assert block is not None

    given = kept(mnemo, asked.headers["x-mnemo-request-id"])
    assert [m["id"] for m in given["injected"]] == recalled  # in rank order, as the header says
    (entry,) = [m for m in given["injected"] if m["id"] == fact["id"]]
    assert entry["rank"] == recalled.index(fact["id"]) + 1 and entry["score"] > 0
    assert (entry["kind"], entry["level"]) == (fact["kind"], "project")
    assert given["block_tokens"] == estimate_tokens(block) > 0
    assert given["recall"] == {"status": "ok", "reason": None} and given["status"] == "ok"
    assert given["scope"]["user"] == "default" and given["scope"]["session"].startswith("conv-")
    assert given["scope_sources"]["user"] == "principal_default"
    assert given["scope_sources"]["session"] == "derived"

    # ids, scores and sizes only: neither what was said nor what the memory says
    raw = json.dumps([teaching, kept(mnemo, asked.headers["x-mnemo-request-id"], learned=True)])
    for words in ("pnpm", "npm", "package manager", "install dependencies", "repo uses"):
        assert words not in raw


def test_the_recent_calls_are_listed_newest_first_by_scope_with_a_cursor(
    mnemo: RunningMnemo, fresh_upstream: UpstreamStub, unique: Callable[[str], str]
) -> None:
    project = unique("listed")
    ids = []
    for n in range(3):
        response = httpx.post(
            f"{mnemo.url}/p/{project}/v1/chat/completions",
            headers={"x-mnemo-session": f"s{n}", "x-mnemo-mode": "read"},
            json={"model": "m", "messages": [{"role": "user", "content": f"Hello number {n}."}]},
            timeout=30,
        )
        ids.append(response.headers["x-mnemo-request-id"])
    wait_until(lambda: len(listed(mnemo, project=project)["data"]) == 3, "three traces")

    page = listed(mnemo, project=project)
    assert [t["id"] for t in page["data"]] == ids[::-1] and page["next_cursor"] is None
    assert all(t["scope_sources"]["project"] == "path" for t in page["data"])
    assert {t["learning"]["reason"] for t in page["data"]} == {"learning is off for this call"}
    assert [t["id"] for t in listed(mnemo, project=project, session="s1")["data"]] == [ids[1]]

    first = listed(mnemo, project=project, limit=2)
    assert [t["id"] for t in first["data"]] == ids[:0:-1] and first["next_cursor"]
    rest = listed(mnemo, project=project, limit=2, cursor=first["next_cursor"])
    assert [t["id"] for t in rest["data"]] == [ids[0]] and rest["next_cursor"] is None
    bad = httpx.get(f"{mnemo.url}/mnemo/v1/requests", params={"cursor": "later"}, timeout=30)
    assert bad.status_code == 400 and bad.json()["error"]["param"] == "cursor"
    assert trace(mnemo, uuid.uuid4().hex).status_code == 404


def _call(request_id: str, org: str, at: datetime) -> CallTrace:
    return CallTrace(
        id=request_id,
        at=at,
        api="openai.chat",
        client=None,
        model="m",
        http_status=200,
        status="ok",
        mode="read",
        scope=Scope(org=org, project="web", user="u", session="s"),
        sources={"org": "principal", "project": "header", "user": "header", "session": "header"},
        recall_status="ok",
        recall_reason=None,
        injected=[],
        block_tokens=0,
        forgotten=0,
        overhead_ms=1.0,
        queued=False,
        not_queued_because="learning is off for this call",
        turns={},
    )


def test_pages_neither_lose_nor_repeat_calls_made_in_the_same_millisecond(store: Store) -> None:
    """Calls of one millisecond share a score in the index; a trace gone between pages (expired,
    trimmed) must not shift the next page either."""
    org, at = f"org-{uuid.uuid4().hex[:8]}", datetime.now(UTC)
    times = [at, at, at, at, at + timedelta(seconds=1), at - timedelta(seconds=1), at]
    ids = [f"r{n}" for n in range(len(times))]

    async def run() -> list[list[str]]:
        client = aioredis.Redis.from_url(store.url)
        traces = TraceStore(client, "mnemo:mem:")
        for request_id, when in zip(ids, times, strict=True):
            await traces.keep(_call(request_id, org, when), TraceRetention())
        pages: list[list[str]] = []
        cursor = None
        while True:
            page = await traces.page(TraceQuery(org=org, project="web", limit=2, cursor=cursor))
            pages.append([t["id"] for t in page.traces])
            if len(pages) == 1:
                await client.delete(f"{TRACE_PREFIX}{scope_tag(org)}:r3")  # gone meanwhile
            if page.next_cursor is None:
                break
            cursor = page.next_cursor
        await client.aclose()
        return pages

    pages = asyncio.run(run())
    seen = [request_id for page in pages for request_id in page]
    # newest first; within a millisecond, the index's own order (request id descending)
    assert seen[:2] == ["r4", "r6"] and seen[-1] == "r5"
    assert sorted(seen) == sorted(set(ids) - {"r3"}) and len(seen) == len(set(seen))


def test_deleting_a_memory_takes_its_id_out_of_the_traces_and_a_scope_takes_its_traces(
    mnemo: RunningMnemo, fresh_upstream: UpstreamStub, unique: Callable[[str], str]
) -> None:
    project = unique("erased")
    taught = chat(mnemo.url, TEACH, project)
    (fact,) = [m for m in mnemo.wait_for_memories(1, project=project) if m["value"] == "pnpm"]
    asked = chat(mnemo.url, ASK, project)
    assert fact["id"] in asked.headers["x-mnemo-recalled-ids"]
    taught_id, asked_id = taught.headers["x-mnemo-request-id"], asked.headers["x-mnemo-request-id"]
    assert fact["id"] in kept(mnemo, taught_id, learned=True)["learning"]["written"]
    assert fact["id"] in [m["id"] for m in kept(mnemo, asked_id)["injected"]]

    deleted = httpx.delete(f"{mnemo.url}/mnemo/v1/memories/{fact['id']}", timeout=30)
    assert deleted.status_code == 200
    assert fact["id"] not in json.dumps([trace(mnemo, taught_id).json(), trace(mnemo, asked_id).json()])
    client = redis.Redis.from_url(mnemo.settings.redis_url or "", decode_responses=True)
    try:
        for request_id in (taught_id, asked_id):
            row = client.hgetall(f"{TRACE_PREFIX}{scope_tag('local')}:{request_id}")
            assert row and fact["id"] not in json.dumps(row)  # not in a field's name nor its value
        assert not client.exists(f"mnemo:trace:bymem:{fact['id']}")
    finally:
        client.close()

    assert httpx.delete(f"{mnemo.url}/mnemo/v1/scopes/project/{project}", timeout=30).status_code == 200
    assert trace(mnemo, taught_id).status_code == trace(mnemo, asked_id).status_code == 404
    assert listed(mnemo, project=project)["data"] == []


def test_a_trace_that_cannot_be_written_fails_neither_the_call_nor_its_learning(
    mnemo: RunningMnemo, fresh_upstream: UpstreamStub, unique: Callable[[str], str]
) -> None:
    project = unique("untraceable")
    client = redis.Redis.from_url(mnemo.settings.redis_url or "", decode_responses=True)
    broken = f"{INDEX_PREFIX}{scope_tag('local')}:project:{scope_tag(project)}"
    client.set(broken, "not a sorted set: every trace write in this project fails")
    try:
        response = chat(mnemo.url, TEACH, project)
        assert response.status_code == 200 and response.headers["x-mnemo-status"] == "ok"
        assert [m for m in mnemo.wait_for_memories(1, project=project) if m["value"] == "pnpm"]
    finally:
        client.delete(broken)
        client.close()


def sha(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


ACME_KEY, BETA_KEY = "acme-" + uuid.uuid4().hex, "beta-" + uuid.uuid4().hex
KEYS_POLICY = f"""name: traced-orgs
version: 1
mode: keys
principals:
  - {{name: acme-dev, key_sha256: {sha(ACME_KEY)}, org: acme, default_user: dev}}
  - {{name: beta-dev, key_sha256: {sha(BETA_KEY)}, org: beta, default_user: dev}}
traces:
  ttl: 2h
  max_count: 3
"""


def test_keys_mode_shows_a_trace_to_its_org_only_and_the_policy_bounds_how_many_and_how_long(
    upstream: UpstreamStub, tmp_path: Path
) -> None:
    with mnemo_on_own_store(upstream.url, tmp_path, KEYS_POLICY) as (mnemo, store):
        acme, beta = {"x-mnemo-key": ACME_KEY}, {"x-mnemo-key": BETA_KEY}
        calls = [
            chat(mnemo.url, f"Hello {n}.", "web", **acme, **{"x-mnemo-mode": "read"}).headers[
                "x-mnemo-request-id"
            ]
            for n in range(5)
        ]
        newest = calls[:1:-1]
        # trimmed on write: the oldest two went, hash and all
        wait_until(lambda: [t["id"] for t in listed(mnemo, acme)["data"]] == newest, "the newest three")
        assert [trace(mnemo, old, **acme).status_code for old in calls[:2]] == [404, 404]
        client = redis.Redis.from_url(store.url, decode_responses=True)
        try:
            org = scope_tag("acme")
            assert client.zcard(f"{INDEX_PREFIX}{org}") == 3
            assert not client.exists(f"{TRACE_PREFIX}{org}:{calls[0]}")
            assert 7000 < int(client.ttl(f"{TRACE_PREFIX}{org}:{calls[-1]}")) <= 7200
        finally:
            client.close()

        # another org's trace is not found and not listed; asking for its org is refused
        assert trace(mnemo, calls[-1], **acme).status_code == 200
        assert trace(mnemo, calls[-1], **beta).status_code == 404
        assert listed(mnemo, beta)["data"] == []
        other = httpx.get(f"{mnemo.url}/mnemo/v1/requests", params={"org": "acme"}, headers=beta, timeout=30)
        assert other.status_code == 403
        own = chat(mnemo.url, "Hello from beta.", "web", **beta).headers["x-mnemo-request-id"]
        wait_until(lambda: trace(mnemo, own, **beta).status_code == 200, "beta's own trace")
        assert trace(mnemo, own, **acme).status_code == 404
        assert own not in [t["id"] for t in listed(mnemo, acme)["data"]]
        # a principal acts only as its own users: another user's calls are refused outright
        assert (
            httpx.get(
                f"{mnemo.url}/mnemo/v1/requests", params={"user": "someone"}, headers=acme, timeout=30
            ).status_code
            == 403
        )


def test_the_policy_sets_how_long_traces_are_kept_and_how_many() -> None:
    default = load_policy(ROOT / "policies" / "default.yaml").traces
    assert (default.ttl_s, default.max_count) == (7 * 86400, 10_000)
    given = parse_policy("name: t\nversion: 1\ntraces: {ttl: 36h, max_count: 50}\n", "t.yaml").traces
    assert (given.ttl_s, given.max_count) == (36 * 3600, 50)
    with pytest.raises(PolicyError) as refused:
        parse_policy("name: t\nversion: 1\ntraces:\n  ttl: soon\n  max_count: 0\n", "t.yaml")
    assert "t.yaml:4: traces.ttl" in str(refused.value) and "t.yaml:5: traces.max_count" in str(refused.value)
