"""The memory store on Redis with the search module, through RedisVL (DESIGN §5).

Access control happens inside the query: every search carries a filter built from the
request's scope, so records of other orgs, projects, users and sessions are never read.

This module opens the store: the client, the index (created, or migrated to the current
schema) and the check that it was built with this server's embedding model. What the store
does is in ``redis_reads`` (recall, lookups, listings) and ``redis_writes`` (records,
versions, deletion, audit); the per-scope controls and signals are in ``redis_state``.
"""

from __future__ import annotations

import logging

import redis.asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import RedisError
from redisvl.exceptions import RedisVLError
from redisvl.index import AsyncSearchIndex

from core.errors import EmbeddingModelMismatch, StoreUnavailable
from core.model import from_hash
from proxy.memory.redis_schema import ALL_HASH_FIELDS, derived_tags, load_index_schema
from proxy.memory.redis_state import RedisScopeState, text
from proxy.memory.redis_writes import RedisWrites

log = logging.getLogger("mnemo.store")

META_KEY = "mnemo:meta"
INDEX_SCHEMA_VERSION = "4"  # 2: scope_key; 3: slot; 4: list_order


class RedisMemoryStore(RedisWrites, RedisScopeState):
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
