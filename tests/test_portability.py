"""Memory that moves and memory that goes: export from one data dir and import into a fresh one
recalls the same records; a deleted record leaves nothing behind in the raw store, not even in a
queued extraction job that would have learned it again. Each test has its own stores."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis

from harness.helpers import chat, injected_block, wait_drained, wait_until
from harness.processes import Store
from harness.upstream import UpstreamStub
from proxy.settings import Settings
from tests.conftest import NDJSON, RunningMnemo, serve_mnemo, store_for_test

pytestmark = [pytest.mark.integration, pytest.mark.store_contract]


def serve(store: Store, upstream: UpstreamStub, data: Path, **changes: Any) -> RunningMnemo:
    return serve_mnemo(
        Settings(
            redis_url=store.url,
            upstream_url=upstream.url,
            anthropic_upstream_url=upstream.anthropic_url,
            data_dir=data,
            **changes,
        )
    )


def raw_store_holds(url: str, needle: str) -> list[str]:
    """Every key of any type whose name or content holds ``needle`` (case-insensitive)."""
    client = redis.Redis.from_url(url)
    found: list[str] = []
    low = needle.lower().encode()
    for key in client.scan_iter(count=1000):
        raw_kind: Any = client.type(key)
        kind = raw_kind.decode()
        blobs: list[Any]
        if kind == "hash":
            blobs = [b for pair in client.hgetall(key).items() for b in pair]
        elif kind == "stream":
            entries: Any = client.xrange(key)
            blobs = [b for _, fields in entries for pair in fields.items() for b in pair]
        elif kind == "string":
            blobs = [client.get(key) or b""]
        elif kind == "set":
            blobs = list(client.smembers(key))
        elif kind == "list":
            blobs = list(client.lrange(key, 0, -1))
        elif kind == "zset":
            members: Any = client.zrange(key, 0, -1)
            blobs = list(members)
        else:
            blobs = []
        if low in key.lower() or any(low in bytes(blob).lower() for blob in blobs):
            found.append(key.decode())
    client.close()
    return found


@pytest.fixture
def own_store(tmp_path: Path) -> Iterator[Store]:
    with store_for_test(tmp_path / "store") as embedded:
        yield embedded


def test_deleted_memory_leaves_no_trace_and_a_queued_job_cannot_bring_it_back(
    own_store: Store, upstream: UpstreamStub, tmp_path: Path
) -> None:
    said = "We use quokkadb for caching."
    learner = serve(own_store, upstream, tmp_path / "a")
    chat(learner.url, said, "zoo", **{"x-mnemo-user": "ana"})
    (memory,) = learner.wait_for_memories(1, project="zoo")
    assert "quokkadb" in memory["text"]
    learner.stop()

    # a proxy without a worker: the same sentence said again waits in the job queue
    quiet = serve(own_store, upstream, tmp_path / "b", run_worker=False)
    assert chat(quiet.url, said, "zoo", **{"x-mnemo-user": "ana"}).status_code == 200
    # the job's text waits in a payload key of its own (the stream holds only its name); it is
    # queued just after the reply, so wait for it
    wait_until(
        lambda: any(key.startswith("mnemo:job:") for key in raw_store_holds(own_store.url, "quokkadb")),
        "the job queued",
    )

    receipt = httpx.delete(f"{quiet.url}/mnemo/v1/memories/{memory['id']}").json()
    assert receipt["deleted"] == 1 and receipt["jobs_purged"] == 1
    assert raw_store_holds(own_store.url, "quokkadb") == []
    assert quiet.memories(project="zoo") == []
    search = httpx.get(f"{quiet.url}/mnemo/v1/memories/search", params={"q": "caching", "project": "zoo"})
    assert search.json()["data"] == []
    assert b"quokkadb" not in httpx.get(f"{quiet.url}/mnemo/v1/export").content
    assert httpx.get(f"{quiet.url}/mnemo/v1/memories/{memory['id']}").status_code == 404
    upstream.requests.clear()
    assert (
        chat(quiet.url, "What do we use for caching?", "zoo", **{"x-mnemo-user": "ana"}).headers[
            "x-mnemo-recalled"
        ]
        == "0"
    )
    assert "quokkadb" not in (injected_block(upstream.chat_requests()[-1]) or "")
    quiet.stop()

    # a worker starting now finds nothing to learn it from again: once it has done what is queued
    # (the question above), the queue is empty and nothing holds the deleted words
    worker = serve(own_store, upstream, tmp_path / "c")
    client = redis.Redis.from_url(own_store.url)
    wait_until(
        lambda: client.xlen("mnemo:jobs") == 0 and not list(client.scan_iter(match="mnemo:job:*")),
        "the queue done",
    )
    assert httpx.get(f"{worker.url}/readyz").json()["ready"]
    assert worker.memories(project="zoo") == []
    assert raw_store_holds(own_store.url, "quokkadb") == []
    worker.stop()


TEACH = [
    ("web", "ana", "This repo uses pnpm."),
    ("web", "ana", "The test command is `pnpm test:unit`."),
    ("web", "ana", "We switched from pnpm to yarn last week."),
    ("api", "ana", "The API service uses Postgres 16."),
    ("api", "ana", "I prefer concise answers with bullet points."),
    ("api", "bo", "Always run the linter before you commit."),
]
ASK = [
    ("web", "ana", "How do I install the dependencies?"),
    ("api", "ana", "Which database do we use here?"),
    ("api", "bo", "Anything I should do before committing?"),
]


def _export(mnemo: RunningMnemo, **params: Any) -> list[str]:
    response = httpx.get(f"{mnemo.url}/mnemo/v1/export", params=params, timeout=60)
    assert response.status_code == 200 and response.headers["content-type"].startswith("application/x-ndjson")
    lines = response.text.splitlines()
    assert int(response.headers["x-mnemo-export-count"]) == len(lines)
    return lines


def _blocks(mnemo: RunningMnemo, upstream: UpstreamStub) -> list[str | None]:
    """The memory block each question gets. A recall that timed out (the relay fails open, saying so in
    X-Mnemo-Status: degraded; a fresh server on a loaded machine warms its embedder on the first call)
    is asked again: what is compared is what the store holds, not how fast the machine is."""
    blocks = []
    for project, user, text in ASK:

        def asked(project: str = project, user: str = user, text: str = text) -> httpx.Response | None:
            upstream.requests.clear()
            response = chat(mnemo.url, text, project, **{"x-mnemo-user": user})
            assert response.status_code == 200
            return None if response.headers["x-mnemo-status"].startswith("degraded") else response

        wait_until(asked, "a recall that did not time out", timeout_s=60)
        blocks.append(injected_block(upstream.chat_requests()[-1]))
    return blocks


def test_export_then_import_into_a_fresh_store_recalls_the_same_records(
    upstream: UpstreamStub, fresh_upstream: UpstreamStub, tmp_path: Path
) -> None:
    with store_for_test(tmp_path / "one") as first_store:
        first = serve(first_store, upstream, tmp_path / "d1")
        for project, user, text in TEACH:
            chat(first.url, text, project, **{"x-mnemo-user": user})
        first.wait_for_memories(6)  # pnpm, then yarn superseding it, and four more
        wait_drained(first_store.url, len(TEACH))  # nothing else still being learned
        exported = _export(first)
        with_vectors = _export(first, vectors="true")
        before = _blocks(first, fresh_upstream)
        first.stop()
    assert all(json.loads(line)["schema_version"] == 1 for line in exported)
    assert {json.loads(line)["status"] for line in exported} >= {"active", "superseded"}
    assert all("embedding" in json.loads(line) for line in with_vectors)
    assert sum(b is not None for b in before) == 3

    with store_for_test(tmp_path / "two") as second_store:
        second = serve(second_store, upstream, tmp_path / "d2", run_worker=False)
        body = ("\n".join(exported) + "\n").encode()
        report = httpx.post(f"{second.url}/mnemo/v1/import", content=body, headers=NDJSON, timeout=60).json()
        assert (report["imported"], report["merged"], report["rejected"]) == (len(exported), 0, 0)
        assert report["reembedded"] == len(exported)
        assert _blocks(second, fresh_upstream) == before
        # every field, provenance included, comes back as it left
        assert sorted(_export(second)) == sorted(exported)
        again = httpx.post(f"{second.url}/mnemo/v1/import", content=body, headers=NDJSON, timeout=60).json()
        assert (again["imported"], again["merged"], again["rejected"]) == (0, len(exported), 0)
        assert sorted(_export(second)) == sorted(exported)
        second.stop()

    with store_for_test(tmp_path / "three") as third_store:
        third = serve(third_store, upstream, tmp_path / "d3", run_worker=False)
        body = ("\n".join(with_vectors) + "\n").encode()
        report = httpx.post(f"{third.url}/mnemo/v1/import", content=body, headers=NDJSON, timeout=60).json()
        assert report["imported"] == len(exported) and report["reembedded"] == 0
        assert _blocks(third, fresh_upstream) == before
        third.stop()
