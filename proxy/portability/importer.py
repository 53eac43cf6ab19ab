"""Import: lines checked one by one (``parse_record``) and written in batches, so memory stays
bounded by the batch, not the file. Idempotent: a record whose id is already stored, or an active
fact already held in the same scope, is counted as merged and left alone."""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from core.model import Memory, Status, slot_key, utcnow
from core.scope import Principal, Scope
from policies.secrets import SecretScanner
from proxy.memory.embeddings import EmbeddingService, Vectors
from proxy.memory.store import MemoryStore
from proxy.portability.lines import (
    MAX_LINE_BYTES,
    Rejected,
    decode_line,
    parse_record,
    refingerprinted,
    stored_vector,
)
from proxy.signing import is_trailer

IMPORT_BATCH = 256
EMBED_BATCH = 32  # the model's working memory grows with the batch; 32 is as fast as 256 here
MAX_REJECTIONS_LISTED = 100


@dataclass(slots=True)
class ImportReport:
    imported: int = 0
    merged: int = 0
    rejected: int = 0
    reembedded: int = 0
    reconciled: int = 0  # current facts that met another current value of their slot
    reasons: Counter[str] = field(default_factory=Counter)
    rejections: list[dict[str, Any]] = field(default_factory=list)

    def reject(self, line_no: int, reason: str) -> None:
        self.rejected += 1
        self.reasons[reason.split(":")[0]] += 1
        if len(self.rejections) < MAX_REJECTIONS_LISTED:
            self.rejections.append({"line": line_no, "reason": reason})

    def to_json(self) -> dict[str, Any]:
        return {
            "object": "import",
            "imported": self.imported,
            "merged": self.merged,
            "rejected": self.rejected,
            "reembedded": self.reembedded,
            "reconciled": self.reconciled,
            "rejected_by_reason": dict(self.reasons),
            "rejections": self.rejections,
        }


@dataclass(frozen=True, slots=True)
class ParsedLine:
    line_no: int
    memory: Memory
    vector: Any  # the line's base64 embedding, if any
    line_model: str | None


