"""Writing the Redis store: records and their vectors, versions (supersede, close), seen-again
counts, expiry, deletion and the audit entries that go with them."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

import numpy as np
from redis.exceptions import RedisError

from core.errors import StoreUnavailable
from core.model import Memory, Status, slot_key, to_epoch, utcnow
from core.scope import scope_key
from proxy.memory import audit_chain
from proxy.memory.embeddings import Vectors
from proxy.memory.redis_reads import RedisReads
from proxy.memory.redis_schema import hash_row
from proxy.memory.redis_state import AUDIT_MAXLEN, AUDIT_STREAM, SIGNAL_PREFIX, audit_entry


def _set_expiry(pipe: Any, key: str, expires_at: datetime | None) -> None:
    """Queue the record's expiry on a pipeline: the key's own TTL and the field that shows it."""
    if expires_at is None:
        pipe.persist(key)
        pipe.hdel(key, "expires_at")
    else:
        pipe.expireat(key, int(expires_at.timestamp()) + 1)
        pipe.hset(key, "expires_at", str(to_epoch(expires_at)))


class RedisWrites(RedisReads):
    """The store's writes. Each is one transaction, so a record and its links change together."""

    audit_maxlen = AUDIT_MAXLEN  # audit entries kept; the chain is anchored after the last trimmed

    async def put(self, memory: Memory, vector: Vectors) -> None:
        await self.put_many([(memory, vector)])

    def _queue_write(self, pipe: Any, memory: Memory, vector: Vectors) -> None:
        """Queue a whole record, vector and expiry on a pipeline."""
        row = hash_row(memory)
        row["embedding"] = vector.astype(np.float32).tobytes()
        pipe.hset(self._key(memory.id), mapping=row)
        if memory.expires_at is not None:
            pipe.expireat(self._key(memory.id), int(memory.expires_at.timestamp()) + 1)

    async def mark_seen(
        self, memory: Memory, confidence: float | None = None, expires_at: datetime | None = None
    ) -> Memory:
        """Seen again: count it, note when, (for a repeated inference) raise its confidence, and
        restart its retention clock (``expires_at``, None: never expires)."""
        now = utcnow()
        key = self._key(memory.id)
        try:
            async with self._client.pipeline(transaction=True) as pipe:
                pipe.hincrby(key, "seen_count", 1)
                pipe.hset(key, "last_seen_at", str(to_epoch(now)))
                if confidence is not None:
                    pipe.hset(key, "confidence", str(confidence))
                _set_expiry(pipe, key, expires_at)
                count, *_ = await pipe.execute()
        except (RedisError, OSError) as exc:
            raise StoreUnavailable(f"write failed: {exc}") from exc
        return memory.with_changes(
            seen_count=int(count), last_seen_at=now, confidence=confidence or memory.confidence
        )

    async def supersede(
        self, old: Memory, new: Memory, vector: Vectors, old_expires_at: datetime | None = None
    ) -> Memory:
        """Write ``new`` as the next version of ``old``; ``old`` stays, closed, in the history chain
        (until ``old_expires_at``, when retention lets old versions go)."""
        new = new.with_changes(supersedes=old.id, version=old.version + 1)
        closed_at = new.valid_from or new.observed_at
        try:
            async with self._client.pipeline(transaction=True) as pipe:
                self._queue_write(pipe, new, vector)
                self._queue_close(pipe, old, new.id, closed_at)
                if old_expires_at is not None:
                    pipe.expireat(self._key(old.id), int(old_expires_at.timestamp()) + 1)
                    pipe.hset(self._key(old.id), "expires_at", str(to_epoch(old_expires_at)))
                await pipe.execute()
        except (RedisError, OSError) as exc:
            raise StoreUnavailable(f"write failed: {exc}") from exc
        return new

    async def delete(self, memory: Memory, actor: str, reason: str) -> None:
        """Delete one record everywhere it lives in the store: the hash (text, fields and vector,
        and so the index entry), and its links in the history chain, which skip over it. The audit
        entry is chained in the same transaction."""
        entry = audit_entry(
            "delete",
            memory.scope.org,
            actor,
            memory_id=memory.id,
            scope_key=scope_key(memory.scope),
            reason=reason,
        )

        def queue(pipe: Any) -> None:
            pipe.delete(self._key(memory.id))
            if memory.key and memory.value:
                # the signals an inference was drawn from would only draw it again
                slot = slot_key(memory.scope, memory.key, memory.qualifier)
                pipe.delete(f"{SIGNAL_PREFIX}{slot}:{memory.value.lower()}")
            self._queue_relink(pipe, memory)

        await audit_chain.append(self._client, AUDIT_STREAM, entry, self.audit_maxlen, queue)

    def _queue_relink(self, pipe: Any, memory: Memory) -> None:
        """The versions before and after a deleted one point at each other (or at nothing)."""
        if memory.supersedes:
            if memory.superseded_by:
                pipe.hset(self._key(memory.supersedes), "superseded_by", memory.superseded_by)
            else:
                pipe.hdel(self._key(memory.supersedes), "superseded_by")
        if memory.superseded_by:
            if memory.supersedes:
                pipe.hset(self._key(memory.superseded_by), "supersedes", memory.supersedes)
            else:
                pipe.hdel(self._key(memory.superseded_by), "supersedes")

    async def put_many(self, items: list[tuple[Memory, Vectors]]) -> None:
        try:
            async with self._client.pipeline(transaction=True) as pipe:
                for memory, vector in items:
                    self._queue_write(pipe, memory, vector)
                await pipe.execute()
        except (RedisError, OSError) as exc:
            raise StoreUnavailable(f"write failed: {exc}") from exc

    async def close_version(self, memory: Memory, superseded_by: str | None, valid_to: datetime) -> None:
        try:
            async with self._client.pipeline(transaction=True) as pipe:
                self._queue_close(pipe, memory, superseded_by, valid_to)
                await pipe.execute()
        except (RedisError, OSError) as exc:
            raise StoreUnavailable(f"write failed: {exc}") from exc

    def _queue_close(self, pipe: Any, memory: Memory, superseded_by: str | None, valid_to: datetime) -> None:
        """Queue closing a version: no longer current, valid until ``valid_to``, linked forward."""
        fields = {"status": Status.SUPERSEDED.value, "current": "0", "valid_to": str(to_epoch(valid_to))}
        if superseded_by:
            fields["superseded_by"] = superseded_by
        pipe.hset(self._key(memory.id), mapping=fields)

    async def set_extra(
        self, memory: Memory, extra: dict[str, object], expires_at: datetime | None, actor: str
    ) -> Memory:
        key = self._key(memory.id)
        entry = audit_entry("annotate", memory.scope.org, actor, memory_id=memory.id, fields=",".join(extra))

        def queue(pipe: Any) -> None:
            pipe.hset(key, "extra", json.dumps(extra, ensure_ascii=False))
            _set_expiry(pipe, key, expires_at)

        await audit_chain.append(self._client, AUDIT_STREAM, entry, self.audit_maxlen, queue)
        return memory.with_changes(extra=extra, expires_at=expires_at)

    async def record_audit(self, org: str, actor: str, action: str, **fields: str) -> None:
        await audit_chain.append(
            self._client, AUDIT_STREAM, audit_entry(action, org, actor, **fields), self.audit_maxlen
        )

    async def verify_audit(self) -> audit_chain.Verification:
        """Walk the audit chain; the first entry that was altered or removed, if any."""
        return await audit_chain.verify(self._client, AUDIT_STREAM)
