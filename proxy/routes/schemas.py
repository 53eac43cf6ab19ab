"""The bodies the management API answers with, as types: the served OpenAPI schema is made from them,
so a client can be generated from it.

The structs mirror what the handlers always sent, field for field and in the same order (msgspec
encodes a struct's fields in declaration order), so the wire output is unchanged. Times stay the ISO
8601 strings of ``Memory.to_json`` (``+00:00``, not msgspec's ``Z``). Bodies that come from the
domain's own ``to_json`` are converted with ``msgspec.convert``: a field the domain adds without
adding it here fails loudly instead of vanishing from the API.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypeGuard

import msgspec
from litestar.enums import MediaType
from litestar.openapi import ResponseSpec
from msgspec import UNSET, UnsetType

from core.model import Evidence, Kind, Memory, Status
from core.scope import SCOPE_LEVELS, Scope
from proxy.forget import DeletionReceipt
from proxy.memory.erasure import DiskState
from proxy.portability import ImportReport

ScopeLevel = Literal["org", "project", "user", "session"]
ControlState = Literal["paused", "disabled", "active"]


def _text(description: str, *, time: bool = False) -> Any:
    """A documented field; ``time``: an ISO 8601 string with its offset (``format: date-time``)."""
    extra: dict[str, Any] = {"description": description}
    if time:
        extra["extra"] = {"format": "date-time"}  # Litestar copies "extra" into the OpenAPI schema
    return msgspec.Meta(extra_json_schema=extra)


Time = Annotated[str, _text("ISO 8601 with offset", time=True)]
OptionalTime = Annotated[str | None, _text("ISO 8601 with offset; null: unset", time=True)]


def is_scope_level(value: str) -> TypeGuard[ScopeLevel]:
    return value in SCOPE_LEVELS


# The record ------------------------------------------------------------------------------------------


class RecordScope(msgspec.Struct, forbid_unknown_fields=True):
    """Where a memory applies: each level a value, or null (applies more broadly)."""

    org: str
    project: str | None
    user: str | None
    session: str | None


class RecordSource(msgspec.Struct, forbid_unknown_fields=True):
    """Where a memory came from: enough to check it against the original message."""

    role: Annotated[str, _text("user, assistant, api (a correction) or import")]
    request_id: str
    message_index: int
    message_sha256: Annotated[str, _text("sha256 of the message the span was read from; empty if none")]
    span: Annotated[str, _text("the exact text the memory was drawn from")]
    client: Annotated[str | None, _text("the client's user agent")]
    model: Annotated[str | None, _text("the model of the exchange")]


class MemoryRecord(msgspec.Struct, forbid_unknown_fields=True):
    """A memory with every field (docs/design.md §2); unset fields are null, never left out."""

    id: str
    kind: Kind
    text: Annotated[str, _text("one self-contained sentence, as shown to the model")]
    scope: RecordScope
    evidence: Evidence
    confidence: Annotated[float, msgspec.Meta(ge=0, le=1)]
    source: RecordSource
    observed_at: Time
    subject: str | None
    key: Annotated[str | None, _text("the slot it fills, e.g. package_manager")]
    value: str | None
    qualifier: Annotated[str | None, _text("narrows the slot, e.g. 'in docs/'")]
    valid_from: OptionalTime
    valid_to: Annotated[str | None, _text("null: current", time=True)]
    status: Status
    supersedes: Annotated[str | None, _text("id of the version this one replaced")]
    superseded_by: Annotated[str | None, _text("id of the version that replaced this one")]
    version: int
    expires_at: Annotated[str | None, _text("set by the retention policy; null: never", time=True)]
    policy: Annotated[str | None, _text("name@hash of the policy that admitted it")]
    extractor: Annotated[str | None, _text("name and version of the rule that produced it")]
    fingerprint: str
    seen_count: int
    last_seen_at: OptionalTime
    embedding_model: str | None
    schema_version: int
    extra: Annotated[dict[str, Any], _text("pinned, corrected_by, reason and other annotations")]
    digest: Annotated[str, _text("sha256 of the record's canonical fields (README: Verifiable memory)")]


class MemoryWithHistory(MemoryRecord, forbid_unknown_fields=True):
    """A memory and every version of its chain, oldest first."""

    history: list[MemoryRecord]


class ExportLine(MemoryRecord, forbid_unknown_fields=True):
    """One line of an export (JSON Lines): a record, and its vector when asked for."""

    embedding: Annotated[str | UnsetType, _text("base64 float32 vector (vectors=true only)")] = UNSET


def record_scope(scope: Scope) -> RecordScope:
    return RecordScope(org=scope.org, project=scope.project, user=scope.user, session=scope.session)


def record(memory: Memory) -> MemoryRecord:
    return msgspec.convert(memory.to_json(), MemoryRecord)


def record_with_history(memory: Memory, history: list[Memory]) -> MemoryWithHistory:
    body = memory.to_json()
    body["history"] = [version.to_json() for version in history]
    return msgspec.convert(body, MemoryWithHistory)


# Listing and search ----------------------------------------------------------------------------------


class MemoryPage(msgspec.Struct):
    """One page of a listing, newest first."""

    object: Literal["list"]
    data: list[MemoryRecord]
    total: Annotated[int, _text("how many records the filters match in all")]
    next_cursor: Annotated[str | None, _text("pass as cursor for the next page; null: last page")]


class SearchHit(msgspec.Struct):
    score: Annotated[float, _text("the fused rank score recall orders by")]
    similarity: Annotated[float | None, _text("cosine similarity of the vector match; null: keyword only")]
    memory: MemoryRecord


class SearchResults(msgspec.Struct):
    """What a request in this scope would recall for the text, best first."""

    object: Literal["list"]
    scope: RecordScope
    data: list[SearchHit]


# Deletion --------------------------------------------------------------------------------------------


class Deletion(msgspec.Struct, forbid_unknown_fields=True):
    """A deletion receipt: ids only, never the deleted text."""

    object: Literal["deletion"]
    deleted: Annotated[int, _text("how many records were deleted")]
    ids: Annotated[list[str], _text("the deleted ids (a bulk receipt lists the first 1000)")]
    ids_truncated: bool
    jobs_purged: Annotated[int, _text("queued extraction jobs that held the text, dropped")]
    cached_queries_dropped: int
    deleted_at: Time
    disk: Annotated[
        DiskState,
        _text(
            "done: the store's files no longer hold the text; pending: until a rewrite finishes; "
            "not_managed: an external store"
        ),
    ]
    disk_erased_at: Annotated[str | None, _text("when the files stopped holding it", time=True)]


class MemoryDeletion(Deletion, forbid_unknown_fields=True):
    id: Annotated[str, _text("the memory asked for")]


class ScopeRef(msgspec.Struct):
    level: ScopeLevel
    value: str


class ScopeDeletion(Deletion, forbid_unknown_fields=True):
    scope: ScopeRef


def deletion(receipt: DeletionReceipt, max_ids: int) -> Deletion:
    """A bulk receipt: the first ``max_ids`` ids listed."""
    return msgspec.convert(receipt.to_json(max_ids=max_ids), Deletion)


def memory_deletion(receipt: DeletionReceipt, memory_id: str) -> MemoryDeletion:
    return msgspec.convert({**receipt.to_json(), "id": memory_id}, MemoryDeletion)


def scope_deletion(receipt: DeletionReceipt, max_ids: int, level: ScopeLevel, value: str) -> ScopeDeletion:
    body = {**receipt.to_json(max_ids=max_ids), "scope": {"level": level, "value": value}}
    return msgspec.convert(body, ScopeDeletion)


# Import, audit, scope controls -----------------------------------------------------------------------


class Rejection(msgspec.Struct):
    line: Annotated[int, _text("1-based line number in the upload")]
    reason: str


class ImportResult(msgspec.Struct, forbid_unknown_fields=True):
    """How an import went, line by line counted."""

    object: Literal["import"]
    imported: int
    merged: Annotated[int, _text("lines that matched a record already stored")]
    rejected: int
    reembedded: Annotated[int, _text("records whose vector was made again here")]
    reconciled: Annotated[int, _text("current facts that met another current value of their slot")]
    rejected_by_reason: dict[str, int]
    rejections: Annotated[list[Rejection], _text("the first rejected lines and why")]
    dry_run: bool


def import_result(report: ImportReport, dry_run: bool) -> ImportResult:
    return msgspec.convert({**report.to_json(), "dry_run": dry_run}, ImportResult)


class AuditEntry(msgspec.Struct):
    """Who did what to which memory, and when; never the text. Fields an action does not use are
    left out."""

    action: Annotated[str, _text("delete, correct, annotate, export, import, paused, disabled, resume, ...")]
    org: str
    actor: Annotated[str, _text("the principal's name")]
    at: Annotated[str, _text("seconds since the epoch, as text")]
    memory_id: str | UnsetType = UNSET
    new_id: Annotated[str | UnsetType, _text("correct: the new version")] = UNSET
    scope_key: str | UnsetType = UNSET
    reason: str | UnsetType = UNSET
    fields: Annotated[str | UnsetType, _text("annotate: the fields set, comma-separated")] = UNSET
    count: Annotated[str | UnsetType, _text("export: records exported")] = UNSET
    imported: str | UnsetType = UNSET
    merged: str | UnsetType = UNSET
    rejected: str | UnsetType = UNSET
    level: Annotated[str | UnsetType, _text("scope controls: the level")] = UNSET
    scope_tag: Annotated[str | UnsetType, _text("scope controls: a hash of the value")] = UNSET
    seq: Annotated[str | UnsetType, _text("place in the audit hash chain, from 1")] = UNSET
    prev: Annotated[str | UnsetType, _text("digest of the entry before it in the chain")] = UNSET
    digest: Annotated[str | UnsetType, _text("sha256 of its canonical fields, prev included")] = UNSET


class AuditPage(msgspec.Struct):
    object: Literal["list"]
    data: list[AuditEntry]


def audit_page(rows: list[dict[str, str]]) -> AuditPage:
    return AuditPage(object="list", data=msgspec.convert(rows, list[AuditEntry]))


class BrokenLink(msgspec.Struct):
    entry: Annotated[str, _text("the stream id of the first entry that breaks the chain, or (end)")]
    seq: str
    problem: Annotated[str, _text("altered, removed (a gap), or a chain cut short at its end")]


class AuditVerification(msgspec.Struct, forbid_unknown_fields=True):
    """The audit hash chain walked from its start: intact, or the first broken link."""

    object: Literal["audit_verification"]
    intact: bool
    entries: Annotated[int, _text("chained entries that hold")]
    unchained: Annotated[int, _text("entries written before the chain began (not checked)")]
    first_seq: int | None
    last_seq: int | None
    broken: BrokenLink | None


def audit_verification(found: dict[str, Any]) -> AuditVerification:
    return msgspec.convert(found, AuditVerification)


class ScopeControl(msgspec.Struct):
    """A scope's memory state after the call."""

    object: Literal["scope_control"]
    level: ScopeLevel
    value: str
    state: Annotated[ControlState, _text("paused: recall, no learning; disabled: neither")]


