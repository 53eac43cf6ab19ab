"""The worker under faults: a job that always fails is dead-lettered alone, on Redis' own delivery
count, and takes no good job with it.

The worker runs in process on its own embedded store, with the real extractor, embeddings and store.
The fault is injected where a bug would strike: the extractor fails on the one job that carries a
marker, as a reader that chokes on some unusual text would.
"""

from __future__ import annotations

import asyncio
import threading
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
import redis

from core.errors import StoreUnavailable
from core.scope import Scope
from extractors import Candidate, ClauseExtractor, Turn
from harness.helpers import coined_names, wait_until
from harness.processes import Store
from policies import Policy, PolicyHolder
from proxy.memory.embeddings import EmbeddingService, MiniLMOnnxEmbedder
from proxy.memory.redis_store import RedisMemoryStore
from proxy.memory.store import ListQuery
from proxy.routes.memory_relay import LEARNING_HEAD_CHARS, LEARNING_TAIL_CHARS, learning_turns
from proxy.wire.openai_chat import OPENAI_CHAT
from proxy.worker.learner import Learner
from proxy.worker.loop import run_worker
from proxy.worker.queue import DEAD_LETTERS, GROUP, MAX_ATTEMPTS, STREAM, ExtractionJob, JobQueue
from tests.conftest import store_for_test

POISON = "POISON-PILL"


class ChokingExtractor:
    """The real extractor, except that it raises on any text holding the marker."""

    name = "mnemo.clauses.v1"

    def __init__(self, real: ClauseExtractor, error: type[Exception] = IndexError) -> None:
        self.real, self.error = real, error
        self.choked = 0

    def extract(self, turns: list[Turn]) -> list[Candidate]:
        return self.extract_many([turns])[0]

    def extract_many(self, batches: list[list[Turn]]) -> list[list[Candidate]]:
        if any(POISON in turn.text for turns in batches for turn in turns):
            self.choked += 1
            raise self.error(f"a reader choked on {POISON}")
        return self.real.extract_many(batches)


class WorkerThread:
    """run_worker on its own event loop, until stopped."""

    def __init__(self, url: str, extractor: ChokingExtractor, embedder: MiniLMOnnxEmbedder) -> None:
        self.url, self.extractor, self.embedder = url, extractor, embedder
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._thread = threading.Thread(target=asyncio.run, args=(self._main(),), daemon=True)

    async def _main(self) -> None:
        self._loop, self._stop = asyncio.get_running_loop(), asyncio.Event()
        store = RedisMemoryStore(self.url, self.embedder.model_id, self.embedder.dims, timeout_s=5)
        queue = JobQueue(self.url)
        try:
            await store.open()
            learner = Learner(
                self.extractor, EmbeddingService(self.embedder), store, PolicyHolder.from_file(None)
            )
            await run_worker(queue, learner, self._stop)
        finally:
            await queue.close()
            await store.close()

    def __enter__(self) -> WorkerThread:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._loop is not None and self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(timeout=30)
        assert not self._thread.is_alive()


@pytest.fixture(scope="module")
def own_store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    with store_for_test(tmp_path_factory.mktemp("faults")) as store:
        yield store


@pytest.fixture(scope="module")
def embedder() -> MiniLMOnnxEmbedder:
    return MiniLMOnnxEmbedder()


def _enqueue(url: str, jobs: list[ExtractionJob]) -> None:
    async def put() -> None:
        queue = JobQueue(url)
        try:
            for job in jobs:
                await queue.enqueue(job)
        finally:
            await queue.close()

    asyncio.run(put())


def _job(project: str, text: str) -> ExtractionJob:
    scope = Scope("local", project=project, user="u")
    return ExtractionJob(uuid.uuid4().hex, scope, [Turn("user", text, 0)], datetime.now(UTC), "test")


def _learned(url: str, embedder: MiniLMOnnxEmbedder, project: str) -> list[str]:
    async def read() -> list[str]:
        store = RedisMemoryStore(url, embedder.model_id, embedder.dims, timeout_s=5)
        try:
            await store.open()
            page = await store.list_memories(ListQuery(org="local", project=project, limit=200))
            return [m.text for m in page.memories]
        finally:
            await store.close()

    return asyncio.run(read())


def _dead(client: redis.Redis, entries_before: int) -> list[dict[bytes, bytes]]:
    entries: Any = client.xrange(DEAD_LETTERS)
    return [fields for _, fields in entries][entries_before:]


def _deliveries(client: redis.Redis) -> int:
    pending = client.xpending_range(STREAM, GROUP, min="-", max="+", count=10)
    return max((int(p["times_delivered"]) for p in pending), default=0)


