"""The erasure broadcast on a real store: a deletion in one process drops the cached queries and held
jobs of every other; a process that may have missed a broadcast clears its whole query cache.

Each bus stands for one process (its own connections and origin); the caches are the real ones,
with the real embedding model. The store is a server of this module's own, so no other test's
subscribers hear these broadcasts, and it can be frozen.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import time
from collections.abc import AsyncIterator, Callable, Iterator
from datetime import UTC, datetime

import pytest
import redis

from core.scope import Scope
from extractors import Turn
from harness.processes import ExternalStore
from proxy.memory.embeddings import EmbeddingService, MiniLMOnnxEmbedder
from proxy.memory.erasure_bus import CHANNEL, ErasureBus
from proxy.worker.held import HeldJobs
from proxy.worker.queue import ExtractionJob

pytestmark = [pytest.mark.integration, pytest.mark.store_contract]

FACT = "We deploy with zqvrtbeldeploy to production."
QUERY = f"{FACT} What do we deploy with?"
OTHER = "How do I centre a div?"


@pytest.fixture(scope="module")
def own_store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ExternalStore]:
    with ExternalStore(tmp_path_factory.mktemp("erasure-bus")) as store:
        yield store


@pytest.fixture(scope="module")
def embedder() -> MiniLMOnnxEmbedder:
    return MiniLMOnnxEmbedder()


async def _until(condition: Callable[[], bool], what: str, timeout_s: float = 20.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for: {what}")
        await asyncio.sleep(0.02)


@contextlib.asynccontextmanager
async def _listening(
    bus: ErasureBus, cache: EmbeddingService, held: HeldJobs | None = None
) -> AsyncIterator[None]:
    task = asyncio.create_task(bus.listen(cache, held))
    try:
        await _until(lambda: bus.subscribed, "the bus subscribed")
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        await bus.close()


async def _cached(cache: EmbeddingService, *texts: str) -> None:
    for text in texts:
        await cache.embed_one(text)


def _append_only(store: ExternalStore) -> str:
    return "".join(p.read_text(errors="replace") for p in (store.data_dir / "appendonlydir").glob("*.aof"))


def _job(text: str) -> str:
    turns = [Turn("user", text, 0)]
    return ExtractionJob("r", Scope("local", project="p"), turns, datetime.now(UTC), "test").to_json()


def test_a_deletion_reaches_the_other_processes_caches_and_held_jobs(
    own_store: ExternalStore, embedder: MiniLMOnnxEmbedder
) -> None:
    async def scenario() -> None:
        here, there = EmbeddingService(embedder), EmbeddingService(embedder)
        held_there = HeldJobs(max_jobs=10, max_bytes=1 << 20)
        held_there.hold(_job(FACT))
        held_there.hold(_job("We use pnpm."))
        deleting, other = ErasureBus(own_store.url), ErasureBus(own_store.url)
        async with _listening(deleting, here), _listening(other, there, held_there):
            await _cached(here, QUERY, OTHER)
            await _cached(there, QUERY, OTHER)
            await deleting.publish([FACT])
            await _until(lambda: other.received == 1, "the other process heard the erasure")
            assert not there.holds(QUERY) and there.holds(OTHER)
            assert (other.queries_dropped, other.jobs_dropped, len(held_there)) == (1, 1, 1)
            # its own broadcast is not applied twice (the Eraser already dropped what it holds): once a
            # later broadcast of the other has arrived, the first was handled too (one connection, in order)
            await other.publish(["an unrelated deletion"])
            await _until(lambda: deleting.received >= 1, "the deleting process heard the other")
            assert deleting.received == 1 and here.holds(QUERY)
        # the broadcast left no copy of the text in the store's files: a write made after it is in the
        # append-only file, the broadcast is not
        own_store.client().set("erasure-bus-marker", "after the broadcast")
        await _until(lambda: "erasure-bus-marker" in _append_only(own_store), "the marker written")
        assert "zqvrtbeldeploy" not in _append_only(own_store)

    asyncio.run(scenario())


def test_an_unreadable_broadcast_clears_the_cache(
    own_store: ExternalStore, embedder: MiniLMOnnxEmbedder
) -> None:
    async def scenario() -> None:
        cache = EmbeddingService(embedder)
        bus = ErasureBus(own_store.url)
        async with _listening(bus, cache):
            await _cached(cache, QUERY, OTHER)
            own_store.client().publish(CHANNEL, json.dumps({"v": 1, "fragments": "not a list"}))
            await _until(lambda: not cache.holds(OTHER), "the cache cleared")
            assert bus.received == 0

    asyncio.run(scenario())


def test_a_dropped_subscription_clears_the_cache_and_listens_again(
    own_store: ExternalStore, embedder: MiniLMOnnxEmbedder
) -> None:
    async def scenario() -> None:
        cache = EmbeddingService(embedder)
        bus, sender = ErasureBus(own_store.url), ErasureBus(own_store.url)
        async with _listening(bus, cache):
            await _cached(cache, QUERY, OTHER)
            killed = own_store.client().client_kill_filter(_type="pubsub")  # as a store restart would
            assert killed >= 1
            await _until(lambda: bus.gaps == 1 and bus.subscribed, "resubscribed after the gap")
            assert not cache.holds(QUERY) and not cache.holds(OTHER)  # anything may have been missed
            await _cached(cache, QUERY)
            await sender.publish([FACT])
            await _until(lambda: bus.received == 1, "the erasure heard on the new subscription")
            assert not cache.holds(QUERY)
        await sender.close()

    asyncio.run(scenario())


def test_a_store_that_stops_answering_is_a_gap_and_a_refused_broadcast_is_sent_later(
    own_store: ExternalStore, embedder: MiniLMOnnxEmbedder
) -> None:
    async def scenario() -> None:
        assert own_store.pid is not None
        cache, sender_cache = EmbeddingService(embedder), EmbeddingService(embedder)
        bus = ErasureBus(own_store.url, ping_every_s=0.2, stale_after_s=1.0, tick_s=0.1)
        sender = ErasureBus(own_store.url, timeout_s=0.3)  # its listener starts once the store is back
        async with _listening(bus, cache):
            await _cached(cache, QUERY, OTHER)
            os.kill(own_store.pid, signal.SIGSTOP)  # connections stay open; nothing answers
            try:
                await _until(lambda: not bus.subscribed, "the silent store noticed", timeout_s=10)
                await sender.publish([FACT])  # refused (timeout): kept for later
            finally:
                os.kill(own_store.pid, signal.SIGCONT)
            await _until(lambda: bus.subscribed and bus.gaps == 1, "resubscribed once the store answers")
            assert not cache.holds(OTHER)
            await _cached(cache, QUERY, OTHER)
            async with _listening(sender, sender_cache):
                await _until(lambda: bus.received == 1, "the kept broadcast delivered")
            assert not cache.holds(QUERY) and cache.holds(OTHER)

    asyncio.run(scenario())
    assert redis.Redis.from_url(own_store.url).ping()
