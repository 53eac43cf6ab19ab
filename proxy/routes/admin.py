"""The management API's memory routes (under the management router's prefix, ``/mnemo/v1``; JSON,
described by the served OpenAPI schema), and the query every management route builds.

The router's guard authenticates before anything is read; each handler gets the ``principal`` and
turns its limits (org, readable and writable levels, projects) into the store query itself, so a
principal never reads what it may not see; an admin principal (``admin: true`` in the policy)
manages every org. Scopes and audit are in ``scopes``, export and import in ``export_import``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from typing import Annotated

from litestar import Request, delete, get, patch
from litestar.datastructures import State
from litestar.di import NamedDependency
from litestar.exceptions import NotFoundException
from litestar.params import FromPath, FromQuery, JSONBody, QueryParameter

from core.errors import BadRequest
from core.model import Evidence, Kind, Memory, Status, utcnow
from core.scope import SCOPE_LEVELS, Principal, Scope
from proxy.auth import Forbidden
from proxy.forget import DeletionReceipt
from proxy.lifespan import Services
from proxy.memory.corrections import Correction, Origin, correct, set_pinned
from proxy.memory.store import Cursor, ListQuery
from proxy.recall import search
from proxy.routes import schemas
from proxy.routes.common import request_id
from proxy.routes.schemas import (
    Deletion,
    MemoryDeletion,
    MemoryPage,
    MemoryRecord,
    MemoryWithHistory,
    SearchHit,
    SearchResults,
    errors,
)

LEVELS = frozenset(SCOPE_LEVELS)
RECEIPT_IDS_LISTED = 1000


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


async def readable_memory(services: Services, principal: Principal, memory_id: str, changing: bool) -> Memory:
    memory = await services.store.get(memory_id)
    allowed = memory is not None and (
        principal.may_change(memory.scope) if changing else principal.may_read(memory.scope)
    )
    if memory is None or not allowed:
        # the same answer whether it does not exist or is not this principal's to see
        raise NotFoundException(f"no memory {memory_id}")
    return memory


@get(
    "/memories",
    tags=["memories"],
    summary="List memories with all their fields, newest first",
    operation_id="listMemories",
    responses=errors(),
)
async def list_memories(
    services: NamedDependency[Services],
    principal: NamedDependency[Principal],
    filters: NamedDependency[MemoryFilters],
    limit: Annotated[int, QueryParameter(ge=1, le=1000)] = 100,
    cursor: Annotated[str | None, QueryParameter(description="next_cursor of the previous page")] = None,
) -> MemoryPage:
    query = listing(principal, filters, changing=False, limit=limit)
    page = await services.store.list_memories(replace(query, after=_cursor(cursor)))
    return MemoryPage(
        object="list",
        data=[schemas.record(memory) for memory in page.memories],
        total=page.total,
        next_cursor=page.next_cursor.encode() if page.next_cursor else None,
    )


@get(
    "/memories/search",
    tags=["memories"],
    summary="Rank what a request in this context would recall for a text, with the scores",
    operation_id="searchMemories",
    responses=errors(),
)
async def search_memories(
    services: NamedDependency[Services],
    principal: NamedDependency[Principal],
    q: Annotated[str, QueryParameter(description="The text to recall for", min_length=1, max_length=4000)],
    project: FromQuery[str | None] = None,
    user: FromQuery[str | None] = None,
    session: FromQuery[str | None] = None,
    org: Annotated[str | None, QueryParameter(description="Admin only")] = None,
    limit: Annotated[int, QueryParameter(ge=1, le=100)] = 10,
) -> SearchResults:
    query = listing(principal, MemoryFilters(org=org, project=project, user=user), changing=False)
    scope = Scope(org=query.org or principal.org, project=project, user=user, session=session)
    found = await search(
        services.store, services.embeddings, services.recall_settings(), scope, q, limit, query.readable
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
    "/memories/{memory_id:str}",
    tags=["memories"],
    summary="One memory with all its fields, and every version of it (history, oldest first)",
    operation_id="getMemory",
    responses=errors(404),
)
async def get_memory(
    services: NamedDependency[Services], principal: NamedDependency[Principal], memory_id: FromPath[str]
) -> MemoryWithHistory:
    memory = await readable_memory(services, principal, memory_id, changing=False)
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
    "/memories/{memory_id:str}",
    tags=["memories"],
    summary="Correct a memory: a new version supersedes it and the history keeps both (pinned: in place)",
    operation_id="patchMemory",
    responses=errors(404, 409, 415),
)
async def patch_memory(
    request: Request[object, object, State],
    services: NamedDependency[Services],
    principal: NamedDependency[Principal],
    memory_id: FromPath[str],
    data: JSONBody[MemoryPatch],
) -> MemoryRecord:
    memory = await readable_memory(services, principal, memory_id, changing=True)
    now, policy = utcnow(), services.policy
    extra = dict(memory.extra)
    if data.pinned is not None:
        extra["pinned"] = data.pinned
    change = Correction(
        text=data.text, value=data.value, subject=data.subject, valid_from=data.valid_from, reason=data.reason
    )
    if change.changes_anything():
        origin = Origin(principal.name, request_id(request), request.headers.get("user-agent"))
        written = await correct(
            services.store, services.embeddings, policy, memory, change, extra, origin, now
        )
    elif data.pinned is not None:
        written = await set_pinned(services.store, policy, memory, extra, principal.name, now)
    else:
        raise BadRequest("nothing to change: give text, value, subject, valid_from or pinned")
    return schemas.record(written)


@delete(
    "/memories/{memory_id:str}",
    tags=["memories"],
    summary="Delete one memory everywhere: record, vector, index entry, history links, queued jobs, caches",
    status_code=200,
    operation_id="deleteMemory",
    responses=errors(404),
)
async def delete_memory(
    services: NamedDependency[Services], principal: NamedDependency[Principal], memory_id: FromPath[str]
) -> MemoryDeletion:
    memory = await readable_memory(services, principal, memory_id, changing=True)
    receipt = await services.eraser.erase([memory], principal.name, "deleted through the management API")
    receipt = await services.eraser.settle(receipt, services.settings.erasure_wait_s)
    return schemas.memory_deletion(receipt, memory_id)


@delete(
    "/memories",
    tags=["memories"],
    summary="Delete every memory the filters match (all=true to delete all this key may change)",
    status_code=200,
    operation_id="deleteMemories",
    responses=errors(),
)
async def delete_memories(
    services: NamedDependency[Services],
    principal: NamedDependency[Principal],
    filters: NamedDependency[MemoryFilters],
    everything: Annotated[
        bool, QueryParameter(name="all", description="Required when no filter narrows the set")
    ] = False,
) -> Deletion:
    if not filters.narrows() and not everything:
        raise BadRequest("no filter given: pass filters, or all=true to delete all this key may change")
    query = listing(principal, filters, changing=True, limit=500)
    receipt = await erase_matching(services, principal, query, "bulk delete through the management API")
    return schemas.deletion(receipt, RECEIPT_IDS_LISTED)


async def erase_matching(
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


ROUTES = [list_memories, search_memories, get_memory, patch_memory, delete_memory, delete_memories]