# a bug the job meets, and the store refusing what the job writes while it still answers
@pytest.mark.parametrize("error", [IndexError, StoreUnavailable])
def test_one_poison_job_among_good_ones_is_dead_lettered_alone(
    own_store: Store, extractor: ClauseExtractor, embedder: MiniLMOnnxEmbedder, error: type[Exception]
) -> None:
    client = redis.Redis.from_url(own_store.url)
    dead_before = client.xlen(DEAD_LETTERS)
    run = uuid.uuid4().hex[:8]
    words = coined_names(extractor, 31, lambda w: f"We deploy with {w}deploy to production.")
    # a project each: one project's new deploy tool would supersede the one before
    jobs = [_job(f"poison-{run}-{word}", f"We deploy with {word}deploy to production.") for word in words]
    jobs.insert(12, _job(f"poison-{run}", f"We deploy with {POISON} to production."))  # one batch of 32
    _enqueue(own_store.url, jobs)
    choking = ChokingExtractor(extractor, error)
    with WorkerThread(own_store.url, choking, embedder):
        wait_until(lambda: client.xlen(STREAM) == 0, "every job is learned or dead-lettered", timeout_s=120)
    learned = [
        w for w in words if any(w in text for text in _learned(own_store.url, embedder, f"poison-{run}-{w}"))
    ]
    assert learned == words
    (dead,) = _dead(client, dead_before)
    assert error.__name__.encode() in dead[b"reason"] and POISON.encode() in dead[b"reason"]
    # tried in its batch once, then alone on each of its MAX_ATTEMPTS deliveries
    assert choking.choked == MAX_ATTEMPTS + 1


def test_the_delivery_count_survives_a_restart_of_the_worker(
    own_store: Store, extractor: ClauseExtractor, embedder: MiniLMOnnxEmbedder
) -> None:
    client = redis.Redis.from_url(own_store.url)
    dead_before = client.xlen(DEAD_LETTERS)
    _enqueue(own_store.url, [_job(f"restart-{uuid.uuid4().hex[:8]}", f"We use {POISON} for builds.")])
    first = ChokingExtractor(extractor)
    with WorkerThread(own_store.url, first, embedder):
        wait_until(lambda: _deliveries(client) >= 2, "the job was handed out twice", timeout_s=120)
    delivered = _deliveries(client)  # as Redis counted them when the first worker stopped
    assert 2 <= delivered < MAX_ATTEMPTS and client.xlen(DEAD_LETTERS) == dead_before
    second = ChokingExtractor(extractor)
    with WorkerThread(own_store.url, second, embedder):
        wait_until(lambda: client.xlen(STREAM) == 0, "the job is dead-lettered", timeout_s=120)
    assert second.choked == MAX_ATTEMPTS - delivered  # the count went on where it stopped
    assert len(_dead(client, dead_before)) == 1


def test_an_unreadable_job_is_dead_lettered_at_once(
    own_store: Store, extractor: ClauseExtractor, embedder: MiniLMOnnxEmbedder
) -> None:
    client = redis.Redis.from_url(own_store.url)
    dead_before = client.xlen(DEAD_LETTERS)
    job = _job("unreadable", "We use pnpm.").to_json().replace('"text": "We use pnpm."', '"text": 42')
    ref = f"mnemo:job:{uuid.uuid4().hex}"
    client.set(ref, job)
    client.xadd(STREAM, {"ref": ref})
    choking = ChokingExtractor(extractor)
    with WorkerThread(own_store.url, choking, embedder):
        wait_until(lambda: client.xlen(STREAM) == 0, "the job is dead-lettered", timeout_s=120)
    (dead,) = _dead(client, dead_before)
    assert dead[b"reason"].startswith(b"unreadable job:")


def test_a_message_past_the_parsers_limit_is_read_by_its_head_and_tail(extractor: ClauseExtractor) -> None:
    """spaCy refuses texts over a million characters: such a message would fail on every delivery."""
    paste = "lorem ipsum dolor sit amet " * 50_000  # 1.35 MB between what the user says
    text = f"I'm a nurse in Leeds.\n\n{paste}\n\nWe use pnpm for everything."
    turns, _ = learning_turns(OPENAI_CHAT, {"messages": [{"role": "user", "content": text}]}, "", Policy())
    (turn,) = turns
    assert len(turn.text) <= LEARNING_HEAD_CHARS + LEARNING_TAIL_CHARS
    assert turn.text.startswith("I'm a nurse") and turn.text.endswith("We use pnpm for everything.")
    found = {c.value for c in extractor.extract(turns)}
    assert "pnpm" in found