class Importer:
    """Writes parsed lines in batches: duplicates merged, vectors re-made when the model differs,
    and a current fact that meets another current value of its slot closed or closing it by time."""

    def __init__(
        self,
        store: MemoryStore,
        embeddings: EmbeddingService,
        principal: Principal,
        secrets: SecretScanner,
        dry_run: bool = False,
        now: Callable[[], datetime] = utcnow,
        keep_ids: bool = True,
    ) -> None:
        # keep_ids off (a key of one org among many): each id is taken into the key's org, so that
        # whether an id is held by another org changes nothing a caller can see
        self._keep_ids = keep_ids
        self._store = store
        self._embeddings = embeddings
        self._principal = principal
        self._secrets = secrets
        self._dry_run = dry_run
        self._now = now
        self._batch: list[ParsedLine] = []
        self._seen_ids: set[str] = set()
        self.report = ImportReport()
        self._line_no = 0

    async def feed(self, line: bytes) -> None:
        self._line_no += 1
        if not line.strip():
            return
        try:
            raw = decode_line(line)
            if is_trailer(raw):
                return  # a signed export's digests and manifest: checked by the CLI, not records
            memory = parse_record(raw, self._line_no, self._now(), self._secrets)
        except Rejected as exc:
            self.report.reject(self._line_no, str(exc))
            return
        if not self._principal.admin:
            memory = refingerprinted(memory.with_changes(scope=_in_org(memory.scope, self._principal.org)))
        if not self._keep_ids:
            memory = _ids_in_org(memory, self._principal.org)
        if not self._principal.may_change(memory.scope):
            self.report.reject(self._line_no, f"forbidden: this key may not write {memory.scope.label()}")
            return
        if memory.id in self._seen_ids:
            self.report.merged += 1
            return
        self._seen_ids.add(memory.id)
        if len(self._seen_ids) > 100_000:  # bounded: a repeat further apart is caught by the store
            self._seen_ids.clear()
        line_vector, line_model = raw.get("embedding"), raw.get("embedding_model")
        self._batch.append(ParsedLine(self._line_no, memory, line_vector, line_model))
        if len(self._batch) >= IMPORT_BATCH:
            await self.flush()

    async def flush(self) -> None:
        batch, self._batch = self._batch, []
        if not batch:
            return
        existing = await self._store.get_many([item.memory.id for item in batch])
        fresh = [item for item in batch if item.memory.id not in existing]
        self.report.merged += len(batch) - len(fresh)
        fresh = await self._merge_same_facts(fresh)
        if not fresh:
            return
        model, dims = self._embeddings.model_id, self._embeddings.embedder.dims
        vectors: list[Vectors | None] = [
            stored_vector(item.vector, item.line_model, model, dims) for item in fresh
        ]
        missing = [i for i, vector in enumerate(vectors) if vector is None]
        for start in range(0, len(missing), EMBED_BATCH):
            chunk = missing[start : start + EMBED_BATCH]
            made = await self._embeddings.embed_many([fresh[i].memory.text for i in chunk])
            for i, vector in zip(chunk, made, strict=True):
                vectors[i] = vector
            self.report.reembedded += len(chunk)
        memories = await self._reconcile_batch([i.memory.with_changes(embedding_model=model) for i in fresh])
        writes = [(m, vector) for m, vector in zip(memories, vectors, strict=True) if vector is not None]
        if not self._dry_run:
            await self._store.put_many(writes)
        self.report.imported += len(writes)

    async def _merge_same_facts(self, items: list[ParsedLine]) -> list[ParsedLine]:
        """An active fact the store already holds in the same scope (another id) is merged."""
        current = [item.memory for item in items if _is_current(item.memory)]
        held = await self._store.current_by_fingerprint([m.fingerprint for m in current])
        kept: list[ParsedLine] = []
        for item in items:
            same = held.get(item.memory.fingerprint) if _is_current(item.memory) else None
            if same is not None and same.scope == item.memory.scope:
                self.report.merged += 1
            else:
                kept.append(item)
        return kept

    async def _reconcile_batch(self, memories: list[Memory]) -> list[Memory]:
        slots = {m.id: slot_key(m.scope, m.key, m.qualifier) for m in memories if m.key and _is_current(m)}
        held = await self._store.current_by_slot(list(set(slots.values())))
        return [
            await self._reconcile(memory, held.get(slots[memory.id])) if memory.id in slots else memory
            for memory in memories
        ]

    async def _reconcile(self, memory: Memory, other: Memory | None) -> Memory:
        """One current value per slot: the later one (by when it applies) stays current."""
        if other is None or other.id == memory.id:
            return memory
        self.report.reconciled += 1
        mine = memory.valid_from or memory.observed_at
        theirs = other.valid_from or other.observed_at
        if mine >= theirs:
            if not self._dry_run:
                await self._store.close_version(other, superseded_by=memory.id, valid_to=mine)
            return memory if memory.supersedes else memory.with_changes(supersedes=other.id)
        return memory.with_changes(
            status=Status.SUPERSEDED,
            valid_to=theirs,
            superseded_by=memory.superseded_by or other.id,
        )


def org_id(org: str, memory_id: str) -> str:
    """An imported id as the key's org holds it: the same for the same org and id (a second import
    merges), unrelated to whether any other org holds that id."""
    return "o" + hashlib.sha256(f"{org}\x00{memory_id}".encode()).hexdigest()[:25]


def _ids_in_org(memory: Memory, org: str) -> Memory:
    def mapped(value: str | None) -> str | None:
        return org_id(org, value) if value else None

    return memory.with_changes(
        id=org_id(org, memory.id),
        supersedes=mapped(memory.supersedes),
        superseded_by=mapped(memory.superseded_by),
    )


def _is_current(memory: Memory) -> bool:
    return memory.status is Status.ACTIVE and memory.valid_to is None


def _in_org(scope: Scope, org: str) -> Scope:
    return Scope(org=org, project=scope.project, user=scope.user, session=scope.session)


async def import_lines(chunks: AsyncIterator[bytes], importer: Importer) -> ImportReport:
    """Split a streamed body into lines and feed them; only one partial line is held at a time."""
    pending = b""
    skipping = False  # inside a line already rejected as too long
    async for chunk in chunks:
        pending += chunk
        *lines, pending = pending.split(b"\n")
        for line in lines:
            if skipping:
                skipping = False
                continue
            await importer.feed(line)
        if len(pending) > MAX_LINE_BYTES and not skipping:
            await importer.feed(pending)  # rejected as too long
            skipping, pending = True, b""
        elif skipping:
            pending = b""
    if pending and not skipping:
        await importer.feed(pending)
    await importer.flush()
    return importer.report
