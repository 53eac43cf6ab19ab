"""The recent requests: what each relayed call was given and why (its scope and where each part came
from, the recall status, each injected memory with its rank and scores), and what learning later made
of it, each memory one click from its record. Read from the request traces with the management API's
access rules (``routes.requests.may_see``, filters through ``admin.listing``)."""

from __future__ import annotations

from litestar import Response, get
from litestar.di import NamedDependency
from litestar.exceptions import NotFoundException
from litestar.params import FromPath

from core.errors import BadRequest
from core.model import Memory
from core.scope import Scope
from proxy.memory.traces import TraceQuery
from proxy.routes.admin import MemoryFilters, listing
from proxy.routes.request_schemas import RequestTrace, request_trace
from proxy.routes.requests import may_see
from proxy.ui.view import View, filter_fields

PAGE_SIZE = 50


async def _readable(view: View, ids: list[str]) -> dict[str, Memory]:
    """The records among ``ids`` that still exist and that the principal may read (their text is shown)."""
    found = await view.services.store.get_many(ids)
    return {i: m for i, m in found.items() if view.principal.may_read(m.scope)}


@get("/requests", name="ui-requests")
async def requests_page(view: NamedDependency[View]) -> Response[str]:
    params = view.request.query_params
    fields = {k: v for k, v in filter_fields(params).items() if k in ("project", "user", "session")}
    principal = view.principal
    allowed = listing(
        principal, MemoryFilters(project=fields.get("project"), user=fields.get("user")), changing=False
    )
    query = TraceQuery(
        org=allowed.org,
        project=fields.get("project"),
        user=fields.get("user"),
        session=fields.get("session"),
        keep=lambda scope: may_see(principal, scope),
        limit=PAGE_SIZE,
        cursor=params.get("cursor"),
    )
    try:
        page = await view.services.traces.page(query)
    except ValueError:
        raise BadRequest("not a cursor this listing gave", param="cursor") from None
    traces = [request_trace(trace) for trace in page.traces]
    return await view.page("requests.html", traces=traces, fields=fields, next_cursor=page.next_cursor)


@get("/requests/{request_id:str}", name="ui-request")
async def request_page(view: NamedDependency[View], request_id: FromPath[str]) -> Response[str]:
    principal = view.principal
    allowed = listing(principal, MemoryFilters(), changing=False)
    raw = await view.services.traces.get(allowed.org or principal.org, request_id)
    if raw is None or not may_see(principal, Scope(**raw["scope"])):
        raise NotFoundException(f"no request {request_id}")
    trace: RequestTrace = request_trace(raw)
    learning = trace.learning
    named = [m.id for m in trace.injected] + learning.written + learning.merged + learning.quarantined
    named += [v.id for v in learning.superseded]
    return await view.page("request.html", trace=trace, records=await _readable(view, named))


ROUTES = [requests_page, request_page]
