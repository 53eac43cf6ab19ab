"""The export line format as declared types: one ``Memory.to_json()`` a line, and its vector.

``ExportLine`` states every field a line may carry and what each must be; msgspec checks a decoded
line against it, and each refusal names the field it is about (``Rejected``, shown per line in the
import report). ``parse_record`` turns a line into a record: pure, nothing read or written.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Annotated, Any

import msgspec
import numpy as np
from msgspec import Meta, Struct

from core.model import SCHEMA_VERSION, Evidence, Kind, Memory, Source, Status
from core.scope import MAX_SCOPE_VALUE_CHARS, Scope
from policies import fingerprint
from policies.secrets import SecretScanner, contains_secret
from proxy.memory.embeddings import Vectors

MAX_LINE_BYTES = 64 * 1024
MAX_TEXT_CHARS = 4000

RecordId = Annotated[str, Meta(pattern=r"^[0-9A-Za-z_-]{1,64}$")]
Short = Annotated[str, Meta(max_length=200)]
ScopeValue = Annotated[str, Meta(pattern=r"\S", max_length=MAX_SCOPE_VALUE_CHARS)]


class Rejected(ValueError):
    """A line that cannot be imported; the message is the reason shown in the report."""


class LineScope(Struct, forbid_unknown_fields=True):
    org: ScopeValue | None = None  # required; missing is said as "scope.org: missing"
    project: ScopeValue | None = None
    user: ScopeValue | None = None
    session: ScopeValue | None = None


class LineSource(Struct, forbid_unknown_fields=True):
    role: str
    request_id: str
    message_index: int
    message_sha256: str
    span: str
    client: str | None = None
    model: str | None = None


class ExportLine(Struct, forbid_unknown_fields=True, kw_only=True):
    """One line of an export file: every field of ``Memory.to_json()``, and the vector if asked for."""

    kind: Kind
    text: Annotated[str, Meta(pattern=r"\S", max_length=MAX_TEXT_CHARS)]
    scope: LineScope
    id: RecordId | None = None  # none: derived from the content, so a second import merges
    evidence: Evidence | None = None  # none: imported
    confidence: Annotated[float, Meta(ge=0, le=1)] = 1.0
    source: LineSource | None = None
    observed_at: datetime | None = None  # times without a zone are UTC
    subject: Short | None = None
    key: Short | None = None
    value: Annotated[str, Meta(max_length=1000)] | None = None
    qualifier: Short | None = None
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    status: Status | None = None
    supersedes: RecordId | None = None
    superseded_by: RecordId | None = None
    version: Annotated[int, Meta(ge=1)] = 1
    expires_at: datetime | None = None
    policy: Short | None = None
    extractor: Short | None = None
    fingerprint: str | None = None  # recomputed: it depends on the scope, which an import may change
    seen_count: int | None = None
    last_seen_at: datetime | None = None
    embedding_model: Short | None = None
    schema_version: Annotated[int, Meta(ge=1, le=SCHEMA_VERSION)] = SCHEMA_VERSION
    extra: dict[str, Any] | None = None
    digest: Annotated[str, Meta(pattern=r"^[0-9a-f]{64}$")] | None = None  # checked against the fields
    embedding: str | None = None  # base64 float32, made by embedding_model


_FIELDS = frozenset(ExportLine.__struct_fields__)
_REQUIRED = tuple(f.name for f in msgspec.structs.fields(ExportLine) if f.required)
assert frozenset(Memory.__slots__) | {"embedding"} == _FIELDS, "the line format is Memory.to_json()"


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
    try:
        line = msgspec.convert(record, ExportLine)
    except msgspec.ValidationError as exc:
        raise Rejected(_reason(str(exc), record)) from None
    return _memory(line, line_no, now, secrets)


def _memory(line: ExportLine, line_no: int, now: datetime, secrets: SecretScanner) -> Memory:
    if line.scope.org is None:
        raise Rejected("scope.org: missing")
    scope = Scope(line.scope.org, line.scope.project, line.scope.user, line.scope.session)
    source = (
        Source(role="import", request_id="", message_index=line_no, message_sha256="", span="")
        if line.source is None
        else Source(**msgspec.structs.asdict(line.source))
    )
    if contains_secret(line.text, secrets) or contains_secret(source.span, secrets):
        raise Rejected("text or source holds a secret (API key, token, password); never stored")
    expires_at = _utc(line.expires_at)
    if expires_at is not None and expires_at <= now:
        raise Rejected(f"expired at {expires_at.isoformat()}")
    memory = Memory(
        id=line.id or derived_id(scope, line.kind.value, line.text),
        kind=line.kind,
        text=line.text,
        scope=scope,
        evidence=line.evidence or Evidence.IMPORTED,
        confidence=float(line.confidence),
        source=source,
        observed_at=_utc(line.observed_at) or now,
        subject=line.subject,
        key=line.key,
        value=line.value,
        qualifier=line.qualifier,
        valid_from=_utc(line.valid_from),
        valid_to=_utc(line.valid_to),
        status=line.status or Status.ACTIVE,
        supersedes=line.supersedes,
        superseded_by=line.superseded_by,
        version=line.version,
        expires_at=expires_at,
        policy=line.policy,
        extractor=line.extractor,
        seen_count=max(1, line.seen_count or 1),
        last_seen_at=_utc(line.last_seen_at),
        embedding_model=line.embedding_model,
        schema_version=SCHEMA_VERSION,
        extra=line.extra or {},
    )
    if line.digest is not None and line.digest != memory.content_digest():
        raise Rejected("digest: does not match the record's fields (the line was altered after export)")
    return refingerprinted(memory.with_changes(digest=line.digest or ""))


def _utc(moment: datetime | None) -> datetime | None:
    return moment.replace(tzinfo=UTC) if moment is not None and moment.tzinfo is None else moment


# Reasons: msgspec's refusal said as the field it is about and what that field must be --------------

Says = Callable[[str, Any], str]  # (field, the value given) -> the reason


def _must(what: str) -> Says:
    return lambda name, raw: f"{name}: {what}"


def _one_of(members: type[Kind] | type[Evidence] | type[Status]) -> Says:
    choices = ", ".join(member.value for member in members)
    return lambda name, raw: f"{name}: must be one of {choices}; got {str(raw)[:40]!r}"


def _time(name: str, raw: Any) -> str:
    if not isinstance(raw, str):
        return f"{name}: must be an ISO 8601 string"
    return f"{name}: not an ISO 8601 time: {raw[:40]!r}"


def _text(name: str, raw: Any) -> str:
    if isinstance(raw, str) and not raw.strip():
        return f"{name}: empty"
    return f"{name}: must be a string of at most {MAX_TEXT_CHARS} characters"


def _scope_value(name: str, raw: Any) -> str:
    if isinstance(raw, str) and raw.strip():
        return f"{name}: longer than {MAX_SCOPE_VALUE_CHARS} characters"
    return f"{name}: must be a non-empty string or null"


_SAYS: dict[str, Says] = {
    "kind": _one_of(Kind),
    "evidence": _one_of(Evidence),
    "status": _one_of(Status),
    "text": _text,
    "confidence": _must("must be a number from 0 to 1"),
    "id": _must("letters, digits, '-' and '_' only, at most 64"),
    "supersedes": _must("not a record id"),
    "superseded_by": _must("not a record id"),
    "value": _must("must be a string of at most 1000 characters"),
    "version": _must("must be a positive integer"),
    "schema_version": lambda name, raw: f"{name} {raw!r}: this server reads 1 to {SCHEMA_VERSION}",
    "extra": _must("must be an object"),
    "digest": _must("must be 64 lowercase hex digits (a sha256)"),
    "scope": _must("must be an object with org, project, user, session"),
    **{f"scope.{level}": _scope_value for level in LineScope.__struct_fields__},
    **{name: _time for name in ("observed_at", "valid_from", "valid_to", "expires_at", "last_seen_at")},
    **{
        name: _must("must be a string of at most 200 characters")
        for name in ("subject", "key", "qualifier", "policy", "extractor", "embedding_model")
    },
}


def _reason(refusal: str, record: dict[str, Any]) -> str:
    """msgspec's "<what> - at `$.<field>`" as the import report says it: "<field>: <what>"."""
    what, _, where = refusal.partition(" - at `$.")
    name = where.rstrip("`")
    missing = re.match(r"Object missing required field `(\w+)`", what)
    if missing:
        return f"{name}: missing {missing[1]}"
    raw: Any = record
    for part in name.split("."):
        raw = raw.get(part) if isinstance(raw, dict) else None
    says = _SAYS.get(name)
    return says(name, raw) if says else f"{name or 'line'}: {what[:1].lower()}{what[1:]}"


# Identity and vectors ------------------------------------------------------------------------------


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
