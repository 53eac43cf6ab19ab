"""Deleting memories everywhere they went (``Eraser``), and in-chat forgetting: "forget that we
use yarn" deletes the matching records before recall, so neither this request nor any later one
sees them."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Protocol

from core.errors import StoreError
from core.model import Memory, utcnow
from core.scope import SCOPE_LEVELS, Scope
from extractors.vocabulary import Vocabulary, slots_in
from proxy.memory.embeddings import EmbeddingService
from proxy.memory.erasure import DiskErasure, DiskState
from proxy.memory.ranking import STOPWORDS
from proxy.memory.store import ListQuery, MemoryStore
from proxy.memory.traces import TraceStore

log = logging.getLogger("mnemo.forget")

_WORD = re.compile(r"\w+", re.UNICODE)
_FILLER = STOPWORDS | {"use", "uses", "using", "used", "project", "repo", "please", "memory", "remember"}


class JobPurger(Protocol):
    async def purge(self, fragments: list[str]) -> int: ...


class ErasureBroadcast(Protocol):
    """Tells the other processes what was deleted, so they drop their own caches of it
    (``proxy.memory.erasure_bus.ErasureBus``)."""

    async def publish(self, fragments: list[str]) -> None: ...


MIN_FRAGMENT_CHARS = 6  # shorter quotes would purge unrelated exchanges


@dataclass(frozen=True, slots=True)
class DeletionReceipt:
    """What a deletion removed, for the caller to keep: ids only, never the deleted text.

    ``disk``: whether the store's files no longer hold the text (``done``, at ``disk_erased_at``),
    still do until a rewrite finishes (``pending``), or are not Mnemo's to rewrite (``not_managed``).
    """

    ids: list[str]
    jobs_purged: int
    cached_queries_dropped: int
    at: datetime
    ticket: int = 0  # the store rewrite that takes it off the disk
    disk: DiskState = "pending"
    disk_erased_at: datetime | None = None

    def plus(self, other: DeletionReceipt) -> DeletionReceipt:
        return DeletionReceipt(
            ids=self.ids + other.ids,
            jobs_purged=self.jobs_purged + other.jobs_purged,
            cached_queries_dropped=self.cached_queries_dropped + other.cached_queries_dropped,
            at=other.at,
            ticket=max(self.ticket, other.ticket),
        )

    def to_json(self, max_ids: int | None = None) -> dict[str, Any]:
        """The receipt; a bulk one lists the first ``max_ids`` ids and says it was cut."""
        listed = self.ids if max_ids is None else self.ids[:max_ids]
        return {
            "object": "deletion",
            "deleted": len(self.ids),
            "ids": listed,
            "ids_truncated": len(listed) < len(self.ids),
            "jobs_purged": self.jobs_purged,
            "cached_queries_dropped": self.cached_queries_dropped,
            "deleted_at": self.at.isoformat(),
            "disk": self.disk if self.ids else "done",
            "disk_erased_at": self.disk_erased_at.isoformat() if self.disk_erased_at else None,
        }


class Eraser:
    """Deletes records everywhere they were derived into (DESIGN §2): the record with its vector and
    index entry, its links in the history chain, the behaviour signals that would infer it again
    (all in ``MemoryStore.delete``), extraction jobs still holding its words, the cache of query
    vectors (this process's here, every other process's through the erasure broadcast), and its id
    in the request traces that name it."""

    def __init__(
        self,
        store: MemoryStore,
        queue: JobPurger,
        embeddings: EmbeddingService,
        disk: DiskErasure | None = None,
        broadcast: ErasureBroadcast | None = None,
        traces: TraceStore | None = None,
    ) -> None:
        self.store = store
        self._queue = queue
        self._embeddings = embeddings
        self._disk = disk
        self._broadcast = broadcast
        self._traces = traces

    async def erase(self, memories: list[Memory], actor: str, reason: str) -> DeletionReceipt:
        deleted: list[str] = []
        fragments: list[str] = []
        for memory in memories:
            # read again: an earlier deletion in this batch may have relinked its chain
            current = await self.store.get(memory.id)
            if current is None:
                continue
            await self.store.delete(current, actor=actor, reason=reason)
            deleted.append(current.id)
            fragments += [t for t in (current.text, current.source.span) if len(t) >= MIN_FRAGMENT_CHARS]
        purged = await self._queue.purge(fragments) if fragments else 0
        if deleted and self._traces is not None:
            await self._traces.forget_memories(deleted)
        dropped = self._embeddings.forget(fragments) if fragments else 0
        if fragments and self._broadcast is not None:
            await self._broadcast.publish(fragments)  # the other processes' caches
        ticket = self._disk.request() if deleted and self._disk is not None else 0
        return DeletionReceipt(
            ids=deleted, jobs_purged=purged, cached_queries_dropped=dropped, at=utcnow(), ticket=ticket
        )

    async def settle(self, receipt: DeletionReceipt, wait_s: float) -> DeletionReceipt:
        """The receipt once the store's files are rewritten without the deleted text, or after
        ``wait_s`` with the erasure still pending (``/readyz`` then counts it)."""
        if not receipt.ids or self._disk is None:
            state: DiskState = "done" if not receipt.ids else "not_managed"
            return replace(receipt, disk=state)
        state, at = await self._disk.wait(receipt.ticket, wait_s)
        return replace(receipt, disk=state, disk_erased_at=at)


@dataclass(frozen=True, slots=True)
class ForgetOutcome:
    deleted: list[str] = field(default_factory=list)
    status: str = "ok"


def matches(memory: Memory, slots: list[tuple[str, str]], words: set[str]) -> bool:
    """A slot command matches records of that key and value; otherwise every content word must appear."""
    if slots:
        return any(memory.key == key and _names(memory.value or "", value) for key, value in slots)
    text = {w.lower() for w in _WORD.findall(f"{memory.text} {memory.value or ''}")}
    return bool(words) and words <= text


def _names(stored: str, said: str) -> bool:
    """The stored value is the one named ("postgres" names "postgres 16"; "pnpm" not "pnpm test")."""
    stored_words, said_words = stored.lower().split(), said.lower().split()
    return stored_words[: len(said_words)] == said_words and (
        len(stored_words) == len(said_words) or not stored_words[len(said_words)].isalpha()
    )


async def forget(
    eraser: Eraser,
    vocabulary: Vocabulary,
    scope: Scope,
    requests: list[str],
    actor: str,
    readable: frozenset[str] = frozenset(SCOPE_LEVELS),
) -> ForgetOutcome:
    """Delete what the user asked to forget among the records this request may see (any version)."""
    deleted: list[str] = []
    try:
        for what in requests:
            slots = slots_in(vocabulary, what)
            words = {w.lower() for w in _WORD.findall(what)} - _FILLER
            query = ListQuery(
                org=scope.org,
                visible_to=scope,
                readable=readable,
                key=slots[0][0] if len(slots) == 1 else None,
                limit=1000,
            )
            page = await eraser.store.list_memories(query)
            doomed = [m for m in page.memories if m.id not in deleted and matches(m, slots, words)]
            receipt = await eraser.erase(doomed, actor=actor, reason="forget request in chat")
            deleted += receipt.ids
    except StoreError as exc:
        log.warning("forget degraded: %s", exc)
        return ForgetOutcome(deleted=deleted, status="degraded")
    return ForgetOutcome(deleted=deleted)
