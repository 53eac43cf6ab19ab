"""What the proxy routes share: request identity, Mnemo's response headers, scope inputs."""

from __future__ import annotations

from collections.abc import Mapping

from litestar import Request
from litestar.datastructures import State

from proxy.lifespan import Services
from proxy.memory.model import new_id
from proxy.recall import RecallOutcome
from proxy.scope import Mode, ScopeInputs

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


def mnemo_headers(mode: Mode, outcome: RecallOutcome, overhead_ms: float, req_id: str) -> dict[str, str]:
    status = "off" if mode is Mode.OFF else outcome.status
    return {
        "x-mnemo-status": status,
        "x-mnemo-recalled": str(len(outcome.memories)),
        "x-mnemo-overhead-ms": f"{overhead_ms:.2f}",
        "x-mnemo-request-id": req_id,
    }
