"""Reading the Redis store: recall, the lookups learning and reconciling need, listings and counts.

Access control happens inside the query: every search carries a filter built from the request's
scope (``visibility_filter``), so records of other orgs, projects, users and sessions are never read.
"""

from __future__ import annotations

import asyncio
from typing import Any

import numpy as np
import redis.asyncio as aioredis
from redis.exceptions import RedisError
from redisvl.exceptions import RedisSearchError, RedisVLError
from redisvl.index import AsyncSearchIndex
from redisvl.query import FilterQuery, TextQuery, VectorQuery
from redisvl.query.filter import Num, Tag
from redisvl.schema import IndexSchema

from core.errors import StoreUnavailable
from core.model import Memory, from_hash, slot_key
from core.scope import SCOPE_LEVELS, Scope, scope_key, scope_tag
from proxy.memory.embeddings import Vectors
from proxy.memory.ranking import fuse, keyword_query
from proxy.memory.redis_schema import (
    ALL_HASH_FIELDS,
    current_filter,
    list_filter,
    standing_filter,
    visibility_filter,
)
from proxy.memory.redis_state import text
from proxy.memory.store import Cursor, ListPage, ListQuery, RecallQuery, ScoredMemory


class RedisReads:
    """The store's reads; ``RedisMemoryStore`` builds the client, index and schema they use."""

    _client: aioredis.Redis
    _index: AsyncSearchIndex
    _return_fields: list[str]
    schema: IndexSchema

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

    async def find_by_fingerprint(self, scope: Scope, fingerprint: str) -> Memory | None:
        where = (
            (Tag("fingerprint") == fingerprint)
            & (Tag("scope_org") == scope_tag(scope.org))
            & current_filter()
        )
        rows = await self._search(FilterQuery(where, return_fields=self._return_fields, num_results=1))
        return from_hash(self._row(rows[0])) if rows else None

    async def current_in_slot(self, slot: str) -> Memory | None:
        rows = await self._search(
            FilterQuery(
                (Tag("slot") == slot) & current_filter(), return_fields=self._return_fields, num_results=1
            )
        )
        return from_hash(self._row(rows[0])) if rows else None

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
