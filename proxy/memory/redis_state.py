"""What the store keeps besides the records: per-scope controls (pause, disable), behaviour
signals counted per session, and the audit stream. None of it holds a record's text."""

from __future__ import annotations

from typing import Any

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from core.errors import StoreUnavailable
from core.model import to_epoch, utcnow
from core.scope import Scope, scope_tag
from proxy.memory import audit_chain

SIGNAL_PREFIX = "mnemo:signal:"
CONTROL_PREFIX = "mnemo:control:"
AUDIT_STREAM = "mnemo:audit"  # who did what to which record, and when; never the record's text
AUDIT_MAXLEN = 100_000


def text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def audit_entry(action: str, org: str, actor: str, **fields: str) -> dict[str, str]:
    return {"action": action, "org": org, "actor": actor, "at": str(to_epoch(utcnow())), **fields}


class RedisScopeState:
    """Mixed into the Redis store; uses its client."""

    _client: aioredis.Redis
    audit_maxlen: int = AUDIT_MAXLEN

    async def observe(self, slot: str, value: str, session: str, ttl_s: int) -> int:
        """Count a behaviour signal for a slot and value once per session; how many sessions so far."""
        key = f"{SIGNAL_PREFIX}{slot}:{value.lower()}"
        try:
            async with self._client.pipeline(transaction=True) as pipe:
                pipe.sadd(key, session)
                pipe.expire(key, ttl_s)
                pipe.scard(key)
                *_, count = await pipe.execute()
        except (RedisError, OSError) as exc:
            raise StoreUnavailable(f"write failed: {exc}") from exc
        return int(count)

    def _control_key(self, org: str, level: str, value: str) -> str:
        return f"{CONTROL_PREFIX}{scope_tag(org)}:{level}:{scope_tag(value)}"

    async def set_control(self, org: str, level: str, value: str, state: str | None, actor: str) -> None:
        """Pause or disable memory for one scope (``state``), or resume it (None)."""
        key = self._control_key(org, level, value)
        entry = audit_entry(state or "resume", org, actor, level=level, scope_tag=scope_tag(value))

        def queue(pipe: Any) -> None:
            if state is None:
                pipe.delete(key)
            else:
                pipe.set(key, state)

        await audit_chain.append(self._client, AUDIT_STREAM, entry, self.audit_maxlen, queue)

    async def controls(self, scope: Scope) -> set[str]:
        """The states set on any level of a request's scope ("paused", "disabled")."""
        keys = [
            self._control_key(scope.org, level, value)
            for level, value in scope.as_dict().items()
            if value is not None
        ]
        try:
            values = await self._client.mget(keys)
        except (RedisError, OSError) as exc:
            raise StoreUnavailable(f"read failed: {exc}") from exc
        return {text(v) for v in values if v}

    async def audit(self, org: str, limit: int = 100) -> list[dict[str, str]]:
        """The newest audit entries of an org: who did what to which record, and when; no text."""
        try:
            entries = await self._client.xrevrange(AUDIT_STREAM, count=limit * 4)
        except (RedisError, OSError) as exc:
            raise StoreUnavailable(f"read failed: {exc}") from exc
        rows = [{text(k): text(v) for k, v in (fields or {}).items()} for _, fields in entries or []]
        return [row for row in rows if row.get("org") == org][:limit]
