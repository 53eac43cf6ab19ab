"""Deleted text leaves the disk too.

The store writes every command to its append-only file; a deleted record, and the job that carried
its words, stay in that file until it is rewritten. A deletion asks for a rewrite (``BGREWRITEAOF``)
and may wait for it: one rewrite serves every deletion made before it started, so a burst of
deletions costs one rewrite. A store kept without an append-only file but with snapshots gets a
``BGSAVE`` instead; a store that refuses both (a managed Redis) is reported as not managed here.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from datetime import datetime
from typing import Any, Literal

import redis.asyncio as aioredis
from redis.exceptions import RedisError, ResponseError

from core.model import utcnow

log = logging.getLogger("mnemo.erasure")

DiskState = Literal["done", "pending", "not_managed"]
_POLL_S = 0.05


class DiskErasure:
    def __init__(self, url: str, timeout_s: float = 30.0) -> None:
        self._client = aioredis.Redis.from_url(
            url, socket_timeout=timeout_s, socket_connect_timeout=timeout_s
        )
        self._wanted = asyncio.Event()
        self._changed = asyncio.Condition()
        self._next = 1  # the rewrite that will serve a deletion made now
        self._requested = 0  # the latest rewrite a deletion waits for
        self._completed = 0  # the last rewrite finished
        self._completed_at: datetime | None = None
        self.managed = True  # False once the store refuses to rewrite or snapshot (a managed Redis)

    @property
    def pending(self) -> int:
        """Rewrites owed to deletions already made."""
        return max(0, self._requested - self._completed) if self.managed else 0

    def request(self) -> int:
        """A ticket for the rewrite that will carry this deletion to the disk."""
        self._wanted.set()
        self._requested = max(self._requested, self._next)
        return self._next

    async def wait(self, ticket: int, timeout_s: float) -> tuple[DiskState, datetime | None]:
        """Whether the rewrite for ``ticket`` has finished, waiting at most ``timeout_s``."""
        if not self.managed:
            return "not_managed", None
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout_s), self._changed:
                await self._changed.wait_for(lambda: self._completed >= ticket or not self.managed)
        if not self.managed:
            return "not_managed", None
        return ("done", self._completed_at) if self._completed >= ticket else ("pending", None)

    async def run(self) -> None:
        """The background loop: rewrite whenever deletions are waiting, one rewrite at a time."""
        while True:
            await self._wanted.wait()
            self._wanted.clear()
            serving = self._next
            self._next += 1
            try:
                done = await self._rewrite()
            except RedisError as exc:
                log.warning("disk erasure failed, retried in 5 s: %s", exc)
                self._next = serving  # requests made meanwhile ride on the retry too
                self._wanted.set()
                await asyncio.sleep(5)
                continue
            async with self._changed:
                if done:
                    self._completed, self._completed_at = serving, utcnow()
                else:
                    self.managed = False
                self._changed.notify_all()

    async def _rewrite(self) -> bool:
        """Rewrite the append-only file (or take a snapshot) and wait until it is on disk. False when
        the store does neither for us."""
        info = await self._persistence()
        if int(info.get("aof_enabled", 0)):
            before = int(info.get("aof_rewrites", 0))
            await self._idle("aof")  # one already running began before our deletion: wait it out
            before = int((await self._persistence()).get("aof_rewrites", before))
            if not await self._command("BGREWRITEAOF"):
                return False
            await self._idle("aof", lambda i: int(i.get("aof_rewrites", 0)) > before)
            return str((await self._persistence()).get("aof_last_bgrewrite_status", "ok")) == "ok"
        if await self._config("save"):
            await self._idle("rdb")
            if not await self._command("BGSAVE"):
                return False
            await self._idle("rdb")
            return str((await self._persistence()).get("rdb_last_bgsave_status", "ok")) == "ok"
        return True  # nothing of the store is kept on disk

    async def _command(self, name: str) -> bool:
        try:
            if name == "BGREWRITEAOF":
                await self._client.bgrewriteaof()
            else:
                await self._client.bgsave()
        except ResponseError as exc:
            text = str(exc).lower()
            if "in progress" in text or "scheduled" in text:
                return True
            log.warning("the store refused %s: %s; disk erasure is not managed by Mnemo", name, exc)
            return False
        return True

    async def _idle(self, kind: str, also: Any = None) -> None:
        while True:
            info = await self._persistence()
            busy = (
                int(info.get("aof_rewrite_in_progress", 0)) or int(info.get("aof_rewrite_scheduled", 0))
                if kind == "aof"
                else int(info.get("rdb_bgsave_in_progress", 0))
            )
            if not busy and (also is None or also(info)):
                return
            await asyncio.sleep(_POLL_S)

    async def _persistence(self) -> dict[str, Any]:
        info: dict[str, Any] = await self._client.info("persistence")
        return info

    async def _config(self, name: str) -> str:
        try:
            value = await self._client.config_get(name)
        except ResponseError:
            return ""
        return str(value.get(name, "") or "")

    async def close(self) -> None:
        await self._client.aclose()
