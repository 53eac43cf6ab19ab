"""A deletion reaches every process: the erasure broadcast.

Records live in the store every process shares, but each `mnemo serve` keeps things of its own that
can hold a deleted text: the query vectors of recent requests (``EmbeddingService``'s cache, keyed
by the query text) and the learning jobs it holds while the store is away (``HeldJobs``). The process
that deletes drops its own and publishes the deleted texts on the pub/sub channel ``mnemo:erasures``;
every other process drops the cached queries and held jobs that hold any of them.

Pub/sub keeps nothing: the texts are not written to the store's append-only file, nor kept once
delivered, which is what a deletion wants. The price is that a message published while a process is
not subscribed (the store restarted, the connection dropped, its output buffer overflowed) never
reaches it. So a process clears its whole query cache each time it (re)subscribes: it cannot know
what it missed, and a cache is cheap to refill. A connection that stops answering (no reply to a
ping within ``stale_after_s``) counts as lost. A publish that fails is kept and sent again by the
listener once the store answers.

What pub/sub cannot give: jobs a process holds while it cannot reach the store are not purged by a
deletion made meanwhile in another process (docs/scale-out.md, "Limits").
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import secrets
import socket
import time
from collections import deque
from typing import Any, NoReturn, Protocol

import redis.asyncio as aioredis
from redis.asyncio.client import PubSub
from redis.exceptions import RedisError

log = logging.getLogger("mnemo.erasure_bus")

CHANNEL = "mnemo:erasures"
MESSAGE_VERSION = 1
_MAX_UNSENT = 1024  # broadcasts kept while the store refuses them; the oldest go first


class QueryCache(Protocol):
    """A process's cache of retrieval inputs (``EmbeddingService``)."""

    def forget(self, fragments: list[str]) -> int: ...

    def clear(self) -> int: ...


class HeldJobsCache(Protocol):
    """Jobs a process holds while the store is away (``HeldJobs``)."""

    def purge(self, fragments: list[str]) -> int: ...


class _Lost(Exception):
    """The subscription no longer answers."""


