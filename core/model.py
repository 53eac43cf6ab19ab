"""The memory record (DESIGN §2) and how it maps to and from a flat Redis hash."""

from __future__ import annotations

import enum
import hashlib
import json
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import Any

from ulid import ULID

from core.scope import Scope, scope_key

SCHEMA_VERSION = 1


class Kind(enum.StrEnum):
    SEMANTIC = "semantic"
    PROCEDURAL = "procedural"
    EPISODIC = "episodic"
    REFLECTION = "reflection"


class Evidence(enum.StrEnum):
    STATED = "stated"
    INFERRED = "inferred"
    IMPORTED = "imported"
    ADMIN = "admin"


class Status(enum.StrEnum):
    ACTIVE = "active"
    SUPERSEDED = "superseded"
    QUARANTINED = "quarantined"


# Slots of how the user wants to be answered and addressed: given on every request, like rules.
STANDING_KEYS = ("response_language", "response_length", "indentation", "name", "nickname", "pronouns")


def is_standing(kind: str, key: str | None) -> bool:
    """Rules, commands and checks (procedural) and answer preferences stand for every request;
    facts, episodes and lessons are given only when a request is about them."""
    return kind == Kind.PROCEDURAL.value or key in STANDING_KEYS


def slot_key(scope: Scope, key: str, qualifier: str | None) -> str:
    """The slot a keyed fact fills: its exact scope, key and qualifier. One current value per slot;
    a qualified fact ("in docs/, use npm") fills another slot than the general one."""
    normal = " ".join((qualifier or "").lower().replace("the ", " ").split())
    joined = "\x1f".join([scope_key(scope), key, normal])
    return hashlib.sha256(joined.encode("utf-8")).hexdigest()[:32]


def new_id() -> str:
    return str(ULID())


def utcnow() -> datetime:
    return datetime.now(UTC)


def to_epoch(moment: datetime | None) -> float | None:
    return None if moment is None else moment.timestamp()


def from_epoch(value: Any) -> datetime | None:
    if value in (None, "", b""):
        return None
    return datetime.fromtimestamp(float(value), UTC)


@dataclass(frozen=True, slots=True)
class Source:
    """Where a memory came from: enough to check it against the original message."""

    role: str
    request_id: str
    message_index: int
    message_sha256: str
    span: str
    client: str | None = None
    model: str | None = None


@dataclass(frozen=True, slots=True)
class Memory:
    id: str
    kind: Kind
    text: str
    scope: Scope
    evidence: Evidence
    confidence: float
    source: Source
    observed_at: datetime
    subject: str | None = None
    key: str | None = None
    value: str | None = None
    qualifier: str | None = None
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    status: Status = Status.ACTIVE
    supersedes: str | None = None
    superseded_by: str | None = None
    version: int = 1
    expires_at: datetime | None = None
    policy: str | None = None
    extractor: str | None = None
    fingerprint: str = ""
    seen_count: int = 1
    last_seen_at: datetime | None = None
    embedding_model: str | None = None
    schema_version: int = SCHEMA_VERSION
    extra: dict[str, Any] = field(default_factory=dict)
    digest: str = ""  # sha256 over DIGEST_FIELDS as written; "" on a record not written yet

    def with_changes(self, **changes: Any) -> Memory:
        if "digest" not in changes and DIGEST_FIELDS.intersection(changes):
            changes["digest"] = ""  # the content changed: the old digest no longer says it
        return replace(self, **changes)

    def content_digest(self) -> str:
        """The digest of what the record says and where it came from (``DIGEST_FIELDS``)."""
        return content_digest(self)

    def to_json(self) -> dict[str, Any]:
        """The record as the API and export show it: every field, times in ISO 8601."""
        out: dict[str, Any] = {}
        for name in Memory.__slots__:
            value = getattr(self, name)
            if isinstance(value, datetime):
                out[name] = value.isoformat()
            elif isinstance(value, Scope | Source):
                out[name] = asdict(value)
            elif isinstance(value, enum.Enum):
                out[name] = value.value
            else:
                out[name] = value
        out["digest"] = self.digest or content_digest(self)
        return out


# What a memory is, as one digest: the fields that never change once the record is written. Left out:
# what its life changes in place (status, valid_to, links relinked by a deletion, confidence and
# counts raised when seen again, expiry, extra such as pinning) and what is derived (fingerprint).
DIGEST_FIELDS = frozenset(
    (
        "id", "kind", "text", "scope", "subject", "key", "value", "qualifier", "evidence", "source",
        "observed_at", "valid_from", "version", "policy", "extractor",
    )
)  # fmt: skip
DIGEST_VERSION = 1


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _micros(moment: datetime | None) -> int | None:
    return None if moment is None else (moment - _EPOCH) // timedelta(microseconds=1)


