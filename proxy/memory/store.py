"""The store interface and its query objects. One implementation today: ``RedisMemoryStore``."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol

from core.model import Evidence, Kind, Memory, Status
from core.scope import SCOPE_LEVELS, Scope
from proxy.memory.audit_chain import Verification
from proxy.memory.embeddings import Vectors


@dataclass(frozen=True, slots=True)
class RecallQuery:
    """Find what one request may see and what is relevant to it."""

    scope: Scope  # the request's context; visibility is derived from it inside the store's query
    text: str
    vector: Vectors | None
    limit: int = 12
    candidates: int = 24
    text_weight: float = 0.6
    vector_weight: float = 0.4
    readable: frozenset[str] = frozenset(SCOPE_LEVELS)  # levels the principal may read
    standing: bool | None = None  # only standing records (True), only the others (False), or all


@dataclass(frozen=True, slots=True)
class ScoredMemory:
    memory: Memory
    score: float
    similarity: float | None = None  # cosine similarity of the vector match, if it matched
    keyword_rank: int | None = None  # rank in the keyword (BM25) results, if it matched words of the query


@dataclass(frozen=True, slots=True)
class Cursor:
    """Where a page ended, in the listing order (newest ``observed_at`` first, then id descending).

    Keyed on the last record's time (in microseconds) rather than a count from the start, so
    records written meanwhile neither repeat nor go missing from the pages still to come. Many
    records can share one time (imports write in bursts, some clocks tick coarsely), so the cursor
    also says how many of those at exactly that time were already returned; they sort by id.
    """

    micros: int
    skip: int = 0

    def encode(self) -> str:
        return f"{self.micros}_{self.skip}"

    @classmethod
    def decode(cls, raw: str) -> Cursor:
        micros, sep, skip = raw.partition("_")
        if not (sep and micros.isdigit() and skip.isdigit()):
            raise ValueError(f"not a cursor this server issued: {raw!r}")
        return cls(micros=int(micros), skip=int(skip))


@dataclass(frozen=True, slots=True)
class ListQuery:
    """Filters for listing records. Scope levels match exactly; ``visible_to`` applies DESIGN §3 instead.

    ``readable`` (levels) and ``projects`` (None: any) are the principal's limits: records it may
    not read are filtered out inside the query, whatever else is asked for.
    """

    org: str | None = None
    project: str | None = None
    user: str | None = None
    session: str | None = None
    visible_to: Scope | None = None
    readable: frozenset[str] = frozenset(SCOPE_LEVELS)
    projects: frozenset[str] | None = None
    users: frozenset[str] | None = None  # the principal's users (None: any); user-less records pass
    key: str | None = None
    kinds: tuple[Kind, ...] = ()
    evidence: tuple[Evidence, ...] = ()
    statuses: tuple[Status, ...] = ()
    text_contains: str | None = None  # every word of it, in order, case-insensitive (stemmed)
    observed_after: datetime | None = None  # inclusive
    observed_before: datetime | None = None  # exclusive
    limit: int = 100
    offset: int = 0
    after: Cursor | None = None  # continue after this record (takes precedence over offset)


@dataclass(frozen=True, slots=True)
class ListPage:
    memories: list[Memory]
    total: int  # matching records in all pages (not counting the cursor)
    next_offset: int | None = None
    next_cursor: Cursor | None = None
    extra: dict[str, str] = field(default_factory=dict)


class MemoryStore(Protocol):
    async def open(self) -> None:
        """Create or check the index; refuse an index built by another embedding model."""

    async def close(self) -> None: ...

    async def ping(self) -> None: ...

    async def recall(self, query: RecallQuery) -> list[ScoredMemory]: ...

    async def visible_current(
        self,
        scope: Scope,
        limit: int,
        readable: frozenset[str] = frozenset(SCOPE_LEVELS),
        standing: bool | None = None,
        keys: list[str] | None = None,
    ) -> list[Memory]:
        """Up to ``limit`` current records a request may see, newest first; only the standing ones
        (``True``) or only the others (``False``); only those filling one of ``keys``."""
        ...

    async def put(self, memory: Memory, vector: Vectors) -> None: ...

    async def find_by_fingerprint(self, scope: Scope, fingerprint: str) -> Memory | None: ...

    async def mark_seen(
        self, memory: Memory, confidence: float | None = None, expires_at: datetime | None = None
    ) -> Memory: ...

    async def current_in_slot(self, slot: str) -> Memory | None: ...

    async def supersede(
        self, old: Memory, new: Memory, vector: Vectors, old_expires_at: datetime | None = None
    ) -> Memory: ...

    async def history(self, memory: Memory) -> list[Memory]: ...

    async def nearest_in_scope(self, scope: Scope, kind: str, vector: Vectors) -> ScoredMemory | None: ...

    async def get(self, memory_id: str) -> Memory | None: ...

    async def audit(self, org: str, limit: int = 100) -> list[dict[str, str]]: ...

    async def set_control(self, org: str, level: str, value: str, state: str | None, actor: str) -> None: ...

    async def controls(self, scope: Scope) -> set[str]: ...

    async def observe(self, slot: str, value: str, session: str, ttl_s: int) -> int: ...

    async def delete(self, memory: Memory, actor: str, reason: str) -> None:
        """Remove the record and its vector, relink its history chain, and audit it without its text."""

    async def list_memories(self, query: ListQuery) -> ListPage: ...

    async def count(self, query: ListQuery) -> int: ...

    async def get_many(self, memory_ids: list[str]) -> dict[str, Memory]: ...

    async def current_by_fingerprint(self, fingerprints: list[str]) -> dict[str, Memory]:
        """The current active record holding each fingerprint, if any (one query for all)."""

    async def current_by_slot(self, slots: list[str]) -> dict[str, Memory]:
        """The current active record of each slot, if any (one query for all)."""

    async def vectors(self, memory_ids: list[str]) -> dict[str, bytes]:
        """The stored float32 vectors of records, by id (absent ids left out)."""

    async def put_many(self, items: list[tuple[Memory, Vectors]]) -> None:
        """Write records as they are (import): ids, links and versions kept."""

    async def close_version(self, memory: Memory, superseded_by: str | None, valid_to: datetime) -> None:
        """Mark a record no longer current (a newer version exists) without touching its text."""

    async def set_extra(
        self, memory: Memory, extra: dict[str, object], expires_at: datetime | None, actor: str
    ) -> Memory:
        """Change a record's metadata in place (pinning); not a correction, so no new version."""

    async def record_audit(self, org: str, actor: str, action: str, **fields: str) -> None:
        """Append an entry to the audit hash chain (``proxy/memory/audit_chain.py``)."""

    async def verify_audit(self) -> Verification:
        """Walk the audit chain: how many entries hold, or the first altered or removed one."""
        ...
