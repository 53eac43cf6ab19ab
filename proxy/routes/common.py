"""What the proxy routes share: request identity, Mnemo's response headers, scope inputs."""

from __future__ import annotations

from collections.abc import Mapping

from litestar import Request
from litestar.datastructures import State

from extractors.commands import forget_requests
from proxy.forget import ForgetOutcome, forget
from proxy.lifespan import Services
from proxy.memory.model import new_id
from proxy.recall import RecallOutcome, recall
from proxy.scope import Mode, Scope, ScopeInputs

STREAM_HEADERS = {"cache-control": "no-cache", "x-accel-buffering": "no"}


def provide_services(state: State) -> Services:
    services: Services = state.services
    return services


def request_id(request: Request[object, object, State]) -> str:
    return request.headers.get("x-request-id") or new_id()


def scope_inputs(
    headers: Mapping[str, str], path_project: str | None, body_user: object, derived_session: str | None
) -> ScopeInputs:
    return ScopeInputs(
        header_project=headers.get("x-mnemo-project"),
        path_project=path_project,
        header_user=headers.get("x-mnemo-user"),
        body_user=body_user if isinstance(body_user, str) else None,
        header_session=headers.get("x-mnemo-session"),
        derived_session=derived_session,
    )


async def recall_for(services: Services, scope: Scope, text: str, mode: Mode) -> RecallOutcome:
    """Recall unless the mode says not to; a store that is down gives ``degraded``, never an error."""
    if not mode.recalls:
        return RecallOutcome()
    if not await services.ensure_store():
        return RecallOutcome(status="degraded", reason="store unavailable")
    return await recall(services.store, services.embeddings, scope, text, services.recall_settings())


async def forget_requested(services: Services, scope: Scope, text: str, mode: Mode) -> ForgetOutcome:
    """Carry out "forget that ..." in the latest user turn (only when this request may write memory)."""
    requests = forget_requests(text)
    if not requests or not mode.learns:
        return ForgetOutcome()
    if not await services.ensure_store():
        return ForgetOutcome(status="degraded")
    actor = f"{services.principal.name}:{scope.user or ''}"
    return await forget(services.store, services.rules, scope, requests, actor)


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
        "x-mnemo-forgotten": str(len(forgotten.deleted)),
        "x-mnemo-overhead-ms": f"{overhead_ms:.2f}",
        "x-mnemo-request-id": req_id,
    }
