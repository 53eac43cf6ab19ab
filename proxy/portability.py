"""Export and import: memory as JSON Lines, one self-contained record per line (DESIGN §4).

Each line is ``Memory.to_json()``: every field including provenance and ``schema_version``, plus
the vector as base64 float32 when asked for (``embedding``, with ``embedding_model`` saying whose).
Lines stand alone, so files can be split, concatenated and imported in any order.

Import checks each line on its own (``parse_record``, a pure function) and writes in batches, so
memory stays bounded by the batch, not the file. It is idempotent: a record whose id is already
stored, or an active fact already held in the same scope, is counted as merged and left alone.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import re
from collections import Counter
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any, TypeVar

import numpy as np

from core.model import SCHEMA_VERSION, Evidence, Kind, Memory, Source, Status, slot_key, utcnow
from core.scope import MAX_SCOPE_VALUE_CHARS, Principal, Scope
from policies import fingerprint
from policies.secrets import SecretScanner, contains_secret
from proxy.memory.embeddings import EmbeddingService, Vectors
from proxy.memory.store import ListQuery, MemoryStore

EXPORT_PAGE = 500
IMPORT_BATCH = 256
EMBED_BATCH = 32  # the model's working memory grows with the batch; 32 is as fast as 256 here
MAX_LINE_BYTES = 64 * 1024
MAX_TEXT_CHARS = 4000
MAX_REJECTIONS_LISTED = 100

_ID = re.compile(r"^[0-9A-Za-z_-]{1,64}$")
_FIELDS = frozenset(Memory.__slots__) | {"embedding"}
_REQUIRED = ("kind", "text", "scope")


class Rejected(ValueError):
    """A line that cannot be imported; the message is the reason shown in the report."""


# Export ------------------------------------------------------------------------------------------


def export_line(memory: Memory, vector: bytes | None, model: str) -> bytes:
    record = memory.to_json()
    if vector is not None:
        # every vector in one index comes from the index's model, whatever an old record says
        record["embedding"] = base64.b64encode(vector).decode("ascii")
        record["embedding_model"] = model
    return json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"


async def export_lines(
    store: MemoryStore, query: ListQuery, vectors: bool, model: str
) -> AsyncIterator[bytes]:
    """Every record the query matches, every version, as JSON Lines; read a page at a time.
    With ``vectors``, each line carries its vector, made by ``model``."""
    page_query = replace(query, limit=EXPORT_PAGE, offset=0, after=None)
    while True:
        page = await store.list_memories(page_query)
        stored = await store.vectors([m.id for m in page.memories]) if vectors else {}
        yield b"".join(export_line(memory, stored.get(memory.id), model) for memory in page.memories)
        if page.next_cursor is None:
            return
        page_query = replace(page_query, after=page.next_cursor)


# Import: one line -----------------------------------------------------------------------------------


def _time(record: dict[str, Any], name: str, required: bool = False) -> datetime | None:
    raw = record.get(name)
    if raw is None:
        if required:
            raise Rejected(f"{name}: missing")
        return None
    if not isinstance(raw, str):
        raise Rejected(f"{name}: must be an ISO 8601 string")
    try:
        moment = datetime.fromisoformat(raw)
    except ValueError:
        raise Rejected(f"{name}: not an ISO 8601 time: {raw[:40]!r}") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _str(record: dict[str, Any], name: str, limit: int = 200) -> str | None:
    raw = record.get(name)
    if raw is None:
        return None
    if not isinstance(raw, str) or len(raw) > limit:
        raise Rejected(f"{name}: must be a string of at most {limit} characters")
    return raw


def _scope(raw: Any) -> Scope:
    if not isinstance(raw, dict) or set(raw) - {"org", "project", "user", "session"}:
        raise Rejected("scope: must be an object with org, project, user, session")
    values: dict[str, str | None] = {}
    for level in ("org", "project", "user", "session"):
        value = raw.get(level)
        if value is not None and (not isinstance(value, str) or not value.strip()):
            raise Rejected(f"scope.{level}: must be a non-empty string or null")
        if value is not None and len(value) > MAX_SCOPE_VALUE_CHARS:
            raise Rejected(f"scope.{level}: longer than {MAX_SCOPE_VALUE_CHARS} characters")
        values[level] = value
    if values["org"] is None:
        raise Rejected("scope.org: missing")
    return Scope(org=values["org"], project=values["project"], user=values["user"], session=values["session"])


def _source(raw: Any, line_no: int) -> Source:
    if raw is None:
        return Source(role="import", request_id="", message_index=line_no, message_sha256="", span="")
    if not isinstance(raw, dict):
        raise Rejected("source: must be an object")
    try:
        source = Source(**raw)
    except TypeError as exc:
        raise Rejected(f"source: {exc}") from None
    if not isinstance(source.role, str) or not isinstance(source.span, str):
        raise Rejected("source: role and span must be strings")
    if not isinstance(source.message_index, int):
        raise Rejected("source.message_index: must be an integer")
    return source


_E = TypeVar("_E", Kind, Evidence, Status)


def _enum(cls: type[_E], raw: Any, name: str, default: _E | None = None) -> _E:
    if raw is None and default is not None:
        return default
    try:
        return cls(raw)
    except ValueError:
        choices = ", ".join(member.value for member in cls)
        raise Rejected(f"{name}: must be one of {choices}; got {str(raw)[:40]!r}") from None


def refingerprinted(memory: Memory) -> Memory:
    """The record with the fingerprint of its own scope, kind, slot and value (or text): after
    anything that changes those."""
    value = memory.value or memory.text
    digest = fingerprint(memory.scope, memory.kind.value, memory.key, value, memory.text, memory.qualifier)
    return memory.with_changes(fingerprint=digest)


def derived_id(scope: Scope, kind: str, text: str) -> str:
    """An id for a record that comes without one: from its content, so a second import merges."""
    digest = fingerprint(scope, kind, None, text, text)
    return f"imp{digest[:26]}"


def decode_line(line: bytes) -> dict[str, Any]:
    if len(line) > MAX_LINE_BYTES:
        raise Rejected(f"line longer than {MAX_LINE_BYTES} bytes")
    try:
        record = json.loads(line)
    except (ValueError, UnicodeDecodeError) as exc:
        raise Rejected(f"not JSON: {exc}") from None
    if not isinstance(record, dict):
        raise Rejected("not a JSON object")
    return record


def parse_record(record: dict[str, Any], line_no: int, now: datetime, secrets: SecretScanner) -> Memory:
    """One export line (decoded) as a record, or ``Rejected`` with the reason. Pure: nothing is
    read or written."""
    unknown = set(record) - _FIELDS
    if unknown:
        raise Rejected(f"unknown fields: {', '.join(sorted(unknown))}")
    missing = [name for name in _REQUIRED if record.get(name) in (None, "")]
    if missing:
        raise Rejected(f"missing: {', '.join(missing)}")
    version = record.get("schema_version", SCHEMA_VERSION)
    if not isinstance(version, int) or version < 1 or version > SCHEMA_VERSION:
        raise Rejected(f"schema_version {version!r}: this server reads 1 to {SCHEMA_VERSION}")
    text = _str(record, "text", MAX_TEXT_CHARS) or ""
    if not text.strip():
        raise Rejected("text: empty")
    kind = _enum(Kind, record.get("kind"), "kind")
    scope = _scope(record.get("scope"))
    source = _source(record.get("source"), line_no)
    if contains_secret(text, secrets) or contains_secret(source.span, secrets):
        raise Rejected("text or source holds a secret (API key, token, password); never stored")
    confidence = record.get("confidence", 1.0)
    if isinstance(confidence, bool) or not isinstance(confidence, int | float) or not 0 <= confidence <= 1:
        raise Rejected("confidence: must be a number from 0 to 1")
    memory_id = _str(record, "id", 64) or derived_id(scope, kind.value, text)
    if not _ID.match(memory_id):
        raise Rejected("id: letters, digits, '-' and '_' only, at most 64")
    for link in ("supersedes", "superseded_by"):
        value = _str(record, link, 64)
        if value is not None and not _ID.match(value):
            raise Rejected(f"{link}: not a record id")
    expires_at = _time(record, "expires_at")
    if expires_at is not None and expires_at <= now:
        raise Rejected(f"expired at {expires_at.isoformat()}")
    extra = record.get("extra")
    extra = {} if extra is None else extra
    if not isinstance(extra, dict):
        raise Rejected("extra: must be an object")
    version_no = record.get("version", 1)
    if not isinstance(version_no, int) or version_no < 1:
        raise Rejected("version: must be a positive integer")
    key = _str(record, "key")
    value = _str(record, "value", 1000)
    qualifier = _str(record, "qualifier")
    # the fingerprint is recomputed: it depends on the scope, which an import may change
    memory = Memory(
        id=memory_id,
        kind=kind,
        text=text,
        scope=scope,
        evidence=_enum(Evidence, record.get("evidence"), "evidence", Evidence.IMPORTED),
        confidence=float(confidence),
        source=source,
        observed_at=_time(record, "observed_at") or now,
        subject=_str(record, "subject"),
        key=key,
        value=value,
        qualifier=qualifier,
        valid_from=_time(record, "valid_from"),
        valid_to=_time(record, "valid_to"),
        status=_enum(Status, record.get("status"), "status", Status.ACTIVE),
        supersedes=_str(record, "supersedes", 64),
        superseded_by=_str(record, "superseded_by", 64),
        version=version_no,
        expires_at=expires_at,
        policy=_str(record, "policy"),
        extractor=_str(record, "extractor"),
        seen_count=max(1, int(record.get("seen_count", 1) or 1)),
        last_seen_at=_time(record, "last_seen_at"),
        embedding_model=_str(record, "embedding_model"),
        schema_version=SCHEMA_VERSION,
        extra=extra,
    )
    return refingerprinted(memory)


def stored_vector(line_vector: Any, line_model: str | None, model: str, dims: int) -> Vectors | None:
    """The vector a line carries, when it is usable as is: same model, right size."""
    if not isinstance(line_vector, str) or line_model != model:
        return None
    try:
        raw = base64.b64decode(line_vector, validate=True)
    except (binascii.Error, ValueError):
        return None
    if len(raw) != dims * 4:
        return None
    return np.frombuffer(raw, dtype=np.float32)


# Import: the batch writer -----------------------------------------------------------------------------


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
