"""Changing memory from the page: correct a record (a new version), pin it, delete it (the receipt
is shown), delete every record a filter matches (after a confirmation page), pause, disable or
resume a scope. Each is a plain form post checked for this page's token; the work is the same code
the management API runs (``proxy.memory.corrections``, the ``Eraser``, the store's controls)."""

from __future__ import annotations

from litestar import Response, post
from litestar.datastructures import FormMultiDict
from litestar.di import NamedDependency
from litestar.exceptions import NotFoundException
from litestar.params import FromPath
from litestar.response import Redirect

from core.errors import BadRequest
from core.model import new_id, utcnow
from core.scope import SCOPE_LEVELS
from proxy.auth import Forbidden
from proxy.memory.corrections import Correction, Origin, correct, set_pinned
from proxy.routes.admin import RECEIPT_IDS_LISTED, erase_matching, listing, readable_memory
from proxy.ui.browse import may_control
from proxy.ui.render import see_other
from proxy.ui.view import View, filter_fields, filters_from

CONTROL_STATES = {"pause": "paused", "disable": "disabled", "resume": None}
SAMPLE = 10


def _text(form: FormMultiDict, name: str) -> str | None:
    value = form.get(name)
    return value.strip() or None if isinstance(value, str) else None


@post("/memories/{memory_id:str}/edit", name="ui-edit")
async def edit(view: NamedDependency[View], memory_id: FromPath[str]) -> Redirect:
    form = await view.form()
    services = view.services
    memory = await readable_memory(services, view.principal, memory_id, changing=True)
    text, value = _text(form, "text"), _text(form, "value")
    change = Correction(
        text=text if text != memory.text else None,
        value=value if value != memory.value else None,
        reason=_text(form, "reason"),
    )
    if not change.changes_anything():
        raise BadRequest("nothing to change: the text and value are as they were")
    origin = Origin(view.principal.name, new_id(), view.request.headers.get("user-agent"))
    written = await correct(
        services.store,
        services.embeddings,
        services.policy,
        memory,
        change,
        dict(memory.extra),
        origin,
        utcnow(),
    )
    return see_other(f"/memories/{written.id}", done="corrected")


@post("/memories/{memory_id:str}/pin", name="ui-pin")
async def pin(view: NamedDependency[View], memory_id: FromPath[str]) -> Redirect:
    form = await view.form()
    services = view.services
    memory = await readable_memory(services, view.principal, memory_id, changing=True)
    pinned = _text(form, "pinned") == "1"
    extra = {**memory.extra, "pinned": pinned}
    await set_pinned(services.store, services.policy, memory, extra, view.principal.name, utcnow())
    return see_other(f"/memories/{memory_id}", done="pinned" if pinned else "unpinned")


@post("/memories/{memory_id:str}/delete", name="ui-delete")
async def delete_one(view: NamedDependency[View], memory_id: FromPath[str]) -> Response[str] | Redirect:
    form = await view.form()
    services = view.services
    memory = await readable_memory(services, view.principal, memory_id, changing=True)
    receipt = await services.eraser.erase([memory], view.principal.name, "deleted on the inspector page")
    receipt = await services.eraser.settle(receipt, services.settings.erasure_wait_s)
    if _text(form, "back") == "review":
        return see_other("/review", done="discarded", id=memory_id, disk=receipt.disk)
    return await view.page("receipt.html", receipt=receipt.to_json(), what=f"memory {memory_id}")


@post("/delete", name="ui-bulk-delete")
async def bulk_delete(view: NamedDependency[View]) -> Response[str]:
    """First post: how many records match, and a few of them, with a button to confirm. The
    confirming post deletes them and shows the receipt. A filter must narrow the set."""
    form = await view.form()
    # every version and status unless the form chose one: deleting a scope's records leaves no history
    filters = filters_from({**form, "status": _text(form, "status") or "any"})
    if not filters.narrows():
        raise BadRequest("choose a scope or a filter first: the page never deletes everything at once")
    if _text(form, "confirm") != "yes":
        query = listing(view.principal, filters, changing=True, limit=SAMPLE)
        found = await view.services.store.list_memories(query)
        return await view.page(
            "confirm.html", fields=filter_fields(form), total=found.total, sample=found.memories
        )
    query = listing(view.principal, filters, changing=True, limit=500)
    receipt = await erase_matching(view.services, view.principal, query, "bulk delete on the inspector page")
    body = receipt.to_json(max_ids=RECEIPT_IDS_LISTED)
    return await view.page("receipt.html", receipt=body, what="the records the filter matched")


@post("/scopes", name="ui-scope-control")
async def control(view: NamedDependency[View]) -> Redirect:
    form = await view.form()
    level, value, action = _text(form, "level"), _text(form, "value"), _text(form, "action")
    if level not in SCOPE_LEVELS or action not in CONTROL_STATES or value is None:
        raise NotFoundException("no such control: levels org, project, user, session; pause, disable, resume")
    principal = view.principal
    target = principal.org if level == "org" else value
    if not may_control(view, level, target):
        raise Forbidden(f"this key may not control {level} {target!r}")
    await view.services.store.set_control(
        principal.org, level, target, CONTROL_STATES[action], principal.name
    )
    back = {name: v for name in ("project", "user", "session") if (v := _text(form, name))}
    said = {"pause": "paused", "disable": "disabled", "resume": "resumed"}[action]
    return see_other("/", **back, done=f"{level} {target}: {said}")


ROUTES = [edit, pin, delete_one, bulk_delete, control]
