"""The memory store on Redis with the search module, through RedisVL (DESIGN §5).

Access control happens inside the query: every search carries a filter built from the
request's scope, so records of other orgs, projects, users and sessions are never read.
"""

from __future__ import annotations

import asyncio
import json
import logging
from datetime import datetime
from typing import Any

import numpy as np
import redis.asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import RedisError
from redisvl.exceptions import RedisSearchError, RedisVLError
from redisvl.index import AsyncSearchIndex
from redisvl.query import FilterQuery, TextQuery, VectorQuery
from redisvl.query.filter import Num, Tag

from core.errors import EmbeddingModelMismatch, StoreUnavailable
from core.model import Memory, Status, from_hash, slot_key, to_epoch, utcnow
from core.scope import SCOPE_LEVELS, Scope, scope_key, scope_tag
from proxy.memory.embeddings import Vectors
from proxy.memory.ranking import fuse, keyword_query
from proxy.memory.redis_schema import (
    ALL_HASH_FIELDS,
    current_filter,
    derived_tags,
    hash_row,
    list_filter,
    load_index_schema,
    standing_filter,
    visibility_filter,
)
from proxy.memory.redis_state import (
    AUDIT_MAXLEN,
    AUDIT_STREAM,
    SIGNAL_PREFIX,
    RedisScopeState,
    audit_entry,
    text,
)
from proxy.memory.store import Cursor, ListPage, ListQuery, RecallQuery, ScoredMemory

log = logging.getLogger("mnemo.store")

META_KEY = "mnemo:meta"
INDEX_SCHEMA_VERSION = "4"  # 2: scope_key; 3: slot; 4: list_order


def _set_expiry(pipe: Any, key: str, expires_at: datetime | None) -> None:
    """Queue the record's expiry on a pipeline: the key's own TTL and the field that shows it."""
    if expires_at is None:
        pipe.persist(key)
        pipe.hdel(key, "expires_at")
    else:
        pipe.expireat(key, int(expires_at.timestamp()) + 1)
        pipe.hset(key, "expires_at", str(to_epoch(expires_at)))


