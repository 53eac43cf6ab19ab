"""The store interface and its query objects. One implementation today: ``RedisMemoryStore``."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol

from proxy.memory.embeddings import Vectors
from proxy.memory.model import Evidence, Kind, Memory, Status
from proxy.scope import SCOPE_LEVELS, Scope


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


@dataclass(frozen=True, slots=True)
class ScoredMemory:
    memory: Memory
    score: float
    similarity: float | None = None  # cosine similarity of the vector match, if it matched


@dataclass(frozen=True, slots=True)
class ListQuery:
    """Filters for listing records. Scope levels match exactly; ``visible_to`` applies DESIGN §3 instead."""

    org: str | None = None
    project: str | None = None
    user: str | None = None
    session: str | None = None
    visible_to: Scope | None = None
    readable: frozenset[str] = frozenset(SCOPE_LEVELS)
    key: str | None = None
    kinds: tuple[Kind, ...] = ()
    evidence: tuple[Evidence, ...] = ()
    statuses: tuple[Status, ...] = ()
    limit: int = 100
    offset: int = 0


@dataclass(frozen=True, slots=True)
class ListPage:
    memories: list[Memory]
    total: int
    next_offset: int | None = None
    extra: dict[str, str] = field(default_factory=dict)


class MemoryStore(Protocol):
    async def open(self) -> None:
        """Create or check the index; refuse an index built by another embedding model."""

    async def close(self) -> None: ...

    async def ping(self) -> None: ...

    async def recall(self, query: RecallQuery) -> list[ScoredMemory]: ...

    async def visible_current(
        self, scope: Scope, limit: int, readable: frozenset[str] = frozenset(SCOPE_LEVELS)
    ) -> list[Memory]: ...

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
