"""What the proxy routes share: request identity, Mnemo's response headers, scope inputs."""

from __future__ import annotations

import os
from collections.abc import Mapping

from litestar import Request
from litestar.datastructures import State

from core.errors import StoreError
from core.model import new_id
from core.scope import Mode, Principal, Scope, ScopeInputs, effective_mode, resolve_scope
from extractors.commands import forget_requests
from policies import Policy
from proxy.auth import Forbidden
from proxy.forget import ForgetOutcome, forget
from proxy.lifespan import Services
from proxy.recall import RecallOutcome, recall
from proxy.relay import request_headers

STREAM_HEADERS = {"cache-control": "no-cache", "x-accel-buffering": "no"}


def provide_services(state: State) -> Services:
    services: Services = state.services
    return services


def request_id(request: Request[object, object, State]) -> str:
    return request.headers.get("x-request-id") or new_id()


def scope_inputs(
    headers: Mapping[str, str],
    path_project: str | None,
    body_user: object,
    derived_session: str | None,
    inferred_project: str | None = None,
) -> ScopeInputs:
    return ScopeInputs(
        inferred_project=inferred_project,
        header_project=headers.get("x-mnemo-project"),
        path_project=path_project,
        header_user=headers.get("x-mnemo-user"),
        body_user=body_user if isinstance(body_user, str) else None,
        header_session=headers.get("x-mnemo-session"),
        derived_session=derived_session,
    )


def _given(value: str | None) -> bool:
    return value is not None and value.strip() != ""


def scope_sources(inputs: ScopeInputs, scope: Scope, client_session: bool) -> dict[str, str | None]:
    """Where each part of a resolved scope came from, in ``resolve_scope``'s order of precedence:
    org from the principal; project from the header, the path or the agent's prompt (inferred); user
    from the header, the body, or the principal's default; session from the header, the client's own
    session id (``client``) or the conversation's opening (``derived``). None: unset."""
    project = (
        None
        if scope.project is None
        else "header"
        if _given(inputs.header_project)
        else "path"
        if _given(inputs.path_project)
        else "inferred"
    )
    user = (
        "header"
        if _given(inputs.header_user)
        else "body"
        if _given(inputs.body_user)
        else "principal_default"
    )
    session = (
        None
        if scope.session is None
        else "header"
        if _given(inputs.header_session)
        else "client"
        if client_session
        else "derived"
    )
    return {"org": "principal", "project": project, "user": user, "session": session}


def scope_for(principal: Principal, inputs: ScopeInputs) -> Scope:
    """The request's scope, refused (403 in the caller's shape) if the principal may not use its project."""
    scope = resolve_scope(inputs, principal)
    if not principal.may_use_project(scope.project):
        raise Forbidden(f"this key may not use project {scope.project!r}", param="project")
    if not principal.may_act_as(scope.user):
        raise Forbidden(f"this key may not act as user {scope.user!r}", param="user")
    return scope


def upstream_headers(
    policy: Policy, incoming: Mapping[str, str], *, identity_encoding: bool = False
) -> dict[str, str]:
    """The client's headers for the provider. When the client's bearer is its Mnemo key, the
    provider gets the key Mnemo holds instead: a Mnemo key never leaves Mnemo."""
    headers = request_headers(incoming, identity_encoding=identity_encoding)
    if policy.mode == "keys" and policy.bearer_is_mnemo_key:
        headers = {k: v for k, v in headers.items() if k.lower() not in ("authorization", "x-api-key")}
        provider_key = os.environ.get(policy.upstream_api_key_env or "", "")
        if provider_key:
            headers["authorization"] = f"Bearer {provider_key}"
    return headers


async def mode_for(services: Services, scope: Scope, requested: Mode) -> Mode:
    """The request's mode after its scopes' pause and disable controls; fails open to the request's
    own mode when the store cannot say."""
    if requested is Mode.OFF or not await services.ensure_store():
        return requested
    try:
        return effective_mode(requested, await services.store.controls(scope))
    except StoreError:
        return requested


async def recall_for(
    services: Services, principal: Principal, scope: Scope, text: str, mode: Mode
) -> RecallOutcome:
    """Recall unless the mode says not to; a store that is down gives ``degraded``, never an error."""
    if not mode.recalls:
        return RecallOutcome()
    if not await services.ensure_store():
        return RecallOutcome(status="degraded", reason="store unavailable")
    settings = services.recall_settings()
    asked = services.vocabulary.categories_asked(text)
    return await recall(services.store, services.embeddings, scope, text, settings, principal.read, asked)


async def forget_requested(
    services: Services, principal: Principal, scope: Scope, text: str, mode: Mode
) -> ForgetOutcome:
    """Carry out "forget that ..." in the latest user turn (only when this request may write memory,
    and only on records its principal may both read and write)."""
    requests = forget_requests(text)
    if not requests or not mode.learns:
        return ForgetOutcome()
    if not await services.ensure_store():
        return ForgetOutcome(status="degraded")
    actor = f"{principal.name}:{scope.user or ''}"
    allowed = principal.read & principal.write
    return await forget(services.eraser, services.vocabulary, scope, requests, actor, allowed)


def mnemo_headers(
    mode: Mode, outcome: RecallOutcome, forgotten: ForgetOutcome, overhead_ms: float, req_id: str
) -> dict[str, str]:
    status = (
        "off"
        if mode is Mode.OFF
        else "degraded"
        if "degraded" in (outcome.status, forgotten.status)
        else "ok"
    )
    return {
        "x-mnemo-status": status,
        "x-mnemo-recalled": str(len(outcome.memories)),
        "x-mnemo-recalled-ids": ",".join(item.memory.id for item in outcome.memories),  # in rank order
        "x-mnemo-forgotten": str(len(forgotten.deleted)),
        "x-mnemo-overhead-ms": f"{overhead_ms:.2f}",
        "x-mnemo-request-id": req_id,
    }
