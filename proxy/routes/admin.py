"""The management API under /mnemo/v1/ (JSON, described by the served OpenAPI schema).

Every handler authenticates first and turns the principal's limits (org, readable and writable
levels, projects) into the store query itself, so a principal never reads what it may not see;
an admin principal (``admin: true`` in the policy) manages every org.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Annotated, Any

from litestar import Request, delete, get, patch, post
from litestar.datastructures import ResponseHeader, State
from litestar.di import NamedDependency
from litestar.exceptions import NotFoundException
from litestar.openapi import ResponseSpec
from litestar.openapi.spec import OpenAPIMediaType, OpenAPIType, Operation, RequestBody, Schema
from litestar.params import FromPath, FromQuery, JSONBody, QueryParameter
from litestar.response import Stream

from core.errors import BadRequest
from core.model import Evidence, Kind, Memory, Source, Status, new_id, utcnow
from core.scope import SCOPE_LEVELS, Principal, Scope
from policies.retention import expires_at
from policies.secrets import contains_secret, secret_matcher
from proxy.auth import Forbidden, authenticate
from proxy.forget import DeletionReceipt
from proxy.lifespan import Services
from proxy.memory.store import Cursor, ListQuery, RecallQuery
from proxy.portability import Importer, export_lines, import_lines, refingerprinted
from proxy.routes import schemas
from proxy.routes.schemas import (
    AuditPage,
    Deletion,
    ExportLine,
    ImportResult,
    MemoryDeletion,
    MemoryPage,
    MemoryRecord,
    MemoryWithHistory,
    ScopeControl,
    ScopeDeletion,
    SearchHit,
    SearchResults,
    errors,
    is_scope_level,
)

LEVELS = frozenset(SCOPE_LEVELS)
EXPORT_MEDIA_TYPE = "application/x-ndjson"
CORRECTION_EXTRACTOR = "mnemo.api.correction.v1"
RECEIPT_IDS_LISTED = 1000
CONTROL_STATES: dict[str, schemas.ControlState] = {
    "pause": "paused",
    "disable": "disabled",
    "resume": "active",
}


@dataclass(frozen=True, slots=True)
class MemoryFilters:
    """The filters list, delete-by-filter and export share (query parameters)."""

    org: str | None = None
    project: str | None = None
    user: str | None = None
    session: str | None = None
    visible: bool = False
    kinds: tuple[Kind, ...] = ()
    evidence: tuple[Evidence, ...] = ()
    statuses: tuple[Status, ...] = ()
    key: str | None = None
    contains: str | None = None
    observed_after: datetime | None = None
    observed_before: datetime | None = None

    def narrows(self) -> bool:
        """Whether anything beyond the org is asked for (a bulk delete must narrow or say all=true)."""
        return any(
            value not in (None, (), False)
            for name, value in ((n, getattr(self, n)) for n in MemoryFilters.__slots__)
            if name != "org"
        )


async def provide_filters(
    org: Annotated[str | None, QueryParameter(description="Admin only: another org than the key's")] = None,
    project: Annotated[str | None, QueryParameter(description="Records bound to this project")] = None,
    user: Annotated[str | None, QueryParameter(description="Records bound to this user")] = None,
    session: Annotated[str | None, QueryParameter(description="Records bound to this session")] = None,
    visible: Annotated[
        bool,
        QueryParameter(
            description="Treat project/user/session as a request context: what such a request may see."
        ),
    ] = False,
    kind: Annotated[list[Kind] | None, QueryParameter(description="Any of these kinds")] = None,
    evidence: Annotated[list[Evidence] | None, QueryParameter(description="Any of these")] = None,
    status: Annotated[list[Status] | None, QueryParameter(description="Any of these statuses")] = None,
    key: Annotated[str | None, QueryParameter(description="Slot key, e.g. package_manager")] = None,
    contains: Annotated[
        str | None, QueryParameter(description="Words the text holds, in order (case-insensitive)")
    ] = None,
    observed_after: Annotated[datetime | None, QueryParameter(description="Observed at or after")] = None,
    observed_before: Annotated[datetime | None, QueryParameter(description="Observed before")] = None,
) -> MemoryFilters:
    return MemoryFilters(
        org=org,
        project=project,
        user=user,
        session=session,
        visible=visible,
        kinds=tuple(kind or ()),
        evidence=tuple(evidence or ()),
        statuses=tuple(status or ()),
        key=key,
        contains=contains,
        observed_after=observed_after,
        observed_before=observed_before,
    )


def listing(principal: Principal, filters: MemoryFilters, *, changing: bool, limit: int = 100) -> ListQuery:
    """The store query for a principal's filters, limited to what it may read (and, when
    ``changing``, also write)."""
    if filters.org is not None and filters.org != principal.org and not principal.admin:
        raise Forbidden(f"this key manages org {principal.org!r} only", param="org")
    if filters.project is not None and not (principal.admin or principal.may_use_project(filters.project)):
        raise Forbidden(f"this key may not use project {filters.project!r}", param="project")
    if filters.user is not None and not principal.may_act_as(filters.user):
        raise Forbidden(f"this key may not act as user {filters.user!r}", param="user")
    org = filters.org or (None if principal.admin else principal.org)
    levels = LEVELS if principal.admin else principal.read & principal.write if changing else principal.read
    context = Scope(
        org=org or principal.org, project=filters.project, user=filters.user, session=filters.session
    )
    exact = not filters.visible
    return ListQuery(
        org=org,
        project=filters.project if exact else None,
        user=filters.user if exact else None,
        session=filters.session if exact else None,
        visible_to=None if exact else context,
        readable=levels,
        projects=None if principal.admin else principal.allowed_projects,
        users=principal.allowed_users,
        key=filters.key,
        kinds=filters.kinds,
        evidence=filters.evidence,
        statuses=filters.statuses,
        text_contains=filters.contains,
        observed_after=filters.observed_after,
        observed_before=filters.observed_before,
        limit=limit,
    )


def _cursor(raw: str | None) -> Cursor | None:
    if raw is None:
        return None
    try:
        return Cursor.decode(raw)
    except ValueError as exc:
        raise BadRequest(str(exc), param="cursor") from None


async def _readable_memory(
    services: Services, principal: Principal, memory_id: str, changing: bool
) -> Memory:
    memory = await services.store.get(memory_id)
    allowed = memory is not None and (
        principal.may_change(memory.scope) if changing else principal.may_read(memory.scope)
    )
    if memory is None or not allowed:
        # the same answer whether it does not exist or is not this principal's to see
        raise NotFoundException(f"no memory {memory_id}")
    return memory


@get(
    "/mnemo/v1/memories",
    tags=["memories"],
    summary="List memories with all their fields, newest first",
    operation_id="listMemories",
    responses=errors(),
)
async def list_memories(
    request: Request[object, object, State],
    services: NamedDependency[Services],
    filters: NamedDependency[MemoryFilters],
    limit: Annotated[int, QueryParameter(ge=1, le=1000)] = 100,
    cursor: Annotated[str | None, QueryParameter(description="next_cursor of the previous page")] = None,
) -> MemoryPage:
    principal = authenticate(request.headers, services.policy)
    query = listing(principal, filters, changing=False, limit=limit)
    page = await services.store.list_memories(replace(query, after=_cursor(cursor)))
    return MemoryPage(
        object="list",
        data=[schemas.record(memory) for memory in page.memories],
        total=page.total,
        next_cursor=page.next_cursor.encode() if page.next_cursor else None,
    )


@get(
    "/mnemo/v1/memories/search",
    tags=["memories"],
    summary="Rank what a request in this context would recall for a text, with the scores",
    operation_id="searchMemories",
    responses=errors(),
)
async def search_memories(
    request: Request[object, object, State],
    services: NamedDependency[Services],
    q: Annotated[str, QueryParameter(description="The text to recall for", min_length=1, max_length=4000)],
    project: FromQuery[str | None] = None,
    user: FromQuery[str | None] = None,
    session: FromQuery[str | None] = None,
    org: Annotated[str | None, QueryParameter(description="Admin only")] = None,
    limit: Annotated[int, QueryParameter(ge=1, le=100)] = 10,
) -> SearchResults:
    principal = authenticate(request.headers, services.policy)
    query = listing(principal, MemoryFilters(org=org, project=project, user=user), changing=False)
    scope = Scope(org=query.org or principal.org, project=project, user=user, session=session)
    settings = services.recall_settings()
    found = await services.store.recall(
        RecallQuery(
            scope=scope,
            text=q,
            vector=await services.embeddings.embed_one(q),
            limit=limit,
            candidates=max(settings.candidates, limit * 2),
            text_weight=settings.text_weight,
            vector_weight=settings.vector_weight,
            readable=query.readable,
        )
    )
    return SearchResults(
        object="list",
        scope=schemas.record_scope(scope),
        data=[
            SearchHit(score=round(hit.score, 6), similarity=hit.similarity, memory=schemas.record(hit.memory))
            for hit in found
        ],
    )


@get(
    "/mnemo/v1/memories/{memory_id:str}",
    tags=["memories"],
    summary="One memory with all its fields, and every version of it (history, oldest first)",
    operation_id="getMemory",
    responses=errors(404),
)
async def get_memory(
    request: Request[object, object, State], services: NamedDependency[Services], memory_id: FromPath[str]
) -> MemoryWithHistory:
    principal = authenticate(request.headers, services.policy)
    memory = await _readable_memory(services, principal, memory_id, changing=False)
    history = await services.store.history(memory)
    return schemas.record_with_history(memory, history)


@dataclass(frozen=True, slots=True)
class MemoryPatch:
    """A correction: a new version with these changes supersedes the record; ``pinned`` alone
    changes the record in place (pinned records never expire)."""

    text: str | None = None
    value: str | None = None
    subject: str | None = None
    valid_from: datetime | None = None
    pinned: bool | None = None
    reason: str | None = None


@patch(
    "/mnemo/v1/memories/{memory_id:str}",
    tags=["memories"],
    summary="Correct a memory: a new version supersedes it and the history keeps both (pinned: in place)",
    operation_id="patchMemory",
    responses=errors(404, 409, 415),
)
async def patch_memory(
    request: Request[object, object, State],
    services: NamedDependency[Services],
    memory_id: FromPath[str],
    data: JSONBody[MemoryPatch],
) -> MemoryRecord:
    principal = authenticate(request.headers, services.policy)
    memory = await _readable_memory(services, principal, memory_id, changing=True)
    now = utcnow()
    policy = services.policy
    extra = dict(memory.extra)
    if data.pinned is not None:
        extra["pinned"] = data.pinned
    corrects = any(v is not None for v in (data.text, data.value, data.subject, data.valid_from))
    if not corrects:
        if data.pinned is None:
            raise BadRequest("nothing to change: give text, value, subject, valid_from or pinned")
        pinned = memory.with_changes(extra=extra)
        updated = await services.store.set_extra(
            memory, extra, expires_at(pinned, policy, now), actor=principal.name
        )
        return schemas.record(updated)
    if memory.status is Status.SUPERSEDED or memory.valid_to is not None:
        current = memory.superseded_by or "the newest version"
        raise BadRequest(
            f"{memory_id} is an old version; correct the current one ({current})", status_code=409
        )
    text = (data.text if data.text is not None else memory.text).strip()
    if not text:
        raise BadRequest("text: empty", param="text")
    if contains_secret(text, secret_matcher(policy.secret_patterns)):
        raise BadRequest("text holds a secret (API key, token, password); it is never stored", param="text")
    correction = memory.with_changes(
        id=new_id(),
        text=text,
        value=data.value if data.value is not None else memory.value,
        subject=data.subject if data.subject is not None else memory.subject,
        evidence=Evidence.ADMIN,
        confidence=1.0,
        source=Source(
            role="api",
            request_id=request.headers.get("x-request-id") or new_id(),
            message_index=0,
            message_sha256="",
            span=text,
            client=request.headers.get("user-agent"),
        ),
        observed_at=now,
        valid_from=data.valid_from or now,
        valid_to=None,
        status=Status.ACTIVE,
        superseded_by=None,
        policy=policy.label,
        extractor=CORRECTION_EXTRACTOR,
        seen_count=1,
        last_seen_at=None,
        embedding_model=services.embeddings.model_id,
        extra={**extra, "corrected_by": principal.name, **({"reason": data.reason} if data.reason else {})},
    )
    correction = refingerprinted(correction)
    correction = correction.with_changes(expires_at=expires_at(correction, policy, now))
    (vector,) = await services.embeddings.embed_many([text])
    written = await services.store.supersede(memory, correction, vector)
    await services.store.record_audit(
        memory.scope.org, principal.name, "correct", memory_id=memory.id, new_id=written.id
    )
    return schemas.record(written)


@delete(
    "/mnemo/v1/memories/{memory_id:str}",
    tags=["memories"],
    summary="Delete one memory everywhere: record, vector, index entry, history links, queued jobs, caches",
    status_code=200,
    operation_id="deleteMemory",
    responses=errors(404),
)
async def delete_memory(
    request: Request[object, object, State], services: NamedDependency[Services], memory_id: FromPath[str]
) -> MemoryDeletion:
    principal = authenticate(request.headers, services.policy)
    memory = await _readable_memory(services, principal, memory_id, changing=True)
    receipt = await services.eraser.erase([memory], principal.name, "deleted through the management API")
    receipt = await services.eraser.settle(receipt, services.settings.erasure_wait_s)
    return schemas.memory_deletion(receipt, memory_id)


@delete(
    "/mnemo/v1/memories",
    tags=["memories"],
    summary="Delete every memory the filters match (all=true to delete all this key may change)",
    status_code=200,
    operation_id="deleteMemories",
    responses=errors(),
)
async def delete_memories(
    request: Request[object, object, State],
    services: NamedDependency[Services],
    filters: NamedDependency[MemoryFilters],
    everything: Annotated[
        bool, QueryParameter(name="all", description="Required when no filter narrows the set")
    ] = False,
) -> Deletion:
    principal = authenticate(request.headers, services.policy)
    if not filters.narrows() and not everything:
        raise BadRequest("no filter given: pass filters, or all=true to delete all this key may change")
    query = listing(principal, filters, changing=True, limit=500)
    receipt = await _erase_matching(services, principal, query, "bulk delete through the management API")
    return schemas.deletion(receipt, RECEIPT_IDS_LISTED)


@delete(
    "/mnemo/v1/scopes/{level:str}/{value:str}",
    tags=["scopes"],
    summary="Delete a whole scope: every memory bound to this project, user or session (or the whole org)",
    status_code=200,
    operation_id="deleteScope",
    responses=errors(404),
)
async def delete_scope(
    request: Request[object, object, State],
    services: NamedDependency[Services],
    level: FromPath[str],
    value: FromPath[str],
) -> ScopeDeletion:
    principal = authenticate(request.headers, services.policy)
    if not is_scope_level(level):
        raise NotFoundException(f"no scope level {level!r}: org, project, user, session")
    bound: dict[str, Any] = {level: value}
    filters = MemoryFilters(**bound)
    query = listing(principal, filters, changing=True, limit=500)
    receipt = await _erase_matching(services, principal, query, f"{level} deleted through the management API")
    return schemas.scope_deletion(receipt, RECEIPT_IDS_LISTED, level, value)


async def _erase_matching(
    services: Services, principal: Principal, query: ListQuery, reason: str
) -> DeletionReceipt:
    """Page through the matches and erase them; deletion shrinks the set, so always read page one."""
    total = DeletionReceipt(ids=[], jobs_purged=0, cached_queries_dropped=0, at=utcnow())
    while True:
        page = await services.store.list_memories(query)
        if not page.memories:
            break
        receipt = await services.eraser.erase(page.memories, principal.name, reason)
        total = total.plus(receipt)
        if not receipt.ids:  # nothing could be deleted (raced away): do not spin
            break
    return await services.eraser.settle(total, services.settings.erasure_wait_s)


@get(
    "/mnemo/v1/export",
    tags=["portability"],
    summary="Export as JSON Lines: one record per line, every field and schema_version; streamed",
    media_type=EXPORT_MEDIA_TYPE,
    operation_id="exportMemories",
    response_headers=[
        ResponseHeader(
            name="x-mnemo-export-count", description="How many records follow", documentation_only=True
        ),
        ResponseHeader(
            name="x-mnemo-embedding-model",
            description="The model that made the vectors (vectors=true)",
            documentation_only=True,
        ),
    ],
    responses={
        200: ResponseSpec(
            data_container=ExportLine,
            media_type=EXPORT_MEDIA_TYPE,
            description="JSON Lines: each line one record in this shape (every version, every field)",
            generate_examples=False,
        ),
        **errors(),
    },
)
async def export(
    request: Request[object, object, State],
    services: NamedDependency[Services],
    filters: NamedDependency[MemoryFilters],
    vectors: Annotated[
        bool, QueryParameter(description="Include each record's vector (base64 float32) to skip re-embedding")
    ] = False,
) -> Stream:
    principal = authenticate(request.headers, services.policy)
    query = listing(principal, filters, changing=False)
    total = await services.store.count(query)
    await services.store.record_audit(principal.org, principal.name, "export", count=str(total))

    async def lines() -> AsyncIterator[bytes]:
        async for chunk in export_lines(services.store, query, vectors, services.embeddings.model_id):
            yield chunk

    return Stream(
        lines(),
        media_type=EXPORT_MEDIA_TYPE,
        headers={
            "x-mnemo-export-count": str(total),
            "x-mnemo-embedding-model": services.embeddings.model_id,
            "content-disposition": 'attachment; filename="mnemo-export.jsonl"',
        },
    )


@dataclass
class _ImportOperation(Operation):
    """The import reads its body as a raw stream (no ``data`` parameter), so say what it takes."""

    def __post_init__(self) -> None:
        self.request_body = RequestBody(
            required=True,
            description="JSON Lines, one record per line (an export, or records of the same shape)",
            content={
                EXPORT_MEDIA_TYPE: OpenAPIMediaType(
                    schema=Schema(type=OpenAPIType.STRING, description="one JSON record per line")
                )
            },
        )


@post(
    "/mnemo/v1/import",
    tags=["portability"],
    summary="Import JSON Lines (an export): each line checked, duplicates merged, vectors re-made if needed",
    status_code=200,
    request_max_body_size=None,
    operation_id="importMemories",
    operation_class=_ImportOperation,
    responses=errors(415),
)
async def import_memories(
    request: Request[object, object, State],
    services: NamedDependency[Services],
    dry_run: Annotated[bool, QueryParameter(description="Check and count, write nothing")] = False,
) -> ImportResult:
    principal = authenticate(request.headers, services.policy)
    importer = Importer(
        services.store,
        services.embeddings,
        principal,
        secret_matcher(services.policy.secret_patterns),
        dry_run=dry_run,
        # one org (local mode) or an operator: ids are kept; a key among orgs: ids go into its org
        keep_ids=principal.admin or services.policy.mode != "keys",
    )
    report = await import_lines(request.stream(), importer)
    if not dry_run:
        await services.store.record_audit(
            principal.org,
            principal.name,
            "import",
            imported=str(report.imported),
            merged=str(report.merged),
            rejected=str(report.rejected),
        )
    return schemas.import_result(report, dry_run)


@get(
    "/mnemo/v1/audit",
    tags=["audit"],
    summary="Who did what to which memory, and when (never the text), newest first",
    operation_id="listAudit",
    responses=errors(),
)
async def audit(
    request: Request[object, object, State],
    services: NamedDependency[Services],
    limit: Annotated[int, QueryParameter(ge=1, le=1000)] = 100,
    org: Annotated[str | None, QueryParameter(description="Admin only: another org than the key's")] = None,
) -> AuditPage:
    principal = authenticate(request.headers, services.policy)
    query = listing(principal, MemoryFilters(org=org), changing=False)
    return schemas.audit_page(await services.store.audit(query.org or principal.org, limit))


@post(
    "/mnemo/v1/scopes/{level:str}/{value:str}/{action:str}",
    tags=["scopes"],
    summary="pause (recall, no learning), disable (neither) or resume memory for one scope",
    status_code=200,
    operation_id="controlScope",
    responses=errors(404, 415),
)
async def control_scope(
    request: Request[object, object, State],
    services: NamedDependency[Services],
    level: FromPath[str],
    value: FromPath[str],
    action: FromPath[str],
) -> ScopeControl:
    principal = authenticate(request.headers, services.policy)
    if not is_scope_level(level) or action not in CONTROL_STATES:
        raise NotFoundException(
            f"no control {level}/{action}: levels org, project, user, session; actions pause, disable, resume"
        )
    allowed = principal.admin or (
        level in principal.write
        and (level != "project" or principal.may_use_project(value))
        and (level != "user" or principal.may_act_as(value))
    )
    if not allowed:
        raise Forbidden(f"this key may not control {level} {value!r}")
    target = principal.org if level == "org" else value
    state = CONTROL_STATES[action]
    stored = None if state == "active" else state
    await services.store.set_control(principal.org, level, target, stored, actor=principal.name)
    return ScopeControl(object="scope_control", level=level, value=target, state=state)
