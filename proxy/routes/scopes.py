"""Management routes on whole scopes: delete one, pause/disable/resume memory for one, and the
audit stream (under the management router's prefix)."""

from __future__ import annotations

from typing import Annotated, Any

from litestar import delete, get, post
from litestar.di import NamedDependency
from litestar.exceptions import NotFoundException
from litestar.handlers.base import BaseRouteHandler
from litestar.params import FromPath, QueryParameter

from core.scope import Principal
from proxy.auth import Forbidden
from proxy.lifespan import Services
from proxy.routes import schemas
from proxy.routes.access import Connection, principal_of
from proxy.routes.admin import RECEIPT_IDS_LISTED, MemoryFilters, erase_matching, listing
from proxy.routes.schemas import (
    AuditPage,
    AuditVerification,
    ScopeControl,
    ScopeDeletion,
    errors,
    is_scope_level,
)

CONTROL_STATES: dict[str, schemas.ControlState] = {
    "pause": "paused",
    "disable": "disabled",
    "resume": "active",
}


def may_control_scope(connection: Connection, _: BaseRouteHandler) -> None:
    """Guard for pause/disable/resume: an admin, or a key that writes the level and, for a project
    or user, may use that project or act as that user (403 otherwise). An unknown level or action
    passes on, for the handler to answer 404."""
    principal = principal_of(connection)
    level = str(connection.path_params.get("level", ""))
    value = str(connection.path_params.get("value", ""))
    if not is_scope_level(level) or connection.path_params.get("action") not in CONTROL_STATES:
        return
    allowed = principal.admin or (
        level in principal.write
        and (level != "project" or principal.may_use_project(value))
        and (level != "user" or principal.may_act_as(value))
    )
    if not allowed:
        raise Forbidden(f"this key may not control {level} {value!r}")


@delete(
    "/scopes/{level:str}/{value:str}",
    tags=["scopes"],
    summary="Delete a whole scope: every memory bound to this project, user or session (or the whole org)",
    status_code=200,
    operation_id="deleteScope",
    responses=errors(404),
)
async def delete_scope(
    services: NamedDependency[Services],
    principal: NamedDependency[Principal],
    level: FromPath[str],
    value: FromPath[str],
) -> ScopeDeletion:
    if not is_scope_level(level):
        raise NotFoundException(f"no scope level {level!r}: org, project, user, session")
    bound: dict[str, Any] = {level: value}
    filters = MemoryFilters(**bound)
    query = listing(principal, filters, changing=True, limit=500)
    receipt = await erase_matching(services, principal, query, f"{level} deleted through the management API")
    await services.traces.forget_scope(query.org, level, value)  # the scope's request traces go too
    return schemas.scope_deletion(receipt, RECEIPT_IDS_LISTED, level, value)


@get(
    "/audit",
    tags=["audit"],
    summary="Who did what to which memory, and when (never the text), newest first",
    operation_id="listAudit",
    responses=errors(),
)
async def audit(
    services: NamedDependency[Services],
    principal: NamedDependency[Principal],
    limit: Annotated[int, QueryParameter(ge=1, le=1000)] = 100,
    org: Annotated[str | None, QueryParameter(description="Admin only: another org than the key's")] = None,
) -> AuditPage:
    query = listing(principal, MemoryFilters(org=org), changing=False)
    return schemas.audit_page(await services.store.audit(query.org or principal.org, limit))


@get(
    "/audit/verify",
    tags=["audit"],
    summary="Walk the audit hash chain: intact with its count, or the first entry altered or removed",
    operation_id="verifyAudit",
    responses=errors(),
)
async def verify_audit(
    services: NamedDependency[Services], principal: NamedDependency[Principal]
) -> AuditVerification:
    if not (principal.admin or services.policy.mode != "keys"):
        raise Forbidden("the audit chain spans every org: verifying it takes an admin key")
    found = await services.store.verify_audit()
    return schemas.audit_verification(found.to_json())


@post(
    "/scopes/{level:str}/{value:str}/{action:str}",
    tags=["scopes"],
    summary="pause (recall, no learning), disable (neither) or resume memory for one scope",
    status_code=200,
    operation_id="controlScope",
    responses=errors(404, 415),
    guards=[may_control_scope],
)
async def control_scope(
    services: NamedDependency[Services],
    principal: NamedDependency[Principal],
    level: FromPath[str],
    value: FromPath[str],
    action: FromPath[str],
) -> ScopeControl:
    if not is_scope_level(level) or action not in CONTROL_STATES:
        raise NotFoundException(
            f"no control {level}/{action}: levels org, project, user, session; actions pause, disable, resume"
        )
    target = principal.org if level == "org" else value
    state = CONTROL_STATES[action]
    stored = None if state == "active" else state
    await services.store.set_control(principal.org, level, target, stored, actor=principal.name)
    return ScopeControl(object="scope_control", level=level, value=target, state=state)


ROUTES = [delete_scope, control_scope, audit, verify_audit]
