"""The job queue: a Redis Stream of extraction jobs, its dead letters and the learning counters.

Jobs go through a Redis Stream with a consumer group, so any number of workers share them
and a job is acknowledged only after its records are written: a worker that crashes leaves
its jobs pending, and the next worker claims them.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import time
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

import redis.asyncio as aioredis
from redis.exceptions import RedisError, ResponseError

from core.errors import StoreUnavailable
from core.model import Source, new_id
from core.scope import SCOPE_LEVELS, Scope
from extractors import Turn

if TYPE_CHECKING:
    from proxy.worker.learner import WriteReport

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