class ErasureBus:
    """Publishes this process's deletions and, in :meth:`listen`, applies the other processes'.

    The counters are this process's: broadcasts received from others, what they dropped here, and how
    often the cache was cleared because the subscription had a gap.
    """

    def __init__(
        self,
        url: str,
        timeout_s: float = 0.5,
        ping_every_s: float = 5.0,
        stale_after_s: float = 15.0,
        tick_s: float = 1.0,
    ) -> None:
        self.origin = f"{socket.gethostname()}-{os.getpid()}-{secrets.token_hex(3)}"
        self._publisher = aioredis.Redis.from_url(
            url, socket_timeout=timeout_s, socket_connect_timeout=timeout_s
        )
        self._listener = aioredis.Redis.from_url(
            url, socket_timeout=stale_after_s, socket_connect_timeout=max(timeout_s, 1.0)
        )
        self._ping_every_s = ping_every_s
        self._stale_after_s = stale_after_s
        self._tick_s = tick_s
        self._unsent: deque[str] = deque(maxlen=_MAX_UNSENT)
        self.subscribed = False
        self._ever_subscribed = False
        self.received = 0  # broadcasts from other processes
        self.queries_dropped = 0  # cached queries they dropped here
        self.jobs_dropped = 0  # held jobs they dropped here
        self.gaps = 0  # re-subscriptions after a loss, each clearing the whole query cache
        self.unsent_lost = 0  # broadcasts that never went out (more than _MAX_UNSENT waited)

    async def close(self) -> None:
        await self._publisher.aclose()
        await self._listener.aclose()

    async def publish(self, fragments: list[str]) -> None:
        """Tell every other process that texts holding any of ``fragments`` were deleted. Never
        raises: a broadcast the store refuses now is sent again by :meth:`listen`."""
        if not fragments:
            return
        message = json.dumps({"v": MESSAGE_VERSION, "from": self.origin, "fragments": fragments})
        if self._unsent:  # in order, after what is already waiting
            self._keep(message)
            return
        try:
            await self._publisher.publish(CHANNEL, message)
        except (RedisError, OSError) as exc:
            log.warning("erasure broadcast not sent (%s); sent again once the store answers", exc)
            self._keep(message)

    def _keep(self, message: str) -> None:
        if len(self._unsent) == self._unsent.maxlen:
            self.unsent_lost += 1
            log.error(
                "erasure broadcast lost: %d wait already; other processes keep their cached queries "
                "until they age out or reconnect",
                len(self._unsent),
            )
        self._unsent.append(message)

    async def _send_unsent(self) -> None:
        while self._unsent:
            await self._publisher.publish(CHANNEL, self._unsent[0])
            self._unsent.popleft()

    async def listen(self, queries: QueryCache, held: HeldJobsCache | None = None) -> None:
        """Runs for the process's life: applies other processes' erasures here, and resubscribes
        with backoff (0.1 s doubling to 5 s) whenever the store goes away."""
        backoff = 0.1
        while True:
            try:
                await self._subscription(queries, held)
            except (RedisError, OSError, _Lost) as exc:
                if self.subscribed:
                    backoff = 0.1
                    log.warning("erasure broadcast: subscription lost (%s); resubscribing", exc)
                self.subscribed = False
            await asyncio.sleep(backoff)
            backoff = min(backoff * 2, 5.0)

    async def _subscription(self, queries: QueryCache, held: HeldJobsCache | None) -> NoReturn:
        """One subscription, until it fails (it never returns otherwise)."""
        pubsub = self._listener.pubsub()
        try:
            await pubsub.subscribe(CHANNEL)
            await self._confirmed(pubsub)
            # Whatever was published while this process was not subscribed is lost to it: clear
            # everything cached, since any of it may hold a text deleted meanwhile.
            cleared = queries.clear()
            if self._ever_subscribed:
                self.gaps += 1
                log.warning("erasure broadcast: resubscribed; %d cached queries cleared", cleared)
            self._ever_subscribed = self.subscribed = True
            heard = pinged = time.monotonic()
            while True:
                await self._send_unsent()
                message: dict[str, Any] | None = await pubsub.get_message(timeout=self._tick_s)
                now = time.monotonic()
                if message is not None:
                    heard = now
                    if message["type"] == "message":
                        self._apply(message["data"], queries, held)
                if now - pinged >= self._ping_every_s:
                    await pubsub.ping()
                    pinged = now
                if now - heard > self._stale_after_s:
                    raise _Lost(f"no answer from the store for {now - heard:.0f} s")
        finally:
            with contextlib.suppress(RedisError, OSError):
                await pubsub.aclose()  # type: ignore[no-untyped-call]  # unannotated in redis-py

    async def _confirmed(self, pubsub: PubSub) -> None:
        deadline = time.monotonic() + self._stale_after_s
        while time.monotonic() < deadline:
            message = await pubsub.get_message(timeout=self._tick_s)
            if message is not None and message["type"] == "subscribe":
                return
        raise _Lost("the subscription was not confirmed")

    def _apply(self, data: bytes | str, queries: QueryCache, held: HeldJobsCache | None) -> None:
        try:
            body = json.loads(data)
            origin = str(body["from"])
            fragments = [str(f) for f in body["fragments"]]
        except (ValueError, KeyError, TypeError) as exc:
            # what it asked to forget is unknown: forget everything this process can
            cleared = queries.clear()
            log.warning(
                "erasure broadcast: unreadable message (%s); %d cached queries cleared",
                type(exc).__name__,
                cleared,
            )
            return
        if origin == self.origin:
            return  # the Eraser already dropped this process's own
        dropped = queries.forget(fragments)
        purged = held.purge(fragments) if held is not None else 0
        self.received += 1
        self.queries_dropped += dropped
        self.jobs_dropped += purged
        log.info("erasure from %s: %d cached queries and %d held jobs dropped here", origin, dropped, purged)
