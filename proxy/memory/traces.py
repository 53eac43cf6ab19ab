"""Per-request traces: what each relayed call was given, and what learning later made of it.

Ids, scores, sizes and where the scope came from; never prompt text (the memories hold what they
hold, the trace only their ids). Written off the hot path after the reply, and never allowed to fail
the call: ``TraceStore.keep`` logs and moves on.

Layout in the store (org, project, user and session values as ``scope_tag`` digests):

- ``mnemo:trace:<org>:<request id>``, a hash that expires after the policy's ``traces.ttl``:
  ``doc`` (the call: API, client, model, scope and its sources, recall status, block size, what was
  queued for learning), ``scope_key`` (the call's exact scope), ``inj:<memory id>`` (each injected
  memory's rank and scores) and, once the worker learned from the call, ``learned_at``,
  ``w:<id>`` written, ``m:<id>`` merged into, ``s:<id>`` a new version (its value: the id it
  superseded), ``q:<id>`` quarantined, ``r:<n>`` refused (reason and rule, never text).
- ``mnemo:traces:<org>``: the org's traces by time (a sorted set), trimmed to ``traces.max_count``
  on every write, the trimmed traces deleted; ``mnemo:traces:<org>:<level>:<value>`` the same per
  project, user and session (filters, and deleting a scope); ``mnemo:traces:all`` every org's, for
  an operator; ``mnemo:traces:orgs`` the orgs that have traces.
- ``mnemo:trace:bymem:<memory id>``: the traces that name a memory, so deleting it reaches them.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from redis.exceptions import RedisError

from core.errors import StoreUnavailable
from core.scope import Scope, scope_key, scope_tag
from policies.model import TraceRetention
from proxy.memory.trace_records import CallTrace, InjectedMemory, LearnedIds, shown, text

if TYPE_CHECKING:
    import redis.asyncio as aioredis

    from proxy.memory.redis_store import RedisMemoryStore

__all__ = ["CallTrace", "InjectedMemory", "LearnedIds", "TracePage", "TraceQuery", "TraceStore"]

log = logging.getLogger("mnemo.traces")

TRACE_PREFIX = "mnemo:trace:"
INDEX_PREFIX = "mnemo:traces:"
ALL_INDEX = "mnemo:traces:all"
ORGS = "mnemo:traces:orgs"
BY_MEMORY = "mnemo:trace:bymem:"
MAX_ID_CHARS = 256  # a longer client request id is not traced
_LEVELS = ("project", "user", "session")
_PAGE = 200

# Learning writes into a trace only while it exists and is the same call's (a client's request id is
# its own to choose: another scope reusing it gets nothing), and names only records that still exist.
_LEARNED = """
if redis.call('HGET', KEYS[1], 'scope_key') ~= ARGV[1] then return 0 end
local n = 0
for i = 5, #ARGV, 3 do
  local id = ARGV[i + 2]
  if id == '' or redis.call('EXISTS', ARGV[3] .. id) == 1 then
    redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
    if id ~= '' then
      redis.call('SADD', ARGV[4] .. id, KEYS[1])
      redis.call('EXPIRE', ARGV[4] .. id, ARGV[2])
    end
    n = n + 1
  end
end
return n
"""
# A deleted memory leaves every trace that names it: its fields go, a version that superseded it no
# longer says which.
_FORGET = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local id = ARGV[1]
local n = redis.call('HDEL', KEYS[1], 'inj:' .. id, 'w:' .. id, 'm:' .. id, 's:' .. id, 'q:' .. id)
for _, f in ipairs(redis.call('HKEYS', KEYS[1])) do
  if string.sub(f, 1, 2) == 's:' and redis.call('HGET', KEYS[1], f) == id then
    redis.call('HSET', KEYS[1], f, '')
    n = n + 1
  end
end
return n
"""


@dataclass(frozen=True, slots=True)
class TraceQuery:
    """Which traces to list: ``org`` None = every org (an operator); exact project/user/session
    filters; ``keep`` the caller's own access check on each trace's scope."""

    org: str | None
    project: str | None = None
    user: str | None = None
    session: str | None = None
    keep: Callable[[Scope], bool] = lambda _: True
    limit: int = 100
    cursor: str | None = None


@dataclass(frozen=True, slots=True)
class TracePage:
    traces: list[dict[str, Any]]
    next_cursor: str | None


def _key(org: str, request_id: str) -> str:
    return f"{TRACE_PREFIX}{scope_tag(org)}:{request_id}"