def canonical_json(value: Any) -> bytes:
    """One byte string per value: keys sorted, no spaces, UTF-8 as is."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def content_digest(memory: Memory) -> str:
    """sha256 (hex) of the canonical JSON of the record's ``DIGEST_FIELDS``: enums as their values,
    scope and source as objects, times as integer microseconds since the epoch (UTC), plus ``v``."""
    body: dict[str, Any] = {"v": DIGEST_VERSION}
    for name in DIGEST_FIELDS:
        value = getattr(memory, name)
        if isinstance(value, datetime):
            value = _micros(value)
        elif isinstance(value, Scope | Source):
            value = asdict(value)
        elif isinstance(value, enum.Enum):
            value = value.value
        body[name] = value
    return hashlib.sha256(canonical_json(body)).hexdigest()


# Hash layout -----------------------------------------------------------------

_TIME_FIELDS = ("observed_at", "valid_from", "valid_to", "expires_at", "last_seen_at")
_TEXT_FIELDS = (
    "id",
    "text",
    "subject",
    "key",
    "value",
    "qualifier",
    "supersedes",
    "superseded_by",
    "policy",
    "extractor",
    "fingerprint",
    "embedding_model",
)


def to_hash(memory: Memory, scope_tags: dict[str, str]) -> dict[str, str | float | int | bytes]:
    """Flatten a record for a Redis hash. Unset optional fields are left out, not stored empty."""
    row: dict[str, str | float | int | bytes] = {
        "kind": memory.kind.value,
        "evidence": memory.evidence.value,
        "status": memory.status.value,
        "confidence": memory.confidence,
        "version": memory.version,
        "seen_count": memory.seen_count,
        "schema_version": memory.schema_version,
        "source": json.dumps(asdict(memory.source), ensure_ascii=False),
        "scope": json.dumps(memory.scope.as_dict(), ensure_ascii=False),
        "extra": json.dumps(memory.extra, ensure_ascii=False),
        # The index filters on these; the raw values live in "scope" above.
        **{f"scope_{level}": tag for level, tag in scope_tags.items()},
        "current": "1" if memory.valid_to is None else "0",
    }
    for name in _TEXT_FIELDS:
        value = getattr(memory, name)
        if value is not None:
            row[name] = value
    for name in _TIME_FIELDS:
        epoch = to_epoch(getattr(memory, name))
        if epoch is not None:
            row[name] = epoch
    row["digest"] = content_digest(memory)  # always of what is written now
    return row


def _text(row: dict[str, Any], name: str) -> str | None:
    value = row.get(name)
    if value is None:
        return None
    return value.decode() if isinstance(value, bytes) else str(value)


def from_hash(row: dict[str, Any]) -> Memory:
    """Rebuild a record from a hash as read back from Redis (bytes or str values)."""
    scope_raw = json.loads(_text(row, "scope") or "{}")
    source_raw = json.loads(_text(row, "source") or "{}")
    return Memory(
        id=_text(row, "id") or "",
        kind=Kind(_text(row, "kind") or Kind.SEMANTIC.value),
        text=_text(row, "text") or "",
        scope=Scope(**scope_raw),
        evidence=Evidence(_text(row, "evidence") or Evidence.STATED.value),
        confidence=float(_text(row, "confidence") or 0.0),
        source=Source(**source_raw),
        observed_at=from_epoch(_text(row, "observed_at")) or utcnow(),
        subject=_text(row, "subject"),
        key=_text(row, "key"),
        value=_text(row, "value"),
        qualifier=_text(row, "qualifier"),
        valid_from=from_epoch(_text(row, "valid_from")),
        valid_to=from_epoch(_text(row, "valid_to")),
        status=Status(_text(row, "status") or "active"),
        supersedes=_text(row, "supersedes"),
        superseded_by=_text(row, "superseded_by"),
        version=int(_text(row, "version") or 1),
        expires_at=from_epoch(_text(row, "expires_at")),
        policy=_text(row, "policy"),
        extractor=_text(row, "extractor"),
        fingerprint=_text(row, "fingerprint") or "",
        seen_count=int(_text(row, "seen_count") or 1),
        last_seen_at=from_epoch(_text(row, "last_seen_at")),
        embedding_model=_text(row, "embedding_model"),
        schema_version=int(_text(row, "schema_version") or SCHEMA_VERSION),
        extra=json.loads(_text(row, "extra") or "{}"),
        digest=_text(row, "digest") or "",  # a record written before digests: computed when shown
    )
