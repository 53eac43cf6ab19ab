"""The audit log as a hash chain (issue 16): each entry of the ``mnemo:audit`` stream holds ``seq``
(its place, from 1), ``prev`` (the digest of the entry before it) and ``digest`` (sha256 of the
canonical JSON of all its other fields, ``prev`` and ``seq`` included). A head key holds the last
``seq`` and ``digest``, and the anchor the chain now starts from once old entries are trimmed.

An entry is appended in the same MULTI as the change it records, under WATCH of the head key, so
two writers never chain onto the same entry; a writer that lost the race reads the head again.
``verify`` walks the stream and names the first entry that no longer fits: altered (its digest),
removed (a gap in ``seq``, a ``prev`` that points elsewhere, or an end before the head's).
"""

from __future__ import annotations

import asyncio
import hashlib
import random
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import redis.asyncio as aioredis
from redis.exceptions import RedisError, WatchError

from core.errors import StoreUnavailable
from core.model import canonical_json

AUDIT_HEAD = "mnemo:audit:head"
GENESIS = "0" * 64  # the prev of the first entry ever
CHAIN_FIELDS = ("seq", "prev", "digest")
MAX_ATTEMPTS = 100
VERIFY_PAGE = 1000

Queue = Callable[[Any], None]  # queues the recorded change's commands on the MULTI pipeline


def text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def entry_digest(fields: dict[str, str]) -> str:
    """sha256 (hex) of an entry's canonical JSON: every field but ``digest`` itself."""
    body = {name: value for name, value in fields.items() if name != "digest"}
    return hashlib.sha256(canonical_json(body)).hexdigest()


@dataclass(slots=True)
class _Head:
    seq: int = 0
    digest: str = GENESIS
    anchor_seq: int = 0
    anchor_digest: str = GENESIS
    start_after: str = ""  # the last entry written before the chain began (not chained)

    @classmethod
    def read(cls, raw: dict[Any, Any]) -> _Head:
        row = {text(k): text(v) for k, v in raw.items()}
        return cls(
            seq=int(row.get("seq", 0)),
            digest=row.get("digest", GENESIS),
            anchor_seq=int(row.get("anchor_seq", 0)),
            anchor_digest=row.get("anchor_digest", GENESIS),
            start_after=row.get("start_after", ""),
        )


async def append(
    client: aioredis.Redis, stream: str, entry: dict[str, str], maxlen: int, queue: Queue | None = None
) -> dict[str, str]:
    """Append ``entry`` to the chain in one transaction with the change ``queue`` queues; trims the
    oldest entries past ``maxlen`` (with some slack) and moves the anchor to the last one trimmed.

    One append at a time per client: WATCH holds a connection for several round trips, and writers
    of one process racing each other would only retry (200 at once emptied the pool of 64). Other
    processes are kept apart by WATCH."""
    lock = _LOCKS.setdefault(client, asyncio.Lock())
    async with lock:
        return await _append(client, stream, entry, maxlen, queue)


_LOCKS: weakref.WeakKeyDictionary[aioredis.Redis, asyncio.Lock] = weakref.WeakKeyDictionary()


async def _append(
    client: aioredis.Redis, stream: str, entry: dict[str, str], maxlen: int, queue: Queue | None
) -> dict[str, str]:
    for _ in range(MAX_ATTEMPTS):
        try:
            async with client.pipeline(transaction=True) as pipe:
                await pipe.watch(AUDIT_HEAD)
                raw_head = await pipe.hgetall(AUDIT_HEAD)
                head = _Head.read(raw_head) if raw_head else await _start(pipe, stream)
                fresh = not raw_head
                trimmed = await _to_trim(pipe, stream, maxlen)
                chained = {**entry, "seq": str(head.seq + 1), "prev": head.digest}
                chained["digest"] = entry_digest(chained)
                pipe.multi()  # type: ignore[no-untyped-call]
                if queue is not None:
                    queue(pipe)
                pipe.xadd(stream, chained)  # type: ignore[arg-type]
                pipe.hset(AUDIT_HEAD, mapping={"seq": chained["seq"], "digest": chained["digest"]})
                if fresh:
                    pipe.hset(AUDIT_HEAD, mapping={"start_after": head.start_after})
                if trimmed is not None:
                    pipe.xtrim(stream, maxlen=maxlen, approximate=False)
                    anchor = _anchor(trimmed)
                    if anchor is not None:
                        pipe.hset(AUDIT_HEAD, mapping={"anchor_seq": anchor[0], "anchor_digest": anchor[1]})
                await pipe.execute()
                return chained
        except WatchError:
            await asyncio.sleep(random.uniform(0, 0.005))  # another writer chained first: read again
        except (RedisError, OSError) as exc:
            raise StoreUnavailable(f"write failed: {exc}") from exc
    raise StoreUnavailable("write failed: the audit chain stayed busy")


