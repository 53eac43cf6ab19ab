"""The review queue: records quarantined at learning (instruction-like or dangerous rules, stored for
a person and never recalled), each approved or discarded.

Approving makes the record an ordinary active one with evidence ``admin`` (a person vouched for it),
through the store's own writes: when its slot already has a current value, the approved record
supersedes it as learning would; otherwise it is written in place. Its retention clock is the
current policy's. The audit stream says who approved what.
"""

from __future__ import annotations

import numpy as np
from litestar import Response, get, post
from litestar.di import NamedDependency
from litestar.params import FromPath
from litestar.response import Redirect

from core.errors import BadRequest
from core.model import Evidence, Memory, Status, slot_key, utcnow
from policies import Policy
from policies.retention import expires_at
from proxy.memory.embeddings import EmbeddingService
from proxy.memory.store import MemoryStore
from proxy.routes.admin import MemoryFilters, listing, readable_memory
from proxy.ui.render import see_other
from proxy.ui.view import View

REVIEW_PAGE = 100


async def approve(
    store: MemoryStore, embeddings: EmbeddingService, policy: Policy, memory: Memory, actor: str
) -> Memory:
    """A quarantined record becomes active, with evidence ``admin`` (409 if it is not quarantined)."""
    if memory.status is not Status.QUARANTINED:
        raise BadRequest(f"{memory.id} is {memory.status.value}, not quarantined", status_code=409)
    now = utcnow()
    extra = {**memory.extra, "approved_by": actor, "approved_at": now.isoformat()}
    approved = memory.with_changes(status=Status.ACTIVE, evidence=Evidence.ADMIN, extra=extra)
    approved = approved.with_changes(expires_at=expires_at(approved, policy, now))
    stored = (await store.vectors([memory.id])).get(memory.id)
    vector = (
        np.frombuffer(stored, dtype=np.float32)
        if stored is not None
        else (await embeddings.embed_many([memory.text]))[0]
    )
    holder = None
    if memory.key:
        holder = await store.current_in_slot(slot_key(memory.scope, memory.key, memory.qualifier))
    if holder is not None and holder.id != memory.id:
        written = await store.supersede(holder, approved, vector)
    else:
        await store.put(approved, vector)
        written = approved
    # put leaves a key's old expiry in place: set the approved record's own (or none)
    written = await store.set_extra(written, extra, written.expires_at, actor=actor)
    await store.record_audit(memory.scope.org, actor, "approve", memory_id=memory.id)
    return written


@get("/review", name="ui-review")
async def review(view: NamedDependency[View]) -> Response[str]:
    query = listing(
        view.principal, MemoryFilters(statuses=(Status.QUARANTINED,)), changing=False, limit=REVIEW_PAGE
    )
    found = await view.services.store.list_memories(query)
    params = view.request.query_params
    return await view.page(
        "review.html",
        memories=found.memories,
        total=found.total,
        done=params.get("done"),
        done_id=params.get("id"),
        disk=params.get("disk"),
    )


@post("/memories/{memory_id:str}/approve", name="ui-approve")
async def approve_memory(view: NamedDependency[View], memory_id: FromPath[str]) -> Redirect:
    await view.form()
    services = view.services
    memory = await readable_memory(services, view.principal, memory_id, changing=True)
    await approve(services.store, services.embeddings, services.policy, memory, view.principal.name)
    return see_other("/review", done="approved", id=memory_id)


ROUTES = [review, approve_memory]
