"""Resources with a lifetime: opened when the app starts, closed when it stops, handed out by DI."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Coroutine
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field

import httpx
from litestar import Litestar

from core.errors import StoreUnavailable
from extractors import Extractor, build_extractor
from extractors.vocabulary import Vocabulary, load_vocabulary
from policies import Policy, PolicyHolder
from policies.secrets import REDACTED
from proxy.forget import Eraser
from proxy.memory.embeddings import Embedder, EmbeddingService, build_embedder
from proxy.memory.erasure import DiskErasure
from proxy.memory.erasure_bus import ErasureBus
from proxy.memory.redis_store import RedisMemoryStore
from proxy.memory.supervisor import StoreSupervisor
from proxy.memory.traces import TraceStore
from proxy.metrics import Metrics
from proxy.observability import Tracing
from proxy.settings import RecallSettings, Settings
from proxy.worker.held import (
    HeldJobs,
    QueueAndHeld,
    enqueue_or_hold,
    flush,
    keep_flushing,
    spill,
    take_spilled,
)
from proxy.worker.learner import Learner
from proxy.worker.loop import run_worker
from proxy.worker.queue import ExtractionJob, JobQueue

log = logging.getLogger("mnemo")

_STORE_RETRY_S = 5.0


@dataclass(slots=True)
class Services:
    """What handlers use. One per app; built in the lifespan, never at import."""

    settings: Settings
    http: httpx.AsyncClient
    store: RedisMemoryStore
    embeddings: EmbeddingService
    queue: JobQueue
    held: HeldJobs  # jobs waiting in memory for the store to come back
    policies: PolicyHolder
    vocabulary: Vocabulary  # products and their slots, for reading "forget that we use yarn"
    disk: DiskErasure | None = None  # rewrites the store's files after deletions
    erasures: ErasureBus | None = None  # tells the other processes what was deleted
    embedded: StoreSupervisor | None = None  # the embedded store's keeper, when Mnemo runs one
    extractor: Extractor | None = None  # the in-process worker's spaCy, reused by MCP remember
    tracing: Tracing = field(default_factory=Tracing)  # OpenTelemetry, when OTEL_* asks for it
    metrics: Metrics = field(default_factory=Metrics)
    store_ready: bool = False
    _last_open_attempt: float = field(default=0.0)
    _background: set[asyncio.Task[None]] = field(default_factory=set)
    traces: TraceStore = field(init=False)  # what each relayed call was given (GET /mnemo/v1/requests)

    def __post_init__(self) -> None:
        self.traces = TraceStore.on(self.store)

    def spawn(self, work: Coroutine[object, object, None]) -> None:
        """Run ``work`` after the response, even if the client has gone; kept until it finishes."""
        task = asyncio.get_running_loop().create_task(work)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def drain(self, timeout_s: float = 5.0) -> None:
        if self._background:
            await asyncio.wait(self._background, timeout=timeout_s)

    @property
    def policy(self) -> Policy:
        return self.policies.policy

    @property
    def eraser(self) -> Eraser:
        return Eraser(
            self.store,
            QueueAndHeld(self.queue, self.held),
            self.embeddings,
            self.disk,
            self.erasures,
            self.traces,
        )

    def upstream_deadline(self) -> float:
        """Event-loop time by which an upstream answer must be complete."""
        return asyncio.get_running_loop().time() + self.settings.upstream_total_timeout_s

    def recall_settings(self) -> RecallSettings:
        """The policy's recall budget, with the server's own timeout."""
        budget = self.policy.recall
        return RecallSettings(
            timeout_s=self.settings.recall_timeout_s,
            max_memories=budget.max_memories,
            max_tokens=budget.max_tokens,
            min_score=budget.min_score,
            min_similarity=budget.min_similarity,
            standing_max_memories=budget.standing_max_memories,
            standing_max_tokens=budget.standing_max_tokens,
        )

    async def ensure_store(self, at_once: bool = False) -> bool:
        """Open the index if an earlier attempt failed (store down at start). The relay tries at most
        every few seconds, since it fails open anyway; ``at_once`` tries now, for callers that have
        nothing to give without the store (an MCP tool call)."""
        if self.store_ready:
            return True
        now = time.monotonic()
        if not at_once and now - self._last_open_attempt < _STORE_RETRY_S:
            return False
        self._last_open_attempt = now
        try:
            await self.store.open()
        except StoreUnavailable as exc:
            log.warning("memory store unavailable: %s", exc)
            return False
        self.store_ready = True
        return True

    async def enqueue(self, job: ExtractionJob) -> None:
        """Queue learning for after the reply, or hold it while the store is away; a failure here
        never reaches the user's call."""
        self.metrics.secrets_cut += sum(turn.text.count(REDACTED) for turn in job.turns)
        await enqueue_or_hold(self.queue, self.held, job)