async def _start(pipe: Any, stream: str) -> _Head:
    """No head yet: the chain starts after the entries already there (written before chaining).
    If the last of them is chained, the head was lost: go on from it, and let ``verify`` judge."""
    last = await pipe.xrevrange(stream, count=1)
    if not last:
        return _Head()
    fields = {text(k): text(v) for k, v in (last[0][1] or {}).items()}
    if fields.get("seq", "").isdigit() and "digest" in fields:
        return _Head(seq=int(fields["seq"]), digest=fields["digest"])
    return _Head(start_after=text(last[0][0]))


async def _to_trim(pipe: Any, stream: str, maxlen: int) -> list[Any] | None:
    """The oldest entries the next append pushes out, read once the stream is past its slack."""
    length = int(await pipe.xlen(stream)) + 1
    if length <= maxlen + max(1, maxlen // 100):
        return None
    return list(await pipe.xrange(stream, count=length - maxlen))


def _anchor(trimmed: list[Any]) -> tuple[str, str] | None:
    """The last chained entry among those trimmed: the chain now starts after it."""
    for _, raw in reversed(trimmed):
        fields = {text(k): text(v) for k, v in (raw or {}).items()}
        if "seq" in fields and "digest" in fields:
            return fields["seq"], fields["digest"]
    return None


@dataclass(slots=True)
class Verification:
    """What ``verify`` found: ``broken`` is None when every link holds."""

    entries: int = 0  # chained entries checked
    unchained: int = 0  # entries written before the chain began
    first_seq: int | None = None
    last_seq: int | None = None
    broken: dict[str, str] | None = None  # entry (stream id), seq, problem

    def to_json(self) -> dict[str, Any]:
        return {
            "object": "audit_verification",
            "intact": self.broken is None,
            "entries": self.entries,
            "unchained": self.unchained,
            "first_seq": self.first_seq,
            "last_seq": self.last_seq,
            "broken": self.broken,
        }


class _Walk:
    """The chain as read so far: what the next entry must say."""

    def __init__(self, head: _Head) -> None:
        self.head = head
        self.seq = head.anchor_seq
        self.digest = head.anchor_digest
        self.found = Verification()

    def step(self, entry_id: str, fields: dict[str, str]) -> str | None:
        """Check one entry; the problem, if it breaks the chain."""
        if self.head.start_after and _id_key(entry_id) <= _id_key(self.head.start_after):
            self.found.unchained += 1
            return None
        if "digest" not in fields or "seq" not in fields or "prev" not in fields:
            return "not chained: its seq, prev or digest is missing (an entry was replaced)"
        if entry_digest(fields) != fields["digest"]:
            return "altered: its fields no longer match its digest"
        seq = int(fields["seq"]) if fields["seq"].isdigit() else -1
        if seq != self.seq + 1:
            if seq > self.seq + 1:
                gone = f"{self.seq + 1}" if seq == self.seq + 2 else f"{self.seq + 1} to {seq - 1}"
                return f"seq {seq} follows seq {self.seq}: entry seq {gone} was removed"
            return f"seq {seq} out of order after seq {self.seq}"
        if fields["prev"] != self.digest:
            return f"prev does not match the digest of seq {self.seq}: the entry before it was altered"
        self.seq, self.digest = seq, fields["digest"]
        self.found.entries += 1
        self.found.first_seq = self.found.first_seq or seq
        self.found.last_seq = seq
        return None

    def end(self) -> str | None:
        if self.head.seq == 0 and self.seq > 0:
            return f"the chain's head is missing: {self.seq} entries and no record of the last one"
        if self.seq > self.head.seq:
            return f"the chain ends at seq {self.seq} but only {self.head.seq} were written"
        if self.seq < self.head.seq:
            return f"the chain ends at seq {self.seq} but {self.head.seq} were written: the last were removed"
        if self.seq == self.head.seq and self.digest != self.head.digest:
            return f"the last entry (seq {self.seq}) is not the one written last"
        return None


def _id_key(entry_id: str) -> tuple[int, int]:
    ms, _, seq = entry_id.partition("-")
    return int(ms), int(seq or 0)


async def verify(client: aioredis.Redis, stream: str) -> Verification:
    """Walk the whole stream, oldest first; stop at the first entry that breaks the chain."""
    try:
        walk = _Walk(_Head.read(await client.hgetall(AUDIT_HEAD)))
        start = "-"
        while True:
            page: Any = await client.xrange(stream, min=start, count=VERIFY_PAGE)
            for raw_id, raw in page:
                entry_id = text(raw_id)
                fields = {text(k): text(v) for k, v in (raw or {}).items()}
                problem = walk.step(entry_id, fields)
                if problem is not None:
                    walk.found.broken = {"entry": entry_id, "seq": fields.get("seq", ""), "problem": problem}
                    return walk.found
            if len(page) < VERIFY_PAGE:
                break
            start = "(" + text(page[-1][0])
    except (RedisError, OSError) as exc:
        raise StoreUnavailable(f"read failed: {exc}") from exc
    problem = walk.end()
    if problem is not None:
        walk.found.broken = {"entry": "(end)", "seq": str(walk.head.seq), "problem": problem}
    return walk.found
