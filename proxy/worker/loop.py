"""The worker loop: take jobs, learn from them, and keep a failing job from taking others with it."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time

from redis.exceptions import RedisError

from core.errors import EmbeddingError, MnemoError
from proxy.memory.redis_store import RedisMemoryStore
from proxy.memory.traces import TraceStore
from proxy.observability import Tracing
from proxy.worker.learner import Learner, WriteReport
from proxy.worker.queue import MAX_ATTEMPTS, RECLAIM_EVERY_S, ExtractionJob, JobQueue

log = logging.getLogger("mnemo.jobs")


async def run_worker(
    queue: JobQueue,
    learner: Learner,
    stop: asyncio.Event,
    batch_size: int = 32,
    tracing: Tracing | None = None,
    traces: TraceStore | None = None,
) -> None:
    """The worker loop. Returns when ``stop`` is set; survives store outages by backing off.

    A batch that fails is retried one job at a time, so one bad job cannot take good ones with it;
    a job that keeps failing goes to the dead letters, with its reason, once Redis has handed it out
    ``MAX_ATTEMPTS`` times. Trouble with the store or the models is no job's fault: the batch stays
    queued and nothing is counted against it. What each job became goes to its call's trace."""
    traces = traces or (TraceStore.on(learner.store) if isinstance(learner.store, RedisMemoryStore) else None)
    pending_first = True
    last_sweep = time.monotonic()
    while not stop.is_set():
        if time.monotonic() - last_sweep > RECLAIM_EVERY_S:
            # Jobs a crashed worker left pending are claimed after they sit idle long enough.
            pending_first, last_sweep = True, time.monotonic()
        learner.policies.refresh()
        try:
            await queue.ensure_group()
            taken = await queue.take(batch_size, pending_first)
            pending_first = False
            if not taken:
                continue
            batch = await _readable(queue, taken)
            jobs = [job for _, _, job in batch]
            try:
                with (tracing or Tracing()).learning(
                    [j.traceparent for j in jobs if j.traceparent], len(jobs)
                ):
                    report = await learner.learn(jobs)
            except Exception as exc:  # some job of the batch is bad, or the code has a bug it meets
                if not await _the_jobs_fault(queue, exc):
                    raise
                if len(batch) == 1:
                    failed = await _failed(queue, batch[0], exc)
                else:
                    log.warning("worker: a batch of %d failed (%s); retrying each job alone", len(batch), exc)
                    failed = await _one_at_a_time(queue, learner, batch, traces)
                pending_first = bool(failed)  # the ones left pending come back first
                if failed:
                    await _sleep_unless_stopped(stop, 0.2)
                continue
            await queue.done([entry_id for entry_id, _, _ in batch])
            await queue.count_learned(report, jobs)
            await _traced(traces, learner, report)
            log.debug("learned from %d jobs: %s", len(batch), report)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # the worker outlives any outage; the jobs stay queued
            if isinstance(exc, _ENVIRONMENT_ERRORS):
                log.warning("worker: %s; retrying", exc)
            else:
                log.exception("worker: unexpected error; retrying")
            pending_first = True
            await _sleep_unless_stopped(stop, 1.0)


# Failures that may say nothing about the job: the store or a model service is away.
_ENVIRONMENT_ERRORS = (MnemoError, RedisError, OSError)


async def _the_jobs_fault(queue: JobQueue, exc: Exception) -> bool:
    """Whether a failure counts against the job. The store's errors do while the store answers (it
    refused what this job wrote); an outage, or a model service away, never does."""
    if isinstance(exc, EmbeddingError):
        return False
    if isinstance(exc, _ENVIRONMENT_ERRORS):
        return await queue.answers()
    return True


Taken = tuple[str, bytes, ExtractionJob]  # stream entry, payload, job


async def _readable(queue: JobQueue, taken: list[tuple[str, bytes]]) -> list[Taken]:
    """The jobs that parse; one that does not is dead-lettered at once: no retry will fix it."""
    batch: list[Taken] = []
    for entry_id, payload in taken:
        try:
            batch.append((entry_id, payload, ExtractionJob.from_json(payload)))
        except (ValueError, KeyError, TypeError) as exc:
            log.error("worker: job %s is unreadable and goes to the dead letters: %s", entry_id, exc)
            await queue.bury(entry_id, payload, f"unreadable job: {exc}")
    return batch


async def _traced(traces: TraceStore | None, learner: Learner, report: WriteReport) -> None:
    """Each call's trace gets the ids its job wrote, merged, superseded, quarantined and refused.
    Best effort: the records are written whether or not their calls' traces hear of it."""
    if traces is None:
        return
    for request_id, ids in report.calls.items():
        try:
            await traces.learned(request_id, ids, learner.policy.traces)
        except Exception as exc:  # a trace is never worth a job
            log.warning("worker: the trace of %s not updated: %s", request_id, exc)


async def _one_at_a_time(
    queue: JobQueue, learner: Learner, batch: list[Taken], traces: TraceStore | None = None
) -> int:
    """Learn each job of a failed batch alone; returns how many failed and stay pending."""
    failed = 0
    for taken in batch:
        try:
            report = await learner.learn([taken[2]])
        except Exception as exc:
            if not await _the_jobs_fault(queue, exc):
                raise  # the rest stay pending, unpenalised
            failed += await _failed(queue, taken, exc)
            continue
        await queue.done([taken[0]])
        await _traced(traces, learner, report)
    return failed


async def _failed(queue: JobQueue, taken: Taken, exc: Exception) -> int:
    """A job that failed alone: dead-lettered with its reason once handed out ``MAX_ATTEMPTS`` times,
    else left pending for another try (1)."""
    entry_id, payload, _ = taken
    reason = f"{type(exc).__name__}: {exc}"[:500]
    delivered = await queue.deliveries(entry_id)
    if delivered >= MAX_ATTEMPTS:
        log.error("worker: job %s failed %d times; dead-lettered: %s", entry_id, delivered, reason)
        await queue.bury(entry_id, payload, reason)
        return 0
    log.warning("worker: job %s failed (delivery %d of %d): %s", entry_id, delivered, MAX_ATTEMPTS, reason)
    return 1


async def _sleep_unless_stopped(stop: asyncio.Event, seconds: float) -> None:
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stop.wait(), timeout=seconds)