def upstream_client(settings: Settings) -> httpx.AsyncClient:
    timeout = httpx.Timeout(
        connect=settings.upstream_connect_timeout_s,
        read=settings.upstream_read_timeout_s,
        write=settings.upstream_read_timeout_s,  # a stalled upload counts like a stalled answer
        pool=settings.upstream_connect_timeout_s,
    )
    limits = httpx.Limits(max_connections=512, max_keepalive_connections=128)
    return httpx.AsyncClient(timeout=timeout, limits=limits, follow_redirects=False)


@dataclass(frozen=True, slots=True)
class Models:
    """The slow-to-load parts: built in a thread, possibly before the app exists."""

    embedder: Embedder
    extractor: Extractor | None


def load_models(settings: Settings) -> Models:
    """Blocking: load the embedding model and, if this process runs a worker, spaCy."""
    embedder = build_embedder(settings.embedding_url, settings.embedding_model, settings.embedding_api_key)
    return Models(embedder=embedder, extractor=build_extractor() if settings.run_worker else None)


@asynccontextmanager
async def services_lifespan(app: Litestar) -> AsyncIterator[None]:
    settings: Settings = app.state.settings
    if settings.redis_url is None:
        raise StoreUnavailable("no store URL: `mnemo serve` starts the embedded store and passes its URL")
    models: Models | None = app.state.get("models")
    if models is None:
        models = await asyncio.to_thread(load_models, settings)
    async with AsyncExitStack() as stack:
        tracing = Tracing.from_env("mnemo")
        stack.callback(tracing.shutdown)
        http = upstream_client(settings)
        stack.push_async_callback(http.aclose)
        embeddings = EmbeddingService(models.embedder)
        store = RedisMemoryStore(
            settings.redis_url, models.embedder.model_id, models.embedder.dims, settings.store_timeout_s
        )
        stack.push_async_callback(store.close)
        queue, held = _queue_and_held(stack, settings, settings.redis_url)
        disk = DiskErasure(settings.redis_url)
        stack.push_async_callback(disk.close)
        _in_background(stack, disk.run(), "mnemo-disk-erasure")
        erasures = ErasureBus(settings.redis_url, settings.store_timeout_s)
        stack.push_async_callback(erasures.close)
        _in_background(stack, erasures.listen(embeddings, held), "mnemo-erasure-bus")
        services = Services(
            settings=settings,
            http=http,
            store=store,
            embeddings=embeddings,
            queue=queue,
            held=held,
            policies=PolicyHolder.from_file(settings.policy_file),
            vocabulary=load_vocabulary(),
            disk=disk,
            erasures=erasures,
            embedded=app.state.get("embedded"),
            extractor=models.extractor,
            tracing=tracing,
        )
        await services.ensure_store()  # a store that is down now is retried later; a model mismatch is fatal
        if models.extractor is not None:
            learner = Learner(models.extractor, embeddings, store, services.policies)
            stop = asyncio.Event()
            worker = asyncio.create_task(
                run_worker(queue, learner, stop, tracing=tracing), name="mnemo-worker"
            )
            stack.push_async_callback(_stop_worker, stop, worker)
        if settings.policy_file is not None:
            _in_background(stack, _watch_policy(services.policies), "mnemo-policy-reload")
        app.state.services = services
        stack.push_async_callback(services.drain)
        log.info("mnemo ready: upstream %s, embeddings %s", settings.upstream_url, models.embedder.model_id)
        yield


def _queue_and_held(stack: AsyncExitStack, settings: Settings, redis_url: str) -> tuple[JobQueue, HeldJobs]:
    """The job queue, and the jobs held while the store is away: those a stop during an outage kept
    on disk are taken back now, written as soon as the store answers, and kept again on the way out."""
    queue = JobQueue(redis_url)
    stack.push_async_callback(queue.close)
    held = HeldJobs(settings.held_jobs_max, settings.held_jobs_max_bytes)
    take_spilled(held, settings.data_dir)
    stack.push_async_callback(_write_or_spill, queue, held, settings)
    _in_background(stack, keep_flushing(queue, held), "mnemo-held-jobs")
    return queue, held


def _in_background(stack: AsyncExitStack, work: Coroutine[object, object, None], name: str) -> None:
    """A task for the app's life, cancelled on the way out."""
    stack.push_async_callback(_cancel, asyncio.create_task(work, name=name))


async def _watch_policy(policies: PolicyHolder, every_s: float = 1.0) -> None:
    """Reload the policy file when it changes; a bad edit is refused and the last good one stays."""
    while True:
        await asyncio.sleep(every_s)
        policies.refresh()


async def _write_or_spill(queue: JobQueue, held: HeldJobs, settings: Settings) -> None:
    """On the way out: held jobs go to the queue if the store is back, else to a file for next time."""
    if len(held):
        await flush(queue, held)
    spill(held, settings.data_dir)


async def _cancel(task: asyncio.Task[None]) -> None:
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task


async def _stop_worker(stop: asyncio.Event, worker: asyncio.Task[None]) -> None:
    stop.set()
    try:
        await asyncio.wait_for(worker, timeout=10)
    except TimeoutError:
        worker.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await worker
