"""Learning off the hot path: the job queue and the worker (extract -> decide -> write).

Jobs go through a Redis Stream with a consumer group, so any number of workers share them
and a job is acknowledged only after its records are written: a worker that crashes leaves
its jobs pending, and the next worker claims them.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import socket
import time
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

import redis.asyncio as aioredis
from redis.exceptions import RedisError, ResponseError

from core.errors import EmbeddingError, MnemoError, StoreUnavailable
from core.model import Evidence, Kind, Memory, Source, Status, new_id, slot_key, utcnow
from core.scope import SCOPE_LEVELS, Scope, level_of
from extractors import SUBJECT_MARK, Candidate, Extractor, Turn
from extractors.signals import detect_signals, load_signal_patterns
from policies import (
    Action,
    Decision,
    Policy,
    PolicyHolder,
    decide,
    fingerprint,
    reconcile,
    retention,
    subject_label,
    write_scope,
)
from proxy.memory.embeddings import EmbeddingService, Vectors
from proxy.memory.store import ListQuery, MemoryStore
from proxy.observability import Tracing

log = logging.getLogger("mnemo.jobs")

STREAM = "mnemo:jobs"
DEAD_LETTERS = "mnemo:jobs:dead"
LEARNING_STATS = "mnemo:stats:learning"  # counters every worker adds to, every /metrics reads
# A job's payload (its message text) lives in a key of its own; the stream carries only its name.
# A stream keeps the bytes of a deleted entry until its whole node goes, so text put in the stream
# itself would survive a deletion in memory and in every rewrite of the append-only file.
PAYLOAD_PREFIX = "mnemo:job:"
DEAD_LETTER_TTL_S = 30 * 24 * 3600
GROUP = "mnemo-workers"
MAX_ATTEMPTS = 5
RECLAIM_IDLE_MS = 30_000
RECLAIM_EVERY_S = 15.0
JOB_SCHEMA_VERSION = 1


@dataclass(frozen=True, slots=True)
class ExtractionJob:
    """Everything the worker needs about one exchange; no request object crosses the queue."""

    request_id: str
    scope: Scope
    turns: list[Turn]
    observed_at: datetime
    api: str
    client: str | None = None
    model: str | None = None
    message_hashes: dict[int, str] = field(default_factory=dict)
    writable: tuple[str, ...] = SCOPE_LEVELS  # levels its principal may write to
    traceparent: str | None = None  # the relayed call's span, when tracing: learning links to it

    def source(self, turn: Turn, span: str) -> Source:
        """Where a record drawn from ``turn`` came from, down to the quoted span."""
        return Source(
            role=turn.role,
            request_id=self.request_id,
            message_index=turn.index,
            message_sha256=self.message_hashes.get(turn.index, ""),
            span=span,
            client=self.client,
            model=self.model,
        )

    def to_json(self) -> str:
        return json.dumps(
            {
                "v": JOB_SCHEMA_VERSION,
                "request_id": self.request_id,
                "scope": self.scope.as_dict(),
                "turns": [asdict(t) for t in self.turns],
                "observed_at": self.observed_at.timestamp(),
                "api": self.api,
                "client": self.client,
                "model": self.model,
                "message_hashes": {str(k): v for k, v in self.message_hashes.items()},
                "writable": list(self.writable),
                "traceparent": self.traceparent,
            },
            ensure_ascii=False,
        )

    @classmethod
    def from_json(cls, raw: str | bytes) -> ExtractionJob:
        """The job, or ValueError/KeyError/TypeError for a payload that is not one (never retried)."""
        data = json.loads(raw)
        turns = [Turn(**t) for t in data["turns"]]
        for turn in turns:
            if (
                not isinstance(turn.text, str)
                or not isinstance(turn.role, str)
                or not isinstance(turn.index, int)
            ):
                raise TypeError(f"turn {turn.index!r}: role, text and index must be str, str and int")
        return cls(
            request_id=data["request_id"],
            scope=Scope(**data["scope"]),
            turns=turns,
            observed_at=datetime.fromtimestamp(data["observed_at"]).astimezone(),
            api=data["api"],
            client=data.get("client"),
            model=data.get("model"),
            message_hashes={int(k): v for k, v in data.get("message_hashes", {}).items()},
            writable=tuple(data.get("writable", SCOPE_LEVELS)),
            traceparent=data.get("traceparent") if isinstance(data.get("traceparent"), str) else None,
        )


class JobQueue:
    """The Redis Stream of extraction jobs. Blocking reads use their own connection pool."""

    def __init__(self, url: str, timeout_s: float = 0.5, block_ms: int = 1000) -> None:
        self._client = aioredis.Redis.from_url(
            url, socket_timeout=timeout_s, socket_connect_timeout=timeout_s
        )
        self._reader = aioredis.Redis.from_url(
            url, socket_timeout=block_ms / 1000 + 5, socket_connect_timeout=timeout_s
        )
        self._block_ms = block_ms
        self.consumer = f"{socket.gethostname()}-{os.getpid()}"
        self._refs: dict[str, str] = {}  # stream entry -> its payload key, for the jobs taken

    async def close(self) -> None:
        await self._client.aclose()
        await self._reader.aclose()

    async def enqueue(self, job: ExtractionJob) -> str:
        return await self.enqueue_raw(job.to_json())

    async def enqueue_raw(self, payload: str) -> str:
        """Queue a job already serialized (one held while the store was away)."""
        ref = f"{PAYLOAD_PREFIX}{new_id()}"
        try:
            async with self._client.pipeline(transaction=True) as pipe:
                pipe.set(ref, payload)
                pipe.xadd(STREAM, {"ref": ref})
                _, entry_id = await pipe.execute()
        except (RedisError, OSError) as exc:
            raise StoreUnavailable(f"could not queue the extraction job: {exc}") from exc
        return _text(entry_id)

    async def ensure_group(self) -> None:
        try:
            await self._reader.xgroup_create(STREAM, GROUP, id="0", mkstream=True)
        except ResponseError as exc:
            if "BUSYGROUP" not in str(exc):
                raise

    async def take(self, count: int, pending_first: bool) -> list[tuple[str, bytes]]:
        """Own pending entries first (a restart after a crash), then idle ones of dead workers, then new."""
        if pending_first:
            own = await self._read("0", count, block=False)
            if own:
                return own
            claimed = await self._reader.xautoclaim(
                STREAM, GROUP, self.consumer, min_idle_time=RECLAIM_IDLE_MS, count=count
            )
            entries = await self._payloads([(_text(i), f) for i, f in claimed[1] if f])
            if entries:
                return entries
        return await self._read(">", count, block=True)

    async def _read(self, start: str, count: int, block: bool) -> list[tuple[str, bytes]]:
        reply: Any = await self._reader.xreadgroup(
            GROUP, self.consumer, {STREAM: start}, count=count, block=self._block_ms if block else None
        )
        return await self._payloads([(_text(i), f) for _stream, items in reply or [] for i, f in items if f])

    async def _payloads(self, items: list[tuple[str, dict[bytes, bytes]]]) -> list[tuple[str, bytes]]:
        """The jobs of stream entries: their payload keys read; an entry whose payload was purged
        (a deletion took it) is finished here."""
        entries: list[tuple[str, bytes]] = []
        gone: list[str] = []
        refs = [(i, _text(f[b"ref"])) for i, f in items if b"ref" in f]
        values = await self._reader.mget([ref for _, ref in refs]) if refs else []
        for (entry_id, ref), value in zip(refs, values, strict=True):
            self._refs[entry_id] = ref
            if value is None:
                gone.append(entry_id)
            else:
                entries.append((entry_id, value if isinstance(value, bytes) else str(value).encode()))
        entries += [(i, f[b"job"]) for i, f in items if b"job" in f]  # queued by an older version
        if gone:
            await self.done(gone)
        return entries

    async def done(self, entry_ids: list[str], keep_payload: bool = False) -> None:
        # Acknowledge and delete, payload too: the queue holds message text, which must not outlive its use.
        if entry_ids:
            refs = [self._refs.pop(i) for i in entry_ids if i in self._refs]
            async with self._reader.pipeline(transaction=True) as pipe:
                pipe.xack(STREAM, GROUP, *entry_ids)
                pipe.xdel(STREAM, *entry_ids)
                if refs and not keep_payload:
                    pipe.delete(*refs)
                await pipe.execute()

    async def answers(self) -> bool:
        """Whether the store is there at all (to tell an outage from a job the store refuses)."""
        try:
            return bool(await self._reader.ping())
        except (RedisError, OSError):
            return False

    async def deliveries(self, entry_id: str) -> int:
        """How often the stream has handed this entry out, to any worker (Redis keeps the count, so
        it survives restarts and is shared by every worker)."""
        pending: Any = await self._reader.xpending_range(STREAM, GROUP, min=entry_id, max=entry_id, count=1)
        return int(pending[0]["times_delivered"]) if pending else 0

    async def count_learned(self, report: WriteReport, jobs: list[ExtractionJob]) -> None:
        """Add a batch's outcome to the counters every process's /metrics shows (a Redis hash, so
        workers in other processes count too). Best effort: a lost count is not a lost job."""
        now = time.time()
        lags_ms = [max(0.0, now - job.observed_at.timestamp()) * 1000 for job in jobs]
        counts = {
            "jobs": len(jobs),
            "written": report.written,
            "merged": report.merged,
            "superseded": report.superseded,
            "refused": report.refused,
            "quarantined": report.quarantined,
            "lag_ms_sum": round(sum(lags_ms)),
        }
        with contextlib.suppress(RedisError, OSError):
            async with self._client.pipeline(transaction=False) as pipe:
                for name, value in counts.items():
                    if value:
                        pipe.hincrby(LEARNING_STATS, name, int(value))
                await pipe.execute()

    async def learning_stats(self) -> tuple[dict[str, int], float | None]:
        """The shared learning counters, and how long the oldest waiting job has waited (s)."""
        try:
            async with self._client.pipeline(transaction=False) as pipe:
                pipe.hgetall(LEARNING_STATS)
                pipe.xrange(STREAM, count=1)
                raw, oldest = await pipe.execute()
        except (RedisError, OSError) as exc:
            raise StoreUnavailable(f"could not read the learning counters: {exc}") from exc
        counts = {_text(k): int(v) for k, v in (raw or {}).items()}
        waited = None
        if oldest:
            queued_ms = int(_text(oldest[0][0]).split("-")[0])
            waited = max(0.0, time.time() - queued_ms / 1000)
        return counts, waited

    async def lengths(self) -> tuple[int, int]:
        """Jobs waiting (or being worked on) and dead-lettered."""
        try:
            async with self._client.pipeline(transaction=False) as pipe:
                pipe.xlen(STREAM)
                pipe.xlen(DEAD_LETTERS)
                waiting, dead = await pipe.execute()
        except (RedisError, OSError) as exc:
            raise StoreUnavailable(f"could not read the job queue: {exc}") from exc
        return int(waiting), int(dead)

    async def purge(self, fragments: list[str]) -> int:
        """Drop queued and dead-lettered jobs whose messages contain any of ``fragments`` (case
        folded): a deleted memory must not come back from an exchange still waiting to be learned
        from. The whole job goes; the queue is short, so this reads it all."""
        needles = [f.casefold() for f in fragments if f.strip()]
        if not needles:
            return 0
        dropped = 0
        try:
            for stream in (STREAM, DEAD_LETTERS):
                doomed: list[str] = []
                doomed_refs: list[str] = []
                start = "-"
                while True:
                    entries: Any = await self._client.xrange(stream, min=start, count=500)
                    refs = [_text(f.get(b"ref", b"")) for _, f in entries or []]
                    held = await self._client.mget([r for r in refs if r]) if any(refs) else []
                    payloads = iter(held)
                    for (entry_id, fields), ref in zip(entries or [], refs, strict=True):
                        raw = next(payloads) if ref else (fields or {}).get(b"job", b"")
                        if mentions_any(_text(raw or b""), needles):
                            doomed.append(_text(entry_id))
                            if ref:
                                doomed_refs.append(ref)
                    if len(entries or []) < 500:
                        break
                    start = "(" + _text(entries[-1][0])
                if doomed:
                    async with self._client.pipeline(transaction=True) as pipe:
                        if stream == STREAM:
                            pipe.xack(STREAM, GROUP, *doomed)
                        pipe.xdel(stream, *doomed)
                        if doomed_refs:
                            pipe.delete(*doomed_refs)
                        await pipe.execute()
                dropped += len(doomed)
        except (RedisError, OSError) as exc:
            raise StoreUnavailable(f"could not purge the job queue: {exc}") from exc
        return dropped

    async def bury(self, entry_id: str, payload: bytes, reason: str) -> None:
        """A job that failed too often: kept, by its payload key, in the dead letters for review."""
        ref = self._refs.get(entry_id)
        if ref is None:  # an entry of an older version carried its payload
            ref = f"{PAYLOAD_PREFIX}{new_id()}"
            await self._reader.set(ref, payload)
        await self._reader.expire(ref, DEAD_LETTER_TTL_S)  # the text a dead letter keeps goes in time
        await self._reader.xadd(DEAD_LETTERS, {"ref": ref, "reason": reason}, maxlen=10_000)
        await self.done([entry_id], keep_payload=True)


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def mentions_any(payload: str, needles: list[str]) -> bool:
    """Whether a job's payload holds any of ``needles`` (case folded); the JSON escapes non-ASCII,
    so the decoded turns are compared too."""
    folded = payload.casefold()
    if any(n in folded for n in needles):
        return True
    try:
        turns = json.loads(payload).get("turns", [])
        text = "\n".join(str(turn.get("text", "")) for turn in turns).casefold()
    except (ValueError, AttributeError):
        return False
    return any(n in text for n in needles)


@dataclass(slots=True)
class WriteReport:
    written: int = 0
    merged: int = 0
    superseded: int = 0
    refused: int = 0
    quarantined: int = 0


class Learner:
    """extract -> decide -> write, for a batch of jobs. Model work runs in a thread."""

    def __init__(
        self, extractor: Extractor, embeddings: EmbeddingService, store: MemoryStore, policies: PolicyHolder
    ) -> None:
        self.extractor = extractor
        self.embeddings = embeddings
        self.store = store
        self.policies = policies
        self.signal_patterns = load_signal_patterns()

    @property
    def policy(self) -> Policy:
        """The policy in force now: a reloaded file applies from the next batch on."""
        return self.policies.policy

    async def learn(self, jobs: list[ExtractionJob]) -> WriteReport:
        found = await asyncio.to_thread(self.extractor.extract_many, [job.turns for job in jobs])
        report = WriteReport()
        decided: list[tuple[ExtractionJob, Decision]] = []
        for job, candidates in zip(jobs, found, strict=True):
            kept, refused = decide(
                candidates, job.scope, self.policy, now=job.observed_at, writable=frozenset(job.writable)
            )
            for refusal in refused:
                log.info("not stored (%s): rule %s", refusal.reason, refusal.candidate.rule_id)
            report.refused += len(refused)
            decided.extend((job, decision) for decision in kept)
        if decided:
            memories = [to_memory(job, decision, self.embeddings.model_id) for job, decision in decided]
            vectors = await self.embeddings.embed_many([m.text for m in memories])
            # One at a time, in order: a later fact of the batch may supersede an earlier one.
            for (job, decision), memory, vector in zip(decided, memories, vectors, strict=True):
                if decision.previous_text:
                    await self._record_replaced(job, decision, memory)
                await self._write(memory, vector, report)
        for job in jobs:
            await self._learn_behaviour(job, report)
        return report

    async def _learn_behaviour(self, job: ExtractionJob, report: WriteReport) -> None:
        """Count the tools the user's commands show, per project and session; infer after enough sessions.

        A pattern seen in one project stays in that project (the slot is the project's).
        """
        for signal in detect_signals(self.signal_patterns, job.turns):
            scope = write_scope("project", job.scope)
            if level_of(scope) not in job.writable:
                continue
            slot = slot_key(scope, signal.key, None)
            sessions = await self.store.observe(
                slot,
                signal.value,
                job.scope.session or job.request_id,
                self.policy.behaviour_window_days * 86400,
            )
            if sessions < self.policy.behaviour_sessions:
                continue
            text = (
                signal.text_template.replace(SUBJECT_MARK, subject_label(scope))
                .replace("{sessions}", str(sessions))
                .replace("{value}", signal.value)
            )
            memory = Memory(
                id=new_id(),
                kind=Kind.SEMANTIC,
                text=text,
                scope=scope,
                evidence=Evidence.INFERRED,
                confidence=round(min(0.8, 0.4 + 0.05 * sessions), 4),
                source=job.source(signal.turn, span=signal.value),
                observed_at=job.observed_at,
                key=signal.key,
                value=signal.value,
                valid_from=job.observed_at,
                policy=self.policy.label,
                extractor=f"{signal.pattern_id}.v1",
                fingerprint=fingerprint(scope, "semantic", signal.key, signal.value, text),
                last_seen_at=job.observed_at,
                embedding_model=self.embeddings.model_id,
                extra={"sessions": str(sessions)},
            )
            (vector,) = await self.embeddings.embed_many([memory.text])
            await self._write(memory, vector, report)

    async def _record_replaced(self, job: ExtractionJob, decision: Decision, memory: Memory) -> None:
        """ "We switched from npm to pnpm": if the slot holds nothing yet, keep npm as the past
        version, so the history says what was replaced and when."""
        if memory.key is None or decision.candidate.previous_value is None or decision.previous_text is None:
            return
        if await self.store.current_in_slot(slot_key(memory.scope, memory.key, memory.qualifier)) is not None:
            return
        past = memory.with_changes(
            id=new_id(),
            text=decision.previous_text,
            value=decision.candidate.previous_value,
            valid_from=None,
            fingerprint=fingerprint(
                memory.scope,
                memory.kind.value,
                memory.key,
                decision.candidate.previous_value,
                "",
                memory.qualifier,
            ),
        )
        (vector,) = await self.embeddings.embed_many([past.text])
        await self.store.put(past, vector)

    async def _write(self, memory: Memory, vector: Vectors, report: WriteReport) -> None:
        policy, now = self.policy, utcnow()
        memory = memory.with_changes(expires_at=retention.expires_at(memory, policy, now))
        if memory.status is Status.QUARANTINED:
            # kept for review only: it neither merges with nor supersedes what is in force
            await self.store.put(memory, vector)
            report.quarantined += 1
            return
        exact = await self.store.find_by_fingerprint(memory.scope, memory.fingerprint)
        if exact is not None and memory.key is None:
            await self.store.mark_seen(exact, expires_at=retention.expires_at(exact, policy, now))
            report.merged += 1
            return
        current = (
            await self.store.current_in_slot(slot_key(memory.scope, memory.key, memory.qualifier))
            if (memory.key)
            else None
        )
        nearest = (
            None if memory.key else await self.store.nearest_in_scope(memory.scope, memory.kind.value, vector)
        )
        outcome = reconcile(
            memory,
            current,
            nearest.memory if nearest else None,
            nearest.similarity if nearest else None,
            policy,
        )
        if outcome.action is Action.INSERT:
            await self.store.put(memory, vector)
            report.written += 1
            await self._enforce_limit(memory.scope, policy)
        elif outcome.action is Action.MERGE and outcome.existing is not None:
            renewed = retention.expires_at(outcome.existing, policy, now)
            await self.store.mark_seen(outcome.existing, outcome.confidence, renewed)
            report.merged += 1
        elif outcome.action is Action.SUPERSEDE and outcome.existing is not None:
            written = await self.store.supersede(
                outcome.existing, memory, vector, retention.superseded_expiry(policy, now)
            )
            report.superseded += 1
            await self._trim_history(written, policy)
        else:
            log.info("not stored (%s): %s", outcome.reason, memory.extractor)
            report.refused += 1

    async def _enforce_limit(self, scope: Scope, policy: Policy) -> None:
        """Keep one exact scope within ``retention.max_per_scope``, evicting in the policy's order."""
        limit = policy.retention.max_per_scope
        page = await self.store.list_memories(
            ListQuery(
                org=scope.org,
                project=scope.project,
                user=scope.user,
                session=scope.session,
                limit=limit + 100,
            )
        )
        exact = [m for m in page.memories if m.scope == scope]
        for memory in retention.over_limit(exact, policy):
            await self.store.delete(memory, actor="retention", reason=f"over {limit} records in its scope")

    async def _trim_history(self, current: Memory, policy: Policy) -> None:
        """Keep at most ``retention.superseded_versions`` old versions of a fact."""
        history = await self.store.history(current)
        old = [m for m in history if m.id != current.id]
        for memory in old[: max(0, len(old) - policy.retention.superseded_versions)]:
            await self.store.delete(
                memory, actor="retention", reason="more old versions than the policy keeps"
            )


def to_memory(job: ExtractionJob, decision: Decision, embedding_model: str) -> Memory:
    candidate: Candidate = decision.candidate
    return Memory(
        id=new_id(),
        kind=Kind(candidate.kind),
        text=decision.text,
        scope=decision.scope,
        evidence=Evidence(decision.evidence),
        confidence=round(decision.confidence, 4),
        qualifier=candidate.qualifier,
        source=job.source(candidate.turn, span=candidate.span),
        observed_at=decision.observed_at,
        subject=decision.scope.label(),
        key=candidate.key,
        value=candidate.value,
        valid_from=decision.valid_from or decision.observed_at,
        policy=decision.policy,
        extractor=candidate.rule_id,
        fingerprint=decision.fingerprint,
        last_seen_at=decision.observed_at,
        embedding_model=embedding_model,
        status=Status(decision.status),
        extra={k: v for k, v in candidate.fields.items() if k in _EXTRA_FIELDS},
    )


# Structured parts of episodes and lessons, kept beside the sentence.
_EXTRA_FIELDS = frozenset({"event", "outcome", "cause", "corrects_message_index", "lesson_from"})


async def run_worker(
    queue: JobQueue,
    learner: Learner,
    stop: asyncio.Event,
    batch_size: int = 32,
    tracing: Tracing | None = None,
) -> None:
    """The worker loop. Returns when ``stop`` is set; survives store outages by backing off.

    A batch that fails is retried one job at a time, so one bad job cannot take good ones with it;
    a job that keeps failing goes to the dead letters, with its reason, once Redis has handed it out
    ``MAX_ATTEMPTS`` times. Trouble with the store or the models is no job's fault: the batch stays
    queued and nothing is counted against it."""
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
                    failed = await _one_at_a_time(queue, learner, batch)
                pending_first = bool(failed)  # the ones left pending come back first
                if failed:
                    await _sleep_unless_stopped(stop, 0.2)
                continue
            await queue.done([entry_id for entry_id, _, _ in batch])
            await queue.count_learned(report, jobs)
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


async def _one_at_a_time(queue: JobQueue, learner: Learner, batch: list[Taken]) -> int:
    """Learn each job of a failed batch alone; returns how many failed and stay pending."""
    failed = 0
    for taken in batch:
        try:
            await learner.learn([taken[2]])
        except Exception as exc:
            if not await _the_jobs_fault(queue, exc):
                raise  # the rest stay pending, unpenalised
            failed += await _failed(queue, taken, exc)
            continue
        await queue.done([taken[0]])
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
