"""The management API under /mnemo/v1/ (JSON, described by the served OpenAPI schema)."""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Request, delete, get, post
from litestar.datastructures import State
from litestar.di import NamedDependency
from litestar.exceptions import NotFoundException
from litestar.params import FromPath, FromQuery, QueryParameter

from proxy.auth import Forbidden, authenticate
from proxy.lifespan import Services
from proxy.memory.model import Evidence, Kind, Status, utcnow
from proxy.memory.store import ListQuery
from proxy.scope import Scope, readable


@get("/mnemo/v1/memories", tags=["memories"], summary="List memories with all their fields")
async def list_memories(
    request: Request[object, object, State],
    services: NamedDependency[Services],
    project: FromQuery[str | None] = None,
    user: FromQuery[str | None] = None,
    session: FromQuery[str | None] = None,
    visible: Annotated[
        bool,
        QueryParameter(
            description="Treat org/project/user/session as a request context: list what it may see."
        ),
    ] = False,
    kind: FromQuery[list[Kind] | None] = None,
    evidence: FromQuery[list[Evidence] | None] = None,
    status: FromQuery[list[Status] | None] = None,
    limit: Annotated[int, QueryParameter(ge=1, le=1000)] = 100,
    offset: Annotated[int, QueryParameter(ge=0)] = 0,
) -> dict[str, Any]:
    principal = authenticate(request.headers, services.policy)
    org = principal.org  # a principal lists its own org only (local mode has one org)
    query = ListQuery(
        org=org,
        project=None if visible else project,
        user=None if visible else user,
        session=None if visible else session,
        visible_to=Scope(org=org, project=project, user=user, session=session) if visible else None,
        readable=principal.read,
        kinds=tuple(kind or ()),
        evidence=tuple(evidence or ()),
        statuses=tuple(status or ()),
        limit=limit,
        offset=offset,
    )
    page = await services.store.list_memories(query)
    return {
        "object": "list",
        "data": [memory.to_json() for memory in page.memories],
        "total": page.total,
        "next_offset": page.next_offset,
    }


@get(
    "/mnemo/v1/memories/{memory_id:str}",
    tags=["memories"],
    summary="One memory with all its fields, and every version of it (history, oldest first)",
)
async def get_memory(
    request: Request[object, object, State], services: NamedDependency[Services], memory_id: FromPath[str]
) -> dict[str, Any]:
    principal = authenticate(request.headers, services.policy)
    memory = await services.store.get(memory_id)
    if memory is None or memory.scope.org != principal.org or not readable(memory.scope, principal.read):
        raise NotFoundException(f"no memory {memory_id}")
    history = await services.store.history(memory)
    return {**memory.to_json(), "history": [version.to_json() for version in history]}


@delete(
    "/mnemo/v1/memories/{memory_id:str}",
    tags=["memories"],
    summary="Delete one memory everywhere it lives: record, vector, index entry, links in its history",
    status_code=200,
)
async def delete_memory(
    request: Request[object, object, State], services: NamedDependency[Services], memory_id: FromPath[str]
) -> dict[str, Any]:
    principal = authenticate(request.headers, services.policy)
    memory = await services.store.get(memory_id)
    allowed = principal.read & principal.write
    if memory is None or memory.scope.org != principal.org or not readable(memory.scope, allowed):
        raise NotFoundException(f"no memory {memory_id}")
    await services.store.delete(memory, actor=principal.name, reason="deleted through the management API")
    return {"object": "deletion", "id": memory_id, "deleted": True, "deleted_at": utcnow().isoformat()}


@get("/mnemo/v1/audit", tags=["audit"], summary="Who did what to which memory, and when (never the text)")
async def audit(
    request: Request[object, object, State],
    services: NamedDependency[Services],
    limit: Annotated[int, QueryParameter(ge=1, le=1000)] = 100,
) -> dict[str, Any]:
    principal = authenticate(request.headers, services.policy)
    return {"object": "list", "data": await services.store.audit(principal.org, limit)}


@post(
    "/mnemo/v1/scopes/{level:str}/{value:str}/{action:str}",
    tags=["scopes"],
    summary="pause (recall, no learning), disable (neither) or resume memory for one scope",
    status_code=200,
)
async def control_scope(
    request: Request[object, object, State],
    services: NamedDependency[Services],
    level: FromPath[str],
    value: FromPath[str],
    action: FromPath[str],
) -> dict[str, Any]:
    principal = authenticate(request.headers, services.policy)
    if level not in ("project", "user", "session", "org") or action not in ("pause", "disable", "resume"):
        raise NotFoundException(
            f"no control {level}/{action}: levels org, project, user, session; actions pause, disable, resume"
        )
    if level not in principal.write or (level == "project" and not principal.may_use_project(value)):
        raise Forbidden(f"this key may not control {level} {value!r}")
    target = principal.org if level == "org" else value
    state = {"pause": "paused", "disable": "disabled", "resume": None}[action]
    await services.store.set_control(principal.org, level, target, state, actor=principal.name)
    return {"object": "scope_control", "level": level, "value": target, "state": state or "active"}
