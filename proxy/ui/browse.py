"""Browse and read: memories by scope with filters, a search ranked as recall would rank it (with
the scores), and one record with its provenance and its versions as a timeline."""

from __future__ import annotations

from dataclasses import dataclass, replace

from litestar import Response, get
from litestar.di import NamedDependency
from litestar.params import FromPath

from core.errors import BadRequest
from core.model import Memory
from core.scope import Scope
from proxy.memory.store import Cursor
from proxy.recall import search
from proxy.routes.admin import MemoryFilters, listing, readable_memory
from proxy.ui.view import STATUS_CHOICES, View, filter_fields, filters_from

PAGE_SIZE = 50
SEARCH_LIMIT = 30


@dataclass(frozen=True, slots=True)
class Row:
    memory: Memory
    score: float | None = None
    similarity: float | None = None


@dataclass(frozen=True, slots=True)
class ScopeState:
    level: str
    value: str
    state: str  # active, paused, disabled: what a request in this scope meets
    may_control: bool


async def ranked(view: View, filters: MemoryFilters, text: str) -> list[Row]:
    """What a request in the filters' context would recall for ``text``, best first, with the
    fused score and the vector similarity (the management API's search)."""
    query = listing(view.principal, replace(filters, statuses=(), kinds=(), evidence=()), changing=False)
    scope = Scope(
        org=query.org or view.principal.org,
        project=filters.project,
        user=filters.user,
        session=filters.session,
    )
    services = view.services
    found = await search(
        services.store,
        services.embeddings,
        services.recall_settings(),
        scope,
        text,
        SEARCH_LIMIT,
        query.readable,
    )
    return [Row(hit.memory, round(hit.score, 4), hit.similarity) for hit in found]


def may_control(view: View, level: str, value: str) -> bool:
    """The management API's rule for pause/disable/resume (``scopes.may_control_scope``)."""
    principal = view.principal
    return principal.admin or (
        level in principal.write
        and (level != "project" or principal.may_use_project(value))
        and (level != "user" or principal.may_act_as(value))
    )


async def scope_states(view: View, filters: MemoryFilters) -> list[ScopeState]:
    """The org's memory state, and that of each scope the filters name."""
    org = view.principal.org
    levels = [("org", org)] + [
        (level, value)
        for level in ("project", "user", "session")
        if (value := getattr(filters, level)) is not None
    ]
    states = []
    for level, value in levels:
        scope = Scope(org=org) if level == "org" else Scope(org=org, **{level: value})
        held = await view.services.store.controls(scope)
        state = "disabled" if "disabled" in held else "paused" if "paused" in held else "active"
        states.append(ScopeState(level, value, state, may_control(view, level, value)))
    return states


@get("/", name="ui-browse")
async def browse(view: NamedDependency[View]) -> Response[str]:
    params = view.request.query_params
    filters = filters_from(params)
    text = (params.get("q") or "").strip()
    next_cursor, total = None, 0
    if text:
        rows = await ranked(view, filters, text)
        total = len(rows)
    else:
        query = listing(view.principal, filters, changing=False, limit=PAGE_SIZE)
        raw = params.get("cursor")
        try:
            after = Cursor.decode(raw) if raw else None
        except ValueError as exc:
            raise BadRequest(str(exc), param="cursor") from None
        found = await view.services.store.list_memories(replace(query, after=after))
        rows = [Row(memory) for memory in found.memories]
        total = found.total
        next_cursor = found.next_cursor.encode() if found.next_cursor else None
    fields = filter_fields(params)
    return await view.page(
        "browse.html",
        rows=rows,
        total=total,
        q=text,
        fields=fields,
        chosen_status=fields.get("status", "active"),
        statuses=STATUS_CHOICES,
        next_cursor=next_cursor,
        narrowed=filters.narrows() and not text,
        states=await scope_states(view, filters),
        done=params.get("done"),
    )


@get("/memories/{memory_id:str}", name="ui-memory")
async def memory_page(view: NamedDependency[View], memory_id: FromPath[str]) -> Response[str]:
    memory = await readable_memory(view.services, view.principal, memory_id, changing=False)
    history = await view.services.store.history(memory)
    return await view.page(
        "memory.html",
        memory=memory,
        history=history,
        may_change=view.principal.may_change(memory.scope),
        is_current=memory.valid_to is None and memory.status.value != "superseded",
        pinned=bool(memory.extra.get("pinned")),
        done=view.request.query_params.get("done"),
    )


ROUTES = [browse, memory_page]