def _indexes(scope: Scope) -> list[str]:
    org = f"{INDEX_PREFIX}{scope_tag(scope.org)}"
    levels = [f"{org}:{lv}:{scope_tag(getattr(scope, lv))}" for lv in _LEVELS if getattr(scope, lv)]
    return [org, *levels]


class TraceStore:
    """The traces in the memory store's Redis (its client: its timeouts, no retries)."""

    def __init__(self, client: aioredis.Redis, memory_key_prefix: str) -> None:
        self._client = client
        self._memory_prefix = memory_key_prefix
        self._learned = client.register_script(_LEARNED)
        self._forget = client.register_script(_FORGET)

    @classmethod
    def on(cls, store: RedisMemoryStore) -> TraceStore:
        index = store.schema.index
        return cls(store.client, f"{index.prefix}{index.key_separator}")

    async def keep(self, trace: CallTrace, retention: TraceRetention) -> None:
        """Write one call's trace; never raises (a trace is not worth failing anything for)."""
        if not trace.id or len(trace.id) > MAX_ID_CHARS:
            return
        try:
            await self._write(trace, retention)
        except Exception as exc:  # fail open: the call was answered already
            log.warning("request trace %s not kept: %s", trace.id, exc)

    async def _write(self, trace: CallTrace, retention: TraceRetention) -> None:
        key, ttl, max_count = _key(trace.scope.org, trace.id), int(retention.ttl_s), retention.max_count
        at_ms = int(trace.at.timestamp() * 1000)
        fields = {"doc": trace.doc(), "scope_key": scope_key(trace.scope)}
        for item in trace.injected:
            body = {k: v for k, v in asdict(item).items() if k != "id"}
            fields[f"inj:{item.id}"] = json.dumps(body)
        indexes = _indexes(trace.scope)
        async with self._client.pipeline(transaction=True) as pipe:
            pipe.delete(key)  # a request id used again: the newer call's trace
            pipe.hset(key, mapping=fields)  # type: ignore[arg-type]
            pipe.expire(key, ttl)
            for index in indexes:
                pipe.zadd(index, {trace.id: at_ms})
                pipe.zremrangebyscore(index, "-inf", at_ms - ttl * 1000)
                pipe.expire(index, ttl)
            for index in indexes[1:]:  # the org's own index is trimmed below, its traces deleted
                pipe.zremrangebyrank(index, 0, -(max_count + 1))
            pipe.zadd(ALL_INDEX, {f"{scope_tag(trace.scope.org)}:{trace.id}": at_ms})
            pipe.zremrangebyrank(ALL_INDEX, 0, -(max_count + 1))
            pipe.sadd(ORGS, scope_tag(trace.scope.org))
            for item in trace.injected:
                pipe.sadd(f"{BY_MEMORY}{item.id}", key)
                pipe.expire(f"{BY_MEMORY}{item.id}", ttl)
            pipe.zcard(indexes[0])
            results = await pipe.execute()
        await self._trim(trace.scope.org, indexes[0], int(results[-1]) - max_count)

    async def _trim(self, org: str, index: str, excess: int) -> None:
        """The org's oldest traces beyond its maximum go, hash and all."""
        if excess <= 0:
            return
        doomed = [text(m) for m in await self._client.zrange(index, 0, excess - 1)]
        if doomed:
            async with self._client.pipeline(transaction=True) as pipe:
                pipe.delete(*(_key(org, d) for d in doomed))
                pipe.zrem(index, *doomed)
                await pipe.execute()

    async def learned(self, request_id: str, ids: LearnedIds, retention: TraceRetention) -> None:
        """What the worker made of a call's job, into the call's trace if it is still kept."""
        if not request_id or len(request_id) > MAX_ID_CHARS:
            return
        args: list[str] = [scope_key(ids.scope), str(int(retention.ttl_s)), self._memory_prefix, BY_MEMORY]
        for name, value, memory_id in ids.fields(datetime.now(UTC)):
            args += [name, value, memory_id]
        await self._learned(keys=[_key(ids.scope.org, request_id)], args=args)

    async def get(self, org: str, request_id: str) -> dict[str, Any] | None:
        try:
            row = await self._client.hgetall(_key(org, request_id))
        except (RedisError, OSError) as exc:
            raise StoreUnavailable(f"could not read the request trace: {exc}") from exc
        return shown(row) if row else None

    async def page(self, query: TraceQuery) -> TracePage:
        """Traces newest first, filtered; ``next_cursor`` while the index holds more."""
        try:
            return await self._page(query)
        except (RedisError, OSError) as exc:
            raise StoreUnavailable(f"could not list the request traces: {exc}") from exc

    async def _page(self, query: TraceQuery) -> TracePage:
        index, member_prefix = _listing_index(query)
        top, skip = _cursor(query.cursor)
        found: list[dict[str, Any]] = []
        position, offset = (int(top) if top != "+inf" else -1, skip), skip
        while len(found) < query.limit:
            chunk: Any = await self._client.zrevrangebyscore(
                index, top, "-inf", start=offset, num=_PAGE, withscores=True
            )
            if not chunk:
                return TracePage(found, None)
            async with self._client.pipeline(transaction=False) as pipe:
                for member, _ in chunk:
                    pipe.hgetall(f"{TRACE_PREFIX}{member_prefix}{text(member)}")
                rows = await pipe.execute()
            for (_, score), row in zip(chunk, rows, strict=True):
                offset += 1
                at = int(score)
                position = (at, position[1] + 1) if at == position[0] else (at, 1)
                if not row:  # expired, trimmed or deleted: its entry goes when the index is trimmed
                    continue
                trace = shown(row)
                if _matches(trace, query):
                    found.append(trace)
                    if len(found) == query.limit:
                        break
        more = await self._client.zrevrangebyscore(index, top, "-inf", start=offset, num=1)
        return TracePage(found, f"{position[0]}.{position[1]}" if more else None)

    async def forget_memories(self, memory_ids: list[str]) -> int:
        """Take deleted memories' ids out of every trace that names them."""
        changed = 0
        try:
            for memory_id in memory_ids:
                holders = await self._client.smembers(f"{BY_MEMORY}{memory_id}")
                for trace_key in holders:
                    changed += int(await self._forget(keys=[text(trace_key)], args=[memory_id]))
                await self._client.delete(f"{BY_MEMORY}{memory_id}")
        except (RedisError, OSError) as exc:
            raise StoreUnavailable(f"could not remove deleted memories from the traces: {exc}") from exc
        return changed

    async def forget_scope(self, org: str | None, level: str, value: str) -> int:
        """Delete the traces of a whole scope (``org`` None: in every org, for an operator)."""
        try:
            orgs = [scope_tag(org)] if org else [text(o) for o in await self._client.smembers(ORGS)]
            deleted = 0
            for tag in orgs:
                deleted += await self._forget_scope(tag, level, value)
            return deleted
        except (RedisError, OSError) as exc:
            raise StoreUnavailable(f"could not delete the scope's traces: {exc}") from exc

    async def _forget_scope(self, org_tag: str, level: str, value: str) -> int:
        org_index = f"{INDEX_PREFIX}{org_tag}"
        if level == "org":
            if scope_tag(value) != org_tag:
                return 0
            index = org_index
        else:
            index = f"{org_index}:{level}:{scope_tag(value)}"
        ids = [text(m) for m in await self._client.zrange(index, 0, -1)]
        async with self._client.pipeline(transaction=True) as pipe:
            for chunk in (ids[i : i + 500] for i in range(0, len(ids), 500)):
                pipe.delete(*(f"{TRACE_PREFIX}{org_tag}:{i}" for i in chunk))
                pipe.zrem(org_index, *chunk)
                pipe.zrem(ALL_INDEX, *(f"{org_tag}:{i}" for i in chunk))
            pipe.delete(index)
            await pipe.execute()
        return len(ids)


def _listing_index(query: TraceQuery) -> tuple[str, str]:
    """The narrowest index for the filters, and what its members need in front to name a trace."""
    if query.org is None:
        return ALL_INDEX, ""
    org = scope_tag(query.org)
    for level in ("session", "user", "project"):
        value = getattr(query, level)
        if value is not None:
            return f"{INDEX_PREFIX}{org}:{level}:{scope_tag(value)}", f"{org}:"
    return f"{INDEX_PREFIX}{org}", f"{org}:"


def _cursor(raw: str | None) -> tuple[str, int]:
    """(newest time in ms, how many at that time were already passed); ValueError if malformed."""
    if raw is None:
        return "+inf", 0
    at, _, skip = raw.partition(".")
    return str(int(at)), int(skip)


def _matches(trace: dict[str, Any], query: TraceQuery) -> bool:
    scope = Scope(**trace["scope"])
    exact = all(
        getattr(query, level) is None or getattr(query, level) == getattr(scope, level) for level in _LEVELS
    )
    return exact and (query.org is None or scope.org == query.org) and query.keep(scope)