class RedisMemoryStore(RedisScopeState):
    """``MemoryStore`` on RedisVL. Owns its async client; opened and closed by the app lifespan."""

    def __init__(
        self,
        url: str,
        embedding_model: str,
        dims: int,
        timeout_s: float = 0.5,
        index_name: str | None = None,
        prefix: str | None = None,
        algorithm: str = "flat",
    ) -> None:
        self._client = aioredis.Redis.from_url(
            url,
            socket_timeout=timeout_s,
            socket_connect_timeout=timeout_s,
            retry=Retry(NoBackoff(), 0),  # fail fast: the proxy fails open instead of waiting
            max_connections=64,
        )
        self.embedding_model = embedding_model
        self.dims = dims
        self.schema = load_index_schema(dims, algorithm)
        if index_name:
            self.schema.index.name = index_name
        if prefix:
            self.schema.index.prefix = prefix
        self._meta_key = f"{META_KEY}:{self.schema.index.name}"
        self._index = AsyncSearchIndex(self.schema, redis_client=self._client)
        self._return_fields = list(ALL_HASH_FIELDS)

    @property
    def client(self) -> aioredis.Redis:
        return self._client

    async def open(self) -> None:
        try:
            meta = {text(k): text(v) for k, v in (await self._client.hgetall(self._meta_key)).items()}
            if meta and meta.get("embedding_model") != self.embedding_model:
                raise EmbeddingModelMismatch(
                    f"the store's index was built with embedding model {meta.get('embedding_model')!r} "
                    f"({meta.get('dims')} dims), but this server is configured with "
                    f"{self.embedding_model!r} ({self.dims} dims); use the same model, another store, "
                    "or export and re-import the memories"
                )
            if meta and meta.get("index_schema_version") != INDEX_SCHEMA_VERSION:
                await self._migrate(meta.get("index_schema_version", "1"))
            elif not await self._index.exists():
                await self._index.create(overwrite=False)
            await self._client.hset(
                self._meta_key,
                mapping={
                    "embedding_model": self.embedding_model,
                    "dims": str(self.dims),
                    "index_schema_version": INDEX_SCHEMA_VERSION,
                },
            )
        except (RedisError, RedisVLError, OSError) as exc:
            raise StoreUnavailable(f"cannot open the memory index: {exc}") from exc

    async def _migrate(self, from_version: str) -> None:
        """Rebuild the index under the current schema and fill fields older records lack.

        Records are kept: the index is dropped without its documents and created again.
        """
        log.warning("migrating the memory index from schema %s to %s", from_version, INDEX_SCHEMA_VERSION)
        if await self._index.exists():
            await self._index.delete(drop=False)
        async for key in self._client.scan_iter(match=f"{self._key('')}*", count=1000):
            row = await self._client.hgetall(key)
            if row:
                memory = from_hash({text(k): v for k, v in row.items() if k != b"embedding"})
                await self._client.hset(key, mapping=dict(derived_tags(memory)))  # type: ignore[arg-type]
        await self._index.create(overwrite=False)

    async def close(self) -> None:
        await self._client.aclose()

    async def ping(self) -> None:
        try:
            await self._client.ping()
        except (RedisError, OSError) as exc:
            raise StoreUnavailable(f"store did not answer: {exc}") from exc

    async def recall(self, query: RecallQuery) -> list[ScoredMemory]:
        where = visibility_filter(query.scope, query.readable) & current_filter()
        if query.standing is not None:
            where = where & standing_filter(query.standing)
        searches: list[Any] = []
        if query.vector is not None:
            searches.append(
                VectorQuery(
                    query.vector.astype(np.float32).tobytes(),
                    "embedding",
                    return_fields=self._return_fields,
                    filter_expression=where,
                    num_results=query.candidates,
                )
            )
        words = keyword_query(query.text)
        if words:
            searches.append(
                TextQuery(
                    words,
                    {"text": 1.0, "subject": 0.5},
                    filter_expression=where,
                    return_fields=self._return_fields,
                    num_results=query.candidates,
                    stopwords=None,
                )
            )
        if not searches:
            return []
        try:
            results = await asyncio.gather(*(self._index.query(search) for search in searches))
        except (RedisError, RedisVLError, OSError) as exc:
            raise StoreUnavailable(f"recall failed: {exc}") from exc
        results = [[self._row(row) for row in rows] for rows in results]
        vector_rows = results[0] if query.vector is not None else []
        text_rows = results[-1] if words else []
        return fuse(vector_rows, text_rows, query)

    async def put(self, memory: Memory, vector: Vectors) -> None:
        await self.put_many([(memory, vector)])

    def _queue_write(self, pipe: Any, memory: Memory, vector: Vectors) -> None:
        """Queue a whole record, vector and expiry on a pipeline."""
        row = hash_row(memory)
        row["embedding"] = vector.astype(np.float32).tobytes()
        pipe.hset(self._key(memory.id), mapping=row)
        if memory.expires_at is not None:
            pipe.expireat(self._key(memory.id), int(memory.expires_at.timestamp()) + 1)

    async def find_by_fingerprint(self, scope: Scope, fingerprint: str) -> Memory | None:
        where = (
            (Tag("fingerprint") == fingerprint)
            & (Tag("scope_org") == scope_tag(scope.org))
            & current_filter()
        )
        rows = await self._search(FilterQuery(where, return_fields=self._return_fields, num_results=1))
        return from_hash(self._row(rows[0])) if rows else None

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

    async def current_in_slot(self, slot: str) -> Memory | None:
        rows = await self._search(
            FilterQuery(
                (Tag("slot") == slot) & current_filter(), return_fields=self._return_fields, num_results=1
            )
        )
        return from_hash(self._row(rows[0])) if rows else None

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

    async def history(self, memory: Memory) -> list[Memory]:
        """Every version of the record's slot chain, oldest first."""
        chain = [memory]
        seen = {memory.id}
        while chain[0].supersedes and chain[0].supersedes not in seen:
            previous = await self.get(chain[0].supersedes)
            if previous is None:
                break
            seen.add(previous.id)
            chain.insert(0, previous)
        while chain[-1].superseded_by and chain[-1].superseded_by not in seen:
            following = await self.get(chain[-1].superseded_by)
            if following is None:
                break
            seen.add(following.id)
            chain.append(following)
        return chain

    async def nearest_in_scope(self, scope: Scope, kind: str, vector: Vectors) -> ScoredMemory | None:
        """The current record of exactly this scope and kind closest to ``vector`` (for near-duplicates)."""
        query = VectorQuery(
            vector.astype(np.float32).tobytes(),
            "embedding",
            return_fields=self._return_fields,
            filter_expression=(Tag("scope_key") == scope_key(scope))
            & (Tag("kind") == kind)
            & current_filter(),
            num_results=1,
        )
        rows = await self._search(query)
        if not rows:
            return None
        row = self._row(rows[0])
        similarity = 1.0 - float(row.get("vector_distance", 1.0))
        return ScoredMemory(memory=from_hash(row), score=similarity, similarity=similarity)

    async def get(self, memory_id: str) -> Memory | None:
        try:
            row = await self._client.hgetall(self._key(memory_id))
        except (RedisError, OSError) as exc:
            raise StoreUnavailable(f"read failed: {exc}") from exc
        if not row:
            return None
        return from_hash({text(k): v for k, v in row.items() if k != b"embedding"})

    async def delete(self, memory: Memory, actor: str, reason: str) -> None:
        """Delete one record everywhere it lives in the store: the hash (text, fields and vector,
        and so the index entry), and its links in the history chain, which skip over it."""
        try:
            async with self._client.pipeline(transaction=True) as pipe:
                pipe.delete(self._key(memory.id))
                if memory.key and memory.value:
                    # the signals an inference was drawn from would only draw it again
                    slot = slot_key(memory.scope, memory.key, memory.qualifier)
                    pipe.delete(f"{SIGNAL_PREFIX}{slot}:{memory.value.lower()}")
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
                entry = audit_entry(
                    "delete",
                    memory.scope.org,
                    actor,
                    memory_id=memory.id,
                    scope_key=scope_key(memory.scope),
                    reason=reason,
                )
                pipe.xadd(AUDIT_STREAM, entry, maxlen=AUDIT_MAXLEN, approximate=True)  # type: ignore[arg-type]
                await pipe.execute()
        except (RedisError, OSError) as exc:
            raise StoreUnavailable(f"delete failed: {exc}") from exc

    async def visible_current(
        self,
        scope: Scope,
        limit: int,
        readable: frozenset[str] = frozenset(SCOPE_LEVELS),
        standing: bool | None = None,
        keys: list[str] | None = None,
    ) -> list[Memory]:
        """Up to ``limit`` current records a request may see, newest first."""
        where = visibility_filter(scope, readable) & current_filter()
        if standing is not None:
            where = where & standing_filter(standing)
        if keys is not None:
            where = where & (Tag("key") == (keys or ["no-such-key"]))
        search = FilterQuery(
            where,
            return_fields=self._return_fields,
            num_results=limit,
            sort_by=("observed_at", "DESC"),
        )
        return [from_hash(self._row(row)) for row in await self._search(search)]

    async def list_memories(self, query: ListQuery) -> ListPage:
        """A page in listing order. The index gives the order and the ids; the records are read
        from their hashes, because the index returns a sortable number rounded (observed_at)."""
        where = list_filter(query)
        after = query.after
        if after is not None:
            # every record at or before the cursor's microsecond; those at exactly that
            # microsecond already returned are skipped (they sort by id, the same on every query)
            where = where & (Num("observed_at") <= (after.micros + 0.5) / 1_000_000)
        search = FilterQuery(where, return_fields=["list_order"], sort_by=("list_order", "DESC"))
        start = after.skip if after is not None else query.offset
        search.paging(start, query.limit)
        try:
            result = await self._index.search(search.query, query_params=search.params)
        except (RedisError, RedisVLError, OSError) as exc:
            raise StoreUnavailable(f"listing failed: {exc}") from exc
        matched = int(result.total)
        ids = [str(doc.id).removeprefix(self._key("")) for doc in result.docs]
        found = await self.get_many(ids)
        end = start + len(ids)
        cursor = None
        if ids and end < matched and (after is not None or query.offset == 0):
            orders = [int(str(getattr(doc, "list_order", "0"))[:20]) for doc in result.docs]
            last = orders[-1]
            carried = after.skip if after is not None and last == after.micros else 0
            cursor = Cursor(micros=last, skip=carried + orders.count(last))
        return ListPage(
            memories=[found[i] for i in ids if i in found],  # one may have gone since the query
            total=await self.count(query) if after is not None else matched,
            next_offset=end if end < matched and after is None else None,
            next_cursor=cursor,
        )

    async def record_count(self) -> int:
        """Records in the index, every version and status."""
        try:
            info = await self._index.info()
        except (RedisError, RedisVLError, OSError) as exc:
            raise StoreUnavailable(f"index info failed: {exc}") from exc
        return int(info.get("num_docs", 0))

    async def count(self, query: ListQuery) -> int:
        search = FilterQuery(list_filter(query), return_fields=["id"])
        search.paging(0, 0)
        try:
            result = await self._index.search(search.query, query_params=search.params)
        except (RedisError, RedisVLError, OSError) as exc:
            raise StoreUnavailable(f"count failed: {exc}") from exc
        return int(result.total)

    async def get_many(self, memory_ids: list[str]) -> dict[str, Memory]:
        if not memory_ids:
            return {}
        try:
            async with self._client.pipeline(transaction=False) as pipe:
                for memory_id in memory_ids:
                    pipe.hmget(self._key(memory_id), ALL_HASH_FIELDS)
                rows = await pipe.execute()
        except (RedisError, OSError) as exc:
            raise StoreUnavailable(f"read failed: {exc}") from exc
        found: dict[str, Memory] = {}
        for memory_id, values in zip(memory_ids, rows, strict=True):
            pairs = zip(ALL_HASH_FIELDS, values, strict=True)
            row = {name: value for name, value in pairs if value is not None}
            if row:
                row["id"] = memory_id
                found[memory_id] = from_hash(row)
        return found

    async def current_by_fingerprint(self, fingerprints: list[str]) -> dict[str, Memory]:
        found = await self._current_by_tag("fingerprint", fingerprints)
        return {m.fingerprint: m for m in found}

    async def current_by_slot(self, slots: list[str]) -> dict[str, Memory]:
        found = await self._current_by_tag("slot", slots)
        return {slot_key(m.scope, m.key, m.qualifier): m for m in found if m.key}

    async def _current_by_tag(self, name: str, values: list[str]) -> list[Memory]:
        if not values:
            return []
        search = FilterQuery(
            (Tag(name) == sorted(set(values))) & current_filter(),
            return_fields=self._return_fields,
            num_results=len(values) * 2,
        )
        return [from_hash(self._row(row)) for row in await self._search(search)]

    async def vectors(self, memory_ids: list[str]) -> dict[str, bytes]:
        try:
            async with self._client.pipeline(transaction=False) as pipe:
                for memory_id in memory_ids:
                    pipe.hget(self._key(memory_id), "embedding")
                values = await pipe.execute()
        except (RedisError, OSError) as exc:
            raise StoreUnavailable(f"read failed: {exc}") from exc
        return {i: v for i, v in zip(memory_ids, values, strict=True) if v is not None}

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
        try:
            async with self._client.pipeline(transaction=True) as pipe:
                pipe.hset(key, "extra", json.dumps(extra, ensure_ascii=False))
                _set_expiry(pipe, key, expires_at)
                pipe.xadd(AUDIT_STREAM, entry, maxlen=AUDIT_MAXLEN, approximate=True)  # type: ignore[arg-type]
                await pipe.execute()
        except (RedisError, OSError) as exc:
            raise StoreUnavailable(f"write failed: {exc}") from exc
        return memory.with_changes(extra=extra, expires_at=expires_at)

    async def record_audit(self, org: str, actor: str, action: str, **fields: str) -> None:
        entry = audit_entry(action, org, actor, **fields)
        try:
            await self._client.xadd(AUDIT_STREAM, entry, maxlen=AUDIT_MAXLEN, approximate=True)  # type: ignore[arg-type]
        except (RedisError, OSError) as exc:
            raise StoreUnavailable(f"write failed: {exc}") from exc

    async def _search(self, search: FilterQuery | VectorQuery) -> list[dict[str, Any]]:
        try:
            rows: list[dict[str, Any]] = await self._index.query(search)
            return rows
        except (RedisError, RedisVLError, RedisSearchError, OSError) as exc:
            raise StoreUnavailable(f"search failed: {exc}") from exc

    def _row(self, row: dict[str, Any]) -> dict[str, Any]:
        # RedisVL reports the document key as "id"; the record id is the key without its prefix.
        key = str(row.get("id", ""))
        return {**row, "id": key.removeprefix(self._key(""))}

    def _key(self, memory_id: str) -> str:
        return f"{self.schema.index.prefix}{self.schema.index.key_separator}{memory_id}"
