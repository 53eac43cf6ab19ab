"""The request traces under the management router's prefix: what each relayed call was given and
why, and what learning later made of it (``proxy.memory.traces``).

The access rules are the memories': the filters go through ``admin.listing`` (403 for an org,
project or user the key may not use), and a principal sees a trace only when it could have made the
call itself: its org, a project it may use, a user it may act as. Another org's trace, or one the
principal may not see, is a 404, the same as one that does not exist; an operator (``admin``) sees
every org's (``org=`` to pick one).
"""

from __future__ import annotations

from typing import Annotated

from litestar import get
from litestar.di import NamedDependency
from litestar.exceptions import NotFoundException
from litestar.params import FromPath, QueryParameter

from core.errors import BadRequest
from core.scope import Principal, Scope
from proxy.lifespan import Services
from proxy.memory.traces import TraceQuery
from proxy.routes.admin import MemoryFilters, listing
from proxy.routes.request_schemas import RequestPage, RequestTrace, request_trace
from proxy.routes.schemas import errors


def may_see(principal: Principal, scope: Scope) -> bool:
    """Whether a principal may see a call's trace: it could have made the call itself."""
    if principal.admin:
        return True
    return (
        scope.org == principal.org
        and principal.may_use_project(scope.project)
        and principal.may_act_as(scope.user)
    )


@get(
    "/requests",
    tags=["requests"],
    summary="Recent relayed calls, newest first: what each was given and why, and what learning made of it",
    operation_id="listRequests",
    responses=errors(),
)
async def list_requests(
    services: NamedDependency[Services],
    principal: NamedDependency[Principal],
    project: Annotated[str | None, QueryParameter(description="Calls in this project")] = None,
    user: Annotated[str | None, QueryParameter(description="Calls of this user")] = None,
    session: Annotated[str | None, QueryParameter(description="Calls of this session")] = None,
    org: Annotated[str | None, QueryParameter(description="Admin only: another org than the key's")] = None,
    limit: Annotated[int, QueryParameter(ge=1, le=1000)] = 100,
    cursor: Annotated[str | None, QueryParameter(description="next_cursor of the previous page")] = None,
) -> RequestPage:
    allowed = listing(principal, MemoryFilters(org=org, project=project, user=user), changing=False)
    query = TraceQuery(
        org=allowed.org,
        project=project,
        user=user,
        session=session,
        keep=lambda scope: may_see(principal, scope),
        limit=limit,
        cursor=cursor,
    )
    try:
        page = await services.traces.page(query)
    except ValueError:
        raise BadRequest("not a cursor this listing gave", param="cursor") from None
    return RequestPage(
        object="list", data=[request_trace(trace) for trace in page.traces], next_cursor=page.next_cursor
    )


@get(
    "/requests/{request_id:str}",
    tags=["requests"],
    summary="One relayed call: its scope and where each part came from, the memories it was given with "
    "their scores and ranks, and the records its learning wrote, merged, superseded or quarantined",
    operation_id="getRequest",
    responses=errors(404),
)
async def get_request(
    services: NamedDependency[Services],
    principal: NamedDependency[Principal],
    request_id: FromPath[str],
    org: Annotated[str | None, QueryParameter(description="Admin only: the org of the call")] = None,
) -> RequestTrace:
    allowed = listing(principal, MemoryFilters(org=org), changing=False)
    trace = await services.traces.get(allowed.org or principal.org, request_id)
    if trace is None or not may_see(principal, Scope(**trace["scope"])):
        # the same answer whether it does not exist or is not this principal's to see
        raise NotFoundException(f"no request {request_id}")
    return request_trace(trace)


ROUTES = [list_requests, get_request]