# Health ----------------------------------------------------------------------------------------------


class Health(msgspec.Struct):
    status: Literal["ok"]


class ReadyChecks(msgspec.Struct, kw_only=True):
    """What readiness looked at; the optional ones appear only where they apply."""

    policy: Annotated[str, _text("name@hash of the policy in force")]
    embedding_model: str
    pending_erasures: Annotated[
        int | UnsetType, _text("deletions the store's files still hold (embedded store only)")
    ] = UNSET
    disk_erasure: Annotated[str | UnsetType, _text("managed, or not managed (external store)")] = UNSET
    policy_refused: Annotated[str | UnsetType, _text("why the last policy edit was refused")] = UNSET
    store: Annotated[str, _text("ok, or what is wrong with the store")]
    embedded_store: Annotated[
        str | UnsetType, _text("the embedded store's keeper: running or restarting, and its restarts")
    ] = UNSET
    held_jobs: Annotated[
        int | UnsetType, _text("learning jobs held in memory until the store takes them (when any)")
    ] = UNSET


class Readiness(msgspec.Struct):
    ready: bool
    checks: ReadyChecks


# Errors ----------------------------------------------------------------------------------------------


class ErrorDetail(msgspec.Struct):
    message: str
    type: Annotated[str, _text("invalid_request_error, authentication_error, not_found_error, ...")]
    param: Annotated[str | None, _text("the parameter at fault, if one is")]
    code: str | None


class ErrorBody(msgspec.Struct):
    """An error, in the OpenAI shape (docs/design.md §8)."""

    error: ErrorDetail


_ERRORS = {
    400: "The request is invalid (a parameter, the body, a filter)",
    401: "Keys mode: no Mnemo key, or an unknown one (send X-Mnemo-Key)",
    403: "The key may not act on this org, project, user or scope",
    404: "No such memory, or not one this key may see",
    409: "The memory is an old version: correct the current one",
    415: "A write without a JSON (or, for imports, NDJSON) Content-Type",
    503: "The memory store is unavailable",
}


def errors(*statuses: int) -> dict[int, ResponseSpec]:
    """Error responses to declare on a handler: the ones every management call can meet, plus these."""
    return {
        status: ResponseSpec(data_container=ErrorBody, description=_ERRORS[status], generate_examples=False)
        for status in sorted({400, 401, 403, 503, *statuses})
    }


def json_response(body: type[msgspec.Struct], description: str) -> ResponseSpec:
    return ResponseSpec(
        data_container=body, description=description, media_type=MediaType.JSON, generate_examples=False
    )
